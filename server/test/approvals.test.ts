import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';

import { SimAgent, type SimAgentOptions } from '../../bench/src/simulator.js';
import {
  addParent,
  announcePostgres,
  Client,
  createHousehold,
  enrollmentToken,
  type Household,
  SseReader,
  startTestServer,
  type TestServer,
  testDatabases,
} from './helpers.js';

announcePostgres();

for (const db of testDatabases()) {
  describe(`sign-up approvals and online accounts (${db.name})`, () => {
    let server: TestServer;
    let home: Household;
    let childId: string;
    const agents: SimAgent[] = [];

    /** A paired agent whose account `kid` is mapped to the child; returns the mapping id too. */
    const pairedAgent = async (options: Partial<SimAgentOptions> = {}, child = childId, account = 'kid') => {
      const a = new SimAgent({
        url: server.wsUrl,
        enrollmentToken: await enrollmentToken(home),
        linuxUsers: [{ username: account }, { username: 'guest' }],
        ...options,
      });
      agents.push(a);
      await a.connect();
      const approved = a.waitFor('pairing_approved');
      await home.client.post(`/api/device/approve/${a.systemId}`);
      await approved;
      const mapping = (
        await home.client.post(`/managed-users/${child}/mappings/add`, {
          system_id: a.systemId,
          linux_username: account,
        })
      ).body;
      return { agent: a, mappingId: mapping.id as string };
    };
    const bearer = (token: string | undefined, method: string, url: string, body?: unknown) =>
      fetch(`${server.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const check = async (a: SimAgent, domain: string, account = 'kid') =>
      (
        await bearer(
          a.secureToken,
          'GET',
          `/api/registration/check?domain=${encodeURIComponent(domain)}&linux_username=${account}`,
        )
      ).body;

    before(async () => {
      server = await startTestServer(db);
      home = await createHousehold(server, 'Sign-up home');
      childId = (await home.client.post('/api/user/create', { name: 'Kit' })).body.id;
    });
    after(async () => {
      await Promise.all(agents.map((a) => a.stop()));
      await server.close();
    });

    test('the full state table: none → pending → approved once → consumed → denied → approved always', async () => {
      const { agent, mappingId } = await pairedAgent();
      const stream = await SseReader.open(`${server.url}/api/dashboard/events`, home.client.cookie ?? '');
      try {
        assert.deepEqual(
          await check(agent, 'Games.Example.com'),
          { allowed: true, pending: false, domain: 'games.example.com' },
          'not enforced yet',
        );
        const settings = await home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
          enforce_signup_approvals: true,
        });
        assert.deepEqual(settings.body, {
          mapping_id: mappingId,
          enforce_signup_approvals: true,
          signup_supported: true,
        });
        // Takes effect on the very next check, with the agent still connected.
        assert.deepEqual(await check(agent, 'games.example.com'), {
          allowed: false,
          pending: false,
          domain: 'games.example.com',
        });

        const created = await bearer(agent.secureToken, 'POST', '/api/registration/request', {
          domain: 'games.example.com',
          linux_username: 'kid',
          url: 'https://games.example.com/signup',
        });
        assert.equal(created.status, 201);
        assert.equal(created.body.status, 'pending');
        const again = await bearer(agent.secureToken, 'POST', '/api/registration/request', {
          domain: 'GAMES.example.com.',
          linux_username: 'kid',
          url: 'https://games.example.com/signup',
        });
        assert.deepEqual([again.status, again.body], [200, { id: created.body.id, status: 'pending' }]);
        assert.deepEqual(await check(agent, 'games.example.com'), {
          allowed: false,
          pending: true,
          domain: 'games.example.com',
        });
        await stream.next((e) => e.event === 'approval_created' && e.data.id === created.body.id);
        assert.equal((await home.client.get('/api/dashboard')).body.counts.pending_approvals, 1);

        const listed = (await home.client.get('/api/approvals?status=pending&type=site_signup')).body
          .items[0];
        assert.equal(listed.id, created.body.id);
        assert.equal(listed.managed_user_name, 'Kit');
        assert.equal(listed.domain, 'games.example.com');
        assert.equal(listed.url, 'https://games.example.com/signup');
        assert.equal(listed.mapping_id, mappingId);

        const approved = await home.client.post(`/api/approvals/${created.body.id}/approve`);
        assert.equal(approved.status, 200);
        assert.equal(approved.body.status, 'approved');
        assert.equal(approved.body.grant, 'once');
        assert.ok(approved.body.decided_at);
        await stream.next((e) => e.event === 'approval_decided' && e.data.id === created.body.id);
        assert.equal((await home.client.get('/api/dashboard')).body.counts.pending_approvals, 0);
        assert.equal((await home.client.post(`/api/approvals/${created.body.id}/approve`)).status, 409);
        assert.equal((await home.client.post(`/api/approvals/${created.body.id}/deny`)).status, 409);

        const grants = (await home.client.get(`/api/mappings/${mappingId}/approval-grants`)).body.items;
        assert.equal(grants.length, 1);
        assert.equal(grants[0].kind, 'once');
        assert.equal(grants[0].source_request_id, created.body.id);
        assert.ok(Date.parse(grants[0].expires_at) - Date.now() > 23 * 3600_000);

        assert.equal((await check(agent, 'games.example.com')).allowed, true);
        assert.equal((await check(agent, 'eu.games.example.com')).allowed, true, 'a grant covers subdomains');
        assert.equal((await check(agent, 'example.com')).allowed, false, 'but not the parent domain');
        assert.deepEqual(
          (
            await bearer(agent.secureToken, 'POST', '/api/registration/request', {
              domain: 'games.example.com',
              linux_username: 'kid',
            })
          ).body,
          { status: 'approved' },
        );

        // The first login on the domain uses the one-time approval up.
        const login = await bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
          domain: 'games.example.com',
          username: 'kit@example.org',
          linux_username: 'kid',
        });
        assert.equal(login.status, 200);
        assert.deepEqual(await check(agent, 'games.example.com'), {
          allowed: false,
          pending: false,
          domain: 'games.example.com',
        });
        assert.ok(
          (await home.client.get(`/api/mappings/${mappingId}/approval-grants`)).body.items[0].consumed_at,
        );

        const second = await bearer(agent.secureToken, 'POST', '/api/registration/request', {
          domain: 'games.example.com',
          linux_username: 'kid',
        });
        assert.equal(second.status, 201);
        assert.notEqual(second.body.id, created.body.id);
        const denied = await home.client.post(`/api/approvals/${second.body.id}/deny`);
        assert.equal(denied.body.status, 'denied');
        assert.deepEqual(await check(agent, 'games.example.com'), {
          allowed: false,
          pending: false,
          domain: 'games.example.com',
        });

        const third = await bearer(agent.secureToken, 'POST', '/api/registration/request', {
          domain: 'games.example.com',
          linux_username: 'kid',
        });
        assert.equal(
          (await home.client.post(`/api/approvals/${third.body.id}/approve`, { grant: 'persistent' })).body
            .grant,
          'persistent',
        );
        await bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
          domain: 'games.example.com',
          username: 'kit@example.org',
          linux_username: 'kid',
        });
        assert.equal(
          (await check(agent, 'games.example.com')).allowed,
          true,
          'a persistent grant survives logins',
        );

        // Toggle off and on, no reconnect.
        await home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
          enforce_signup_approvals: false,
        });
        assert.equal((await check(agent, 'other.example.net')).allowed, true);
        await home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
          enforce_signup_approvals: true,
        });
        assert.equal((await check(agent, 'other.example.net')).allowed, false);
      } finally {
        stream.close();
      }
    });

    test('a one-time grant lapses after 24 hours', async () => {
      const { agent, mappingId } = await pairedAgent();
      await home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      const grant = (
        await home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
          domain: 'comics.example',
          kind: 'once',
        })
      ).body;
      assert.equal((await check(agent, 'comics.example')).allowed, true);
      await server.services.db.kysely
        .updateTable('approval_grant')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', grant.id)
        .execute();
      // A day passes in the database only: what the server read into memory would long have expired.
      server.services.cache.clear();
      assert.equal((await check(agent, 'comics.example')).allowed, false);
    });

    test("an agent's next hello changes at once what its token may ask and how its device is listed", async () => {
      const { agent, mappingId } = await pairedAgent({ agentVersion: '0.56.0', hostname: 'old-pc' });
      await home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      assert.equal((await check(agent, 'forum.example')).allowed, true, 'too old to enforce');
      const unknown = await bearer(
        agent.secureToken,
        'GET',
        '/api/registration/check?domain=forum.example&linux_username=newkid',
      );
      assert.equal(unknown.status, 400, 'an account the agent never reported');
      await agent.stop();

      const upgraded = new SimAgent({
        url: server.wsUrl,
        systemId: agent.systemId,
        secureToken: agent.secureToken,
        agentVersion: '0.57.0',
        hostname: 'new-pc',
        linuxUsers: [{ username: 'kid' }, { username: 'newkid' }],
      });
      agents.push(upgraded);
      assert.equal((await upgraded.connect()).success, true);
      assert.equal((await check(upgraded, 'forum.example')).allowed, false, 'the new version enforces');
      const added = await bearer(
        upgraded.secureToken,
        'GET',
        '/api/registration/check?domain=forum.example&linux_username=newkid',
      );
      assert.equal(added.status, 200, 'the newly reported account is known');
      const kit = (await home.client.get('/api/users')).body.items.find(
        (u: { id: string }) => u.id === childId,
      );
      const listed = kit.mappings.find((m: { system_id: string }) => m.system_id === agent.systemId);
      assert.equal(listed.hostname, 'new-pc');
    });

    test('not enforced for old agents, uncovered platforms and unmapped accounts', async () => {
      const old = await pairedAgent({ agentVersion: '0.56.9' });
      const settings = await home.client.post(`/api/mappings/${old.mappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      assert.equal(settings.body.signup_supported, false);
      assert.equal((await check(old.agent, 'blocked.example')).allowed, true);
      const phone = await pairedAgent({ platform: 'android' });
      await home.client.post(`/api/mappings/${phone.mappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      assert.equal(
        (await home.client.get(`/api/mappings/${phone.mappingId}/approval-settings`)).body.signup_supported,
        false,
      );
      assert.equal((await check(phone.agent, 'blocked.example')).allowed, true);
      const linux = await pairedAgent();
      await home.client.post(`/api/mappings/${linux.mappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      assert.equal(
        (await check(linux.agent, 'blocked.example', 'guest')).allowed,
        true,
        'an account of no child',
      );
      assert.equal((await check(linux.agent, 'blocked.example', 'kid')).allowed, false);
    });

    test('bad domains, foreign accounts and bad credentials are refused', async () => {
      const { agent } = await pairedAgent();
      for (const domain of [
        '',
        'exa mple.com',
        'a..b',
        `${'x'.repeat(64)}.com`,
        `${'abc.'.repeat(70)}com`,
        '-x.com',
      ]) {
        const res = await bearer(
          agent.secureToken,
          'GET',
          `/api/registration/check?domain=${encodeURIComponent(domain)}&linux_username=kid`,
        );
        assert.equal(res.status, 400, JSON.stringify(domain));
        assert.equal(res.body.error.code, 'invalid_request');
      }
      assert.equal((await check(agent, '192.168.1.5')).domain, '192.168.1.5');
      assert.equal(
        (
          await bearer(
            agent.secureToken,
            'GET',
            '/api/registration/check?domain=a.com&linux_username=stranger',
          )
        ).status,
        400,
      );
      assert.equal(
        (
          await bearer(agent.secureToken, 'POST', '/api/registration/request', {
            domain: 'a.com',
            linux_username: 'kid',
            url: 'javascript:alert(1)',
          })
        ).status,
        400,
      );
      assert.equal(
        (
          await bearer(agent.secureToken, 'POST', '/api/registration/request', {
            domain: 'a.com',
            linux_username: 'kid',
            extra: 1,
          })
        ).status,
        400,
      );
      assert.equal(
        (
          await bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
            domain: 'a.com',
            linux_username: 'kid',
          })
        ).status,
        400,
      );
      assert.equal(
        (await bearer(undefined, 'GET', '/api/registration/check?domain=a.com&linux_username=kid')).status,
        401,
      );
      assert.equal(
        (
          await bearer('0'.repeat(64), 'POST', '/api/registration/log-login', {
            domain: 'a.com',
            username: 'x',
            linux_username: 'kid',
          })
        ).body.error.code,
        'invalid_token',
      );
    });

    test('a password sent with a login is dropped unread: not in the database file, not in the logs', async () => {
      const secret = `Pa55-${Math.random().toString(36).slice(2)}-never-keep-me`;
      const { agent } = await pairedAgent();
      const res = await bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
        domain: 'mail.example.org',
        username: 'kit@example.org',
        linux_username: 'kid',
        password: secret,
        passwd: secret,
        user_password: secret,
      });
      assert.equal(res.status, 200);
      assert.equal(JSON.stringify(res.body).includes(secret), false);
      if (db.name === 'sqlite') {
        const dir = path.dirname(path.join(server.dataDir, 'hearth.db'));
        for (const file of readdirSync(dir).filter((f) => f.startsWith('hearth.db'))) {
          assert.equal(readFileSync(path.join(dir, file)).includes(secret), false, file);
        }
      } else {
        const tables = ['user_online_account', 'approval_request', 'alert', 'agent_device'] as const;
        for (const table of tables) {
          const rows = await server.services.db.kysely.selectFrom(table).selectAll().execute();
          assert.equal(JSON.stringify(rows).includes(secret), false, table);
        }
      }
    });

    test('with debug logging on, the password appears in no log line', async () => {
      const logFile = path.join(server.dataDir, 'debug.log');
      const logged = await startTestServer(
        db,
        { HEARTH_LOG_LEVEL: 'debug' },
        { log: pino({ level: 'debug' }, pino.destination({ dest: logFile, sync: true })) },
      );
      const secret = `Logged-${Math.random().toString(36).slice(2)}-never`;
      try {
        const owner = await createHousehold(logged, 'Logged home');
        const a = new SimAgent({
          url: logged.wsUrl,
          enrollmentToken: await enrollmentToken(owner),
          linuxUsers: [{ username: 'kid' }],
        });
        agents.push(a);
        await a.connect();
        const approved = a.waitFor('pairing_approved');
        await owner.client.post(`/api/device/approve/${a.systemId}`);
        await approved;
        const res = await fetch(`${logged.url}/api/registration/log-login`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a.secureToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            domain: 'bank.example',
            username: 'kit',
            linux_username: 'kid',
            password: secret,
          }),
        });
        assert.equal(res.status, 200);
        // A malformed body with the password in it is refused without echoing it either.
        const bad = await fetch(`${logged.url}/api/registration/log-login`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a.secureToken}`, 'content-type': 'application/json' },
          body: `{"domain": "bank.example", "password": "${secret}", `,
        });
        assert.equal(bad.status, 400);
        assert.equal((await bad.text()).includes(secret), false);
      } finally {
        await logged.close();
      }
      const text = readFileSync(logFile, 'utf8');
      assert.ok(text.includes('/api/registration/log-login'), 'request lines were logged');
      assert.equal(text.includes(secret), false);
    });

    test('online accounts: upsert keeps first detected, moves last active; search, sort, filter by child', async () => {
      const other = (await home.client.post('/api/user/create', { name: 'Lou' })).body.id;
      const kit = await pairedAgent();
      const lou = await pairedAgent({}, other, 'lou');
      const log = (a: SimAgent, account: string, domain: string, username: string) =>
        bearer(a.secureToken, 'POST', '/api/registration/log-login', {
          domain,
          username,
          linux_username: account,
        });
      const first = (await log(kit.agent, 'kid', 'Zebra.example', 'kit-z')).body;
      await new Promise((r) => setTimeout(r, 10));
      const again = (await log(kit.agent, 'kid', 'zebra.example', 'kit-z')).body;
      assert.equal(again.id, first.id);
      assert.equal(again.first_detected_at, first.first_detected_at);
      assert.ok(again.last_active_at > first.last_active_at);
      await log(kit.agent, 'kid', 'apple.example', 'kit-a@example.org');
      await log(lou.agent, 'lou', 'mango.example', 'lou-m');

      const all = (await home.client.get('/api/online-accounts?sort=domain&order=asc')).body.items.map(
        (a: { domain: string }) => a.domain,
      );
      assert.deepEqual(all, [...all].sort());
      assert.ok(all.includes('zebra.example') && all.includes('mango.example'));
      const search = (await home.client.get('/api/online-accounts?q=KIT-A')).body.items;
      assert.deepEqual(
        search.map((a: { username: string }) => a.username),
        ['kit-a@example.org'],
      );
      const byDomain = (await home.client.get('/api/online-accounts?q=mango')).body.items;
      assert.equal(byDomain.length, 1);
      assert.equal(byDomain[0].managed_user_name, 'Lou');
      const lous = (await home.client.get(`/api/online-accounts?managed_user_id=${other}`)).body.items;
      assert.ok(lous.every((a: { managed_user_id: string }) => a.managed_user_id === other));
      assert.equal((await home.client.get('/api/online-accounts?sort=password')).status, 400);
      const member = await addParent(server, home, 'member', [
        { managed_user_id: other, can_view: true, can_manage_policies: false },
      ]);
      const seen = (await member.get('/api/online-accounts')).body.items;
      assert.ok(
        seen.length > 0 && seen.every((a: { managed_user_id: string }) => a.managed_user_id === other),
      );
      assert.equal((await member.get(`/api/online-accounts?managed_user_id=${childId}`)).status, 404);
    });

    test('other request types: time extensions add minutes, app and domain requests become grants', async () => {
      const { agent, mappingId } = await pairedAgent();
      const ask = (body: unknown) => bearer(agent.secureToken, 'POST', '/api/approvals/request', body);
      const time = await ask({
        type: 'time_extension',
        linux_username: 'kid',
        details: { minutes: 20, reason: 'homework' },
      });
      assert.equal(time.status, 201);
      const noMinutes = await ask({ type: 'time_extension', linux_username: 'kid', details: {} });
      assert.equal((await home.client.post(`/api/approvals/${noMinutes.body.id}/approve`)).status, 400);
      assert.equal(
        (await home.client.post(`/api/approvals/${noMinutes.body.id}/approve`, { minutes: 15 })).status,
        200,
      );
      const approved = await home.client.post(`/api/approvals/${time.body.id}/approve`);
      assert.equal(approved.body.status, 'approved');
      const adjustments = await server.services.db.kysely
        .selectFrom('time_adjustment')
        .selectAll()
        .where('managed_user_id', '=', childId)
        .execute();
      assert.deepEqual(
        adjustments.map((a) => Number(a.seconds)).sort((x, y) => x - y),
        [900, 1200],
      );

      const app = await ask({
        type: 'app_access',
        linux_username: 'kid',
        details: { identifier: '/usr/bin/minecraft', application_name: 'Minecraft' },
      });
      await home.client.post(`/api/approvals/${app.body.id}/approve`, { grant: 'persistent' });
      const unblock = await ask({
        type: 'domain_unblock',
        linux_username: 'kid',
        details: { domain: 'Wiki.Example.org' },
      });
      const dup = await ask({
        type: 'domain_unblock',
        linux_username: 'kid',
        details: { domain: 'wiki.example.org' },
      });
      assert.deepEqual([dup.status, dup.body.id], [200, unblock.body.id]);
      const decided = await home.client.post(`/api/approvals/${unblock.body.id}/approve`);
      assert.equal(decided.body.domain, 'wiki.example.org');
      const grants = await server.services.db.kysely
        .selectFrom('approval_grant')
        .selectAll()
        .where('mapping_id', '=', mappingId)
        .execute();
      assert.deepEqual(grants.map((g) => [g.type, g.target ?? g.domain, g.kind]).sort(), [
        ['app_access', '/usr/bin/minecraft', 'persistent'],
        ['domain_unblock', 'wiki.example.org', 'once'],
      ]);
      for (const body of [
        { type: 'site_signup', linux_username: 'kid', details: {} },
        { type: 'domain_unblock', linux_username: 'kid', details: { domain: 'not a domain' } },
        { type: 'app_access', linux_username: 'kid', details: {} },
        { type: 'time_extension', linux_username: 'kid', details: { minutes: 0 } },
        { type: 'time_extension', linux_username: 'nobody', details: {} },
      ]) {
        assert.equal((await ask(body)).status, 400, JSON.stringify(body));
      }
      const types = (await home.client.get('/api/approvals')).body.items.map((a: { type: string }) => a.type);
      for (const t of ['time_extension', 'app_access', 'domain_unblock']) assert.ok(types.includes(t), t);
    });

    test('grants are listed, added and revoked per mapping; members need can_manage_policies', async () => {
      const { mappingId } = await pairedAgent();
      const made = await home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
        domain: 'Docs.Example',
        kind: 'persistent',
      });
      assert.equal(made.status, 201);
      assert.equal(made.body.domain, 'docs.example');
      assert.equal(made.body.expires_at, null);
      assert.equal(
        (
          await home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
            domain: 'bad domain',
            kind: 'once',
          })
        ).status,
        400,
      );
      assert.equal(
        (
          await home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
            domain: 'x.example',
            kind: 'forever',
          })
        ).status,
        400,
      );
      const viewer = await addParent(server, home, 'member', [
        { managed_user_id: childId, can_view: true, can_manage_policies: false },
      ]);
      assert.equal((await viewer.get(`/api/mappings/${mappingId}/approval-grants`)).status, 200);
      assert.equal(
        (
          await viewer.post(`/api/mappings/${mappingId}/approval-grants`, {
            domain: 'x.example',
            kind: 'once',
          })
        ).status,
        403,
      );
      assert.equal(
        (
          await viewer.post(`/api/mappings/${mappingId}/approval-settings`, {
            enforce_signup_approvals: true,
          })
        ).status,
        403,
      );
      assert.equal(
        (await viewer.delete(`/api/mappings/${mappingId}/approval-grants/${made.body.id}`)).status,
        403,
      );
      const removed = await home.client.delete(`/api/mappings/${mappingId}/approval-grants/${made.body.id}`);
      assert.deepEqual(removed.body, { id: made.body.id, deleted: true });
      assert.equal(
        (await home.client.delete(`/api/mappings/${mappingId}/approval-grants/${made.body.id}`)).status,
        404,
      );
      assert.equal((await home.client.get('/api/mappings/no-such-mapping/approval-settings')).status, 404);
      assert.equal(
        (await new Client(server.url).get(`/api/mappings/${mappingId}/approval-grants`)).status,
        401,
      );
    });
  });
}
