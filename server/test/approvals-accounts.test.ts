import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { SimAgent } from '../../bench/src/simulator.js';
import { approvalsSuite } from './approvals-fixture.js';
import {
  addParent,
  createHousehold,
  describeWithServer,
  enrollmentToken,
  startTestServer,
} from './helpers.js';

describeWithServer('logins and online accounts', { household: 'Sign-up home' }, (suite) => {
  const ctx = approvalsSuite(suite);

  test('a password sent with a login is dropped unread: not in the database file, not in the logs', async () => {
    const secret = `Pa55-${Math.random().toString(36).slice(2)}-never-keep-me`;
    const { agent } = await ctx.pairedAgent();
    const res = await ctx.bearer(agent.secureToken, 'POST', '/api/registration/log-login', {
      domain: 'mail.example.org',
      username: 'kit@example.org',
      linux_username: 'kid',
      password: secret,
      passwd: secret,
      user_password: secret,
    });
    assert.equal(res.status, 200);
    assert.equal(JSON.stringify(res.body).includes(secret), false);
    if (ctx.db.name === 'sqlite') {
      const dir = path.dirname(path.join(ctx.server.dataDir, 'hearth.db'));
      for (const file of readdirSync(dir).filter((f) => f.startsWith('hearth.db'))) {
        assert.equal(readFileSync(path.join(dir, file)).includes(secret), false, file);
      }
    } else {
      const tables = ['user_online_account', 'approval_request', 'alert', 'agent_device'] as const;
      for (const table of tables) {
        const rows = await ctx.server.services.db.kysely.selectFrom(table).selectAll().execute();
        assert.equal(JSON.stringify(rows).includes(secret), false, table);
      }
    }
  });

  test('with debug logging on, the password appears in no log line', async () => {
    const logFile = path.join(ctx.server.dataDir, 'debug.log');
    const logged = await startTestServer(
      ctx.db,
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
      ctx.agents.push(a);
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
    const other = (await ctx.home.client.post('/api/user/create', { name: 'Lou' })).body.id;
    const kit = await ctx.pairedAgent();
    const lou = await ctx.pairedAgent({}, other, 'lou');
    const log = (a: SimAgent, account: string, domain: string, username: string) =>
      ctx.bearer(a.secureToken, 'POST', '/api/registration/log-login', {
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

    const all = (await ctx.home.client.get('/api/online-accounts?sort=domain&order=asc')).body.items.map(
      (a: { domain: string }) => a.domain,
    );
    assert.deepEqual(all, [...all].sort());
    assert.ok(all.includes('zebra.example') && all.includes('mango.example'));
    const search = (await ctx.home.client.get('/api/online-accounts?q=KIT-A')).body.items;
    assert.deepEqual(
      search.map((a: { username: string }) => a.username),
      ['kit-a@example.org'],
    );
    const byDomain = (await ctx.home.client.get('/api/online-accounts?q=mango')).body.items;
    assert.equal(byDomain.length, 1);
    assert.equal(byDomain[0].managed_user_name, 'Lou');
    const lous = (await ctx.home.client.get(`/api/online-accounts?managed_user_id=${other}`)).body.items;
    assert.ok(lous.every((a: { managed_user_id: string }) => a.managed_user_id === other));
    assert.equal((await ctx.home.client.get('/api/online-accounts?sort=password')).status, 400);
    const member = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: other, can_view: true, can_manage_policies: false },
    ]);
    const seen = (await member.get('/api/online-accounts')).body.items;
    assert.ok(seen.length > 0 && seen.every((a: { managed_user_id: string }) => a.managed_user_id === other));
    assert.equal((await member.get(`/api/online-accounts?managed_user_id=${ctx.childId}`)).status, 404);
  });
});
