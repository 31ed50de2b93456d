import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimAgent } from '../../bench/src/simulator.js';
import { approvalsSuite } from './approvals-fixture.js';
import { describeWithServer, SseReader } from './helpers.js';

describeWithServer('sign-up approvals', { household: 'Sign-up home' }, (suite) => {
  const ctx = approvalsSuite(suite);

  test('the full state table: none → pending → approved once → consumed → denied → approved always', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    const stream = await SseReader.open(
      `${ctx.server.url}/api/dashboard/events`,
      ctx.home.client.cookie ?? '',
    );
    try {
      assert.deepEqual(
        await ctx.check(agent, 'Games.Example.com'),
        { allowed: true, pending: false, domain: 'games.example.com' },
        'not enforced yet',
      );
      const settings = await ctx.home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      assert.deepEqual(settings.body, {
        mapping_id: mappingId,
        enforce_signup_approvals: true,
        signup_supported: true,
        screenshot_interval_minutes: 0,
      });
      // Takes effect on the very next check, with the agent still connected.
      assert.deepEqual(await ctx.check(agent, 'games.example.com'), {
        allowed: false,
        pending: false,
        domain: 'games.example.com',
      });

      const created = await ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
        domain: 'games.example.com',
        linux_username: 'kid',
        url: 'https://games.example.com/signup',
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'pending');
      const again = await ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
        domain: 'GAMES.example.com.',
        linux_username: 'kid',
        url: 'https://games.example.com/signup',
      });
      assert.deepEqual([again.status, again.body], [200, { id: created.body.id, status: 'pending' }]);
      assert.deepEqual(await ctx.check(agent, 'games.example.com'), {
        allowed: false,
        pending: true,
        domain: 'games.example.com',
      });
      await stream.next((e) => e.event === 'approval_created' && e.data.id === created.body.id);
      assert.equal((await ctx.home.client.get('/api/dashboard')).body.counts.pending_approvals, 1);

      const listed = (await ctx.home.client.get('/api/approvals?status=pending&type=site_signup')).body
        .items[0];
      assert.equal(listed.id, created.body.id);
      assert.equal(listed.managed_user_name, 'Kit');
      // One request per site (registrable domain): games.example.com asks for example.com.
      assert.equal(listed.domain, 'example.com');
      assert.equal(listed.url, 'https://games.example.com/signup');
      assert.equal(listed.mapping_id, mappingId);

      const approved = await ctx.home.client.post(`/api/approvals/${created.body.id}/approve`);
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'approved');
      assert.equal(approved.body.grant, 'once');
      assert.ok(approved.body.decided_at);
      await stream.next((e) => e.event === 'approval_decided' && e.data.id === created.body.id);
      assert.equal((await ctx.home.client.get('/api/dashboard')).body.counts.pending_approvals, 0);
      assert.equal((await ctx.home.client.post(`/api/approvals/${created.body.id}/approve`)).status, 409);
      assert.equal((await ctx.home.client.post(`/api/approvals/${created.body.id}/deny`)).status, 409);

      const grants = (await ctx.home.client.get(`/api/mappings/${mappingId}/approval-grants`)).body.items;
      assert.equal(grants.length, 1);
      assert.equal(grants[0].kind, 'once');
      assert.equal(grants[0].source_request_id, created.body.id);
      assert.ok(Date.parse(grants[0].expires_at) - Date.now() > 23 * 3600_000);

      assert.equal((await ctx.check(agent, 'games.example.com')).allowed, true);
      assert.equal(
        (await ctx.check(agent, 'eu.games.example.com')).allowed,
        true,
        'a grant covers subdomains',
      );
      assert.equal((await ctx.check(agent, 'example.com')).allowed, true, 'and the site itself');
      assert.equal((await ctx.check(agent, 'example.net')).allowed, false, 'but not another site');
      assert.deepEqual(
        (
          await ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
            domain: 'games.example.com',
            linux_username: 'kid',
          })
        ).body,
        { status: 'approved' },
      );

      // The first login on the domain uses the one-time approval up.
      const login = await ctx.bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
        domain: 'games.example.com',
        username: 'kit@example.org',
        linux_username: 'kid',
      });
      assert.equal(login.status, 200);
      assert.deepEqual(await ctx.check(agent, 'games.example.com'), {
        allowed: false,
        pending: false,
        domain: 'games.example.com',
      });
      assert.ok(
        (await ctx.home.client.get(`/api/mappings/${mappingId}/approval-grants`)).body.items[0].consumed_at,
      );

      const second = await ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
        domain: 'games.example.com',
        linux_username: 'kid',
      });
      assert.equal(second.status, 201);
      assert.notEqual(second.body.id, created.body.id);
      const denied = await ctx.home.client.post(`/api/approvals/${second.body.id}/deny`);
      assert.equal(denied.body.status, 'denied');
      assert.deepEqual(await ctx.check(agent, 'games.example.com'), {
        allowed: false,
        pending: false,
        domain: 'games.example.com',
      });

      const third = await ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
        domain: 'games.example.com',
        linux_username: 'kid',
      });
      assert.equal(
        (await ctx.home.client.post(`/api/approvals/${third.body.id}/approve`, { grant: 'persistent' })).body
          .grant,
        'persistent',
      );
      await ctx.bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
        domain: 'games.example.com',
        username: 'kit@example.org',
        linux_username: 'kid',
      });
      assert.equal(
        (await ctx.check(agent, 'games.example.com')).allowed,
        true,
        'a persistent grant survives logins',
      );

      // Toggle off and on, no reconnect.
      await ctx.home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
        enforce_signup_approvals: false,
      });
      assert.equal((await ctx.check(agent, 'other.example.net')).allowed, true);
      await ctx.home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      assert.equal((await ctx.check(agent, 'other.example.net')).allowed, false);
    } finally {
      stream.close();
    }
  });

  test('sign-ups on www.example.com and example.com are one request; foo.co.uk and bar.co.uk are two', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    await ctx.home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    const ask = (domain: string, url?: string) =>
      ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
        domain,
        linux_username: 'kid',
        ...(url ? { url } : {}),
      });

    const first = await ask('example.com', 'https://example.com/register');
    assert.equal(first.status, 201);
    const www = await ask('www.example.com', 'https://www.example.com/signup');
    assert.deepEqual([www.status, www.body], [200, { id: first.body.id, status: 'pending' }]);
    assert.deepEqual(await ctx.check(agent, 'www.example.com'), {
      allowed: false,
      pending: true,
      domain: 'www.example.com',
    });
    const pending = (await ctx.home.client.get('/api/approvals?status=pending&type=site_signup')).body.items;
    assert.deepEqual(
      pending
        .filter((a: { mapping_id: string }) => a.mapping_id === mappingId)
        .map((a: { id: string }) => a.id),
      [first.body.id],
    );

    // Two sites under one public suffix stay apart, and so do two sites under a private one.
    const foo = await ask('foo.co.uk');
    const bar = await ask('bar.co.uk');
    assert.deepEqual([foo.status, bar.status], [201, 201]);
    assert.notEqual(foo.body.id, bar.body.id);
    assert.equal((await ask('www.foo.co.uk')).body.id, foo.body.id);
    const alice = await ask('alice.github.io');
    const bob = await ask('bob.github.io');
    assert.deepEqual([alice.status, bob.status], [201, 201]);
    assert.notEqual(alice.body.id, bob.body.id);

    // Approving the one request allows the site and its subdomains, whichever the child was on.
    await ctx.home.client.post(`/api/approvals/${first.body.id}/approve`, { grant: 'persistent' });
    const grants = (await ctx.home.client.get(`/api/mappings/${mappingId}/approval-grants`)).body.items;
    assert.deepEqual(
      grants.map((g: { domain: string; kind: string }) => [g.domain, g.kind]),
      [['example.com', 'persistent']],
    );
    for (const domain of ['example.com', 'www.example.com', 'shop.example.com'])
      assert.equal((await ctx.check(agent, domain)).allowed, true, domain);
    assert.equal((await ctx.check(agent, 'foo.co.uk')).allowed, false);
    assert.equal((await ctx.check(agent, 'example.co.uk')).allowed, false);

    // A grant a parent adds by hand still covers just that name and what is under it.
    await ctx.home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
      domain: 'mail.bar.co.uk',
      kind: 'persistent',
    });
    assert.equal((await ctx.check(agent, 'eu.mail.bar.co.uk')).allowed, true);
    assert.equal((await ctx.check(agent, 'bar.co.uk')).allowed, false);
  });

  test('a one-time grant lapses after 24 hours', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    await ctx.home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    const grant = (
      await ctx.home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
        domain: 'comics.example',
        kind: 'once',
      })
    ).body;
    assert.equal((await ctx.check(agent, 'comics.example')).allowed, true);
    await ctx.server.services.db.kysely
      .updateTable('approval_grant')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', grant.id)
      .execute();
    // A day passes in the database only: what the server read into memory would long have expired.
    ctx.server.services.cache.clear();
    assert.equal((await ctx.check(agent, 'comics.example')).allowed, false);
  });

  test("an agent's next hello changes at once what its token may ask and how its device is listed", async () => {
    const { agent, mappingId } = await ctx.pairedAgent({ agentVersion: '0.56.0', hostname: 'old-pc' });
    await ctx.home.client.post(`/api/mappings/${mappingId}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    assert.equal((await ctx.check(agent, 'forum.example')).allowed, true, 'too old to enforce');
    const unknown = await ctx.bearer(
      agent.secureToken,
      'GET',
      '/api/registration/check?domain=forum.example&linux_username=newkid',
    );
    assert.equal(unknown.status, 400, 'an account the agent never reported');
    await agent.stop();

    const upgraded = new SimAgent({
      url: ctx.server.wsUrl,
      systemId: agent.systemId,
      secureToken: agent.secureToken,
      agentVersion: '0.57.0',
      hostname: 'new-pc',
      linuxUsers: [{ username: 'kid' }, { username: 'newkid' }],
    });
    ctx.agents.push(upgraded);
    assert.equal((await upgraded.connect()).success, true);
    assert.equal((await ctx.check(upgraded, 'forum.example')).allowed, false, 'the new version enforces');
    const added = await ctx.bearer(
      upgraded.secureToken,
      'GET',
      '/api/registration/check?domain=forum.example&linux_username=newkid',
    );
    assert.equal(added.status, 200, 'the newly reported account is known');
    const kit = (await ctx.home.client.get('/api/users')).body.items.find(
      (u: { id: string }) => u.id === ctx.childId,
    );
    const listed = kit.mappings.find((m: { system_id: string }) => m.system_id === agent.systemId);
    assert.equal(listed.hostname, 'new-pc');
  });

  test('not enforced for old agents, uncovered platforms and unmapped accounts', async () => {
    const old = await ctx.pairedAgent({ agentVersion: '0.56.9' });
    const settings = await ctx.home.client.post(`/api/mappings/${old.mappingId}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    assert.equal(settings.body.signup_supported, false);
    assert.equal((await ctx.check(old.agent, 'blocked.example')).allowed, true);
    const phone = await ctx.pairedAgent({ platform: 'android' });
    await ctx.home.client.post(`/api/mappings/${phone.mappingId}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    assert.equal(
      (await ctx.home.client.get(`/api/mappings/${phone.mappingId}/approval-settings`)).body.signup_supported,
      false,
    );
    assert.equal((await ctx.check(phone.agent, 'blocked.example')).allowed, true);
    const linux = await ctx.pairedAgent();
    await ctx.home.client.post(`/api/mappings/${linux.mappingId}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    assert.equal(
      (await ctx.check(linux.agent, 'blocked.example', 'guest')).allowed,
      true,
      'an account of no child',
    );
    assert.equal((await ctx.check(linux.agent, 'blocked.example', 'kid')).allowed, false);
  });

  test('bad domains, foreign accounts and bad credentials are refused', async () => {
    const { agent } = await ctx.pairedAgent();
    for (const domain of [
      '',
      'exa mple.com',
      'a..b',
      `${'x'.repeat(64)}.com`,
      `${'abc.'.repeat(70)}com`,
      '-x.com',
    ]) {
      const res = await ctx.bearer(
        agent.secureToken,
        'GET',
        `/api/registration/check?domain=${encodeURIComponent(domain)}&linux_username=kid`,
      );
      assert.equal(res.status, 400, JSON.stringify(domain));
      assert.equal(res.body.error.code, 'invalid_request');
    }
    assert.equal((await ctx.check(agent, '192.168.1.5')).domain, '192.168.1.5');
    assert.equal(
      (
        await ctx.bearer(
          agent.secureToken,
          'GET',
          '/api/registration/check?domain=a.com&linux_username=stranger',
        )
      ).status,
      400,
    );
    assert.equal(
      (
        await ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
          domain: 'a.com',
          linux_username: 'kid',
          url: 'javascript:alert(1)',
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await ctx.bearer(agent.secureToken, 'POST', '/api/registration/request', {
          domain: 'a.com',
          linux_username: 'kid',
          extra: 1,
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await ctx.bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
          domain: 'a.com',
          linux_username: 'kid',
        })
      ).status,
      400,
    );
    assert.equal(
      (await ctx.bearer(undefined, 'GET', '/api/registration/check?domain=a.com&linux_username=kid')).status,
      401,
    );
    assert.equal(
      (
        await ctx.bearer('0'.repeat(64), 'POST', '/api/registration/log-login', {
          domain: 'a.com',
          username: 'x',
          linux_username: 'kid',
        })
      ).body.error.code,
      'invalid_token',
    );
  });
});
