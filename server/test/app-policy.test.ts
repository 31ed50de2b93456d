import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Frame, SimAgent } from '../../bench/src/simulator.js';
import { addParent, Client, describeWithServer, enrollmentToken } from './helpers.js';
import { inventorySuite } from './inventory-fixture.js';

describeWithServer('application policy', { household: 'Apps home' }, (suite) => {
  const ctx = inventorySuite(suite);

  test('app policy: versioned rules pushed to each device, sync state per device, validation', async () => {
    const child = (await ctx.home.client.post('/api/user/create', { name: 'Policy' })).body.id;
    const online = new SimAgent({
      url: ctx.server.wsUrl,
      enrollmentToken: await enrollmentToken(ctx.home),
      linuxUsers: [{ username: 'kid' }],
    });
    const offline = new SimAgent({
      url: ctx.server.wsUrl,
      enrollmentToken: await enrollmentToken(ctx.home),
      linuxUsers: [{ username: 'kid' }],
    });
    ctx.agents.push(online, offline);
    for (const a of [online, offline]) {
      await a.connect();
      const approved = a.waitFor('pairing_approved');
      await ctx.home.client.post(`/api/device/approve/${a.systemId}`);
      await approved;
      await ctx.home.client.post(`/managed-users/${child}/mappings/add`, {
        system_id: a.systemId,
        linux_username: 'kid',
      });
    }
    await offline.stop();
    await new Promise((r) => setTimeout(r, 50));
    const empty = (await ctx.home.client.get(`/api/managed-users/${child}/app-policy`)).body;
    assert.equal(empty.version, 0);
    assert.deepEqual(empty.rules, []);
    const rules = [
      { identifier: '/usr/bin/steam', match_type: 'executable', action: 'block' },
      { identifier: '/usr/bin/minecraft', match_type: 'executable', action: 'limit', daily_minutes: 60 },
      { identifier: '/android/package/com.duolingo', match_type: 'package', action: 'allow' },
    ];
    const pushed = online.waitFor((f) => f.type === 'command_request' && f.command === 'sync_app_policy');
    const put = await ctx.home.client.request('PUT', `/api/managed-users/${child}/app-policy`, {
      json: { rules, version: 0 },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.version, 1);
    assert.deepEqual(put.body.rules, rules);
    const frame: Frame = await pushed;
    assert.deepEqual(frame.args, { managed_user_id: child, linux_username: 'kid', version: 1, rules });
    const status = Object.fromEntries(
      put.body.sync.map((s: { system_id: string; status: string }) => [s.system_id, s.status]),
    );
    assert.deepEqual(status, { [online.systemId]: 'synced', [offline.systemId]: 'pending' });

    const back = new SimAgent({
      url: ctx.server.wsUrl,
      systemId: offline.systemId,
      secureToken: offline.secureToken,
      linuxUsers: [{ username: 'kid' }],
    });
    ctx.agents.push(back);
    const delivered = back.waitFor((f) => f.type === 'command_request' && f.command === 'sync_app_policy');
    await back.connect();
    await delivered;
    let synced = '';
    for (let i = 0; i < 50 && synced !== 'synced'; i++) {
      const view = (await ctx.home.client.get(`/api/managed-users/${child}/app-policy`)).body;
      synced = view.sync.find((s: { system_id: string }) => s.system_id === offline.systemId).status;
      if (synced !== 'synced') await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(synced, 'synced');

    const stale = await ctx.home.client.request('PUT', `/api/managed-users/${child}/app-policy`, {
      json: { rules: [], version: 0 },
    });
    assert.equal(stale.status, 409);
    for (const bad of [
      [{ identifier: 'steam', match_type: 'executable', action: 'block' }],
      [{ identifier: '/usr/bin/x', match_type: 'package', action: 'block' }],
      [{ identifier: '/usr/bin/x', match_type: 'executable', action: 'limit' }],
      [{ identifier: '/usr/bin/x', match_type: 'executable', action: 'allow', daily_minutes: 5 }],
      [{ identifier: '/usr/bin/x', match_type: 'executable', action: 'ban' }],
      [
        { identifier: '/usr/bin/x', match_type: 'executable', action: 'allow' },
        { identifier: '/usr/bin/x', match_type: 'executable', action: 'block' },
      ],
    ]) {
      const res = await ctx.home.client.request('PUT', `/api/managed-users/${child}/app-policy`, {
        json: { rules: bad },
      });
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: child, can_view: true, can_manage_policies: false },
    ]);
    assert.equal((await viewer.get(`/api/managed-users/${child}/app-policy`)).status, 200);
    assert.equal(
      (await viewer.request('PUT', `/api/managed-users/${child}/app-policy`, { json: { rules: [] } })).status,
      403,
    );
    assert.equal(
      (await new Client(ctx.server.url).get(`/api/managed-users/${child}/app-policy`)).status,
      401,
    );
  });
});
