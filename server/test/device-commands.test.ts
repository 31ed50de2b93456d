import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SimAgent, type SimAgentOptions } from '../../bench/src/simulator.js';
import {
  addParent,
  createHousehold,
  describeWithServer,
  enrollmentToken,
  startTestServer,
  type TestServer,
  withAdmin,
} from './helpers.js';

describeWithServer('device commands and queue', { household: 'Commands home' }, (ctx) => {
  let token: string;
  const agents: SimAgent[] = [];
  const track = (a: SimAgent) => {
    agents.push(a);
    return a;
  };
  const pairedAgent = async (options: Partial<SimAgentOptions> = {}) => {
    const a = track(
      new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: token,
        linuxUsers: [{ username: 'ann' }],
        ...options,
      }),
    );
    await a.connect();
    const approved = a.waitFor('pairing_approved');
    await ctx.home.client.post(`/api/device/approve/${a.systemId}`, { display_name: 'Study PC' });
    await approved;
    return a;
  };
  /** The same device coming back on a new socket with its token. */
  const reconnect = (a: SimAgent, options: Partial<SimAgentOptions> = {}, url = ctx.server.wsUrl) =>
    track(
      new SimAgent({
        url,
        systemId: a.systemId,
        secureToken: a.secureToken,
        linuxUsers: [{ username: 'ann' }],
        ...options,
      }),
    );

  before(async () => {
    token = await enrollmentToken(ctx.home);
  });
  after(async () => {
    await Promise.all(agents.map((a) => a.stop()));
  });

  test("show overlay reaches an online agent with the child's tier, note and the device name", async () => {
    const child = (
      await ctx.home.client.post('/api/user/create', {
        name: 'Ann',
        overlay_age_tier: 'under8',
        overlay_parent_note: 'Dinner time!',
      })
    ).body;
    const a = await pairedAgent();
    await ctx.home.client.post(`/managed-users/${child.id}/mappings/add`, {
      system_id: a.systemId,
      linux_username: 'ann',
    });
    const command = a.waitFor('command_request');
    const res = await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, {
      action: 'show',
      reason: 'sleep',
      linux_username: 'ann',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { delivered: true, queued: false });
    const frame = await command;
    assert.equal(frame.command, 'show_overlay');
    assert.match(String(frame.request_id), /^[0-9a-f-]{36}$/);
    assert.deepEqual(frame.args, {
      reason: 'sleep',
      linux_username: 'ann',
      age_tier: 'under8',
      parent_note: 'Dinner time!',
      device_name: 'Study PC',
    });

    // An unmapped account gets the defaults.
    const other = a.waitFor('command_request');
    await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, {
      action: 'show',
      reason: 'locked',
      linux_username: 'guest',
    });
    assert.deepEqual((await other).args, {
      reason: 'locked',
      linux_username: 'guest',
      age_tier: 'eight12',
      parent_note: null,
      device_name: 'Study PC',
    });

    const dismiss = a.waitFor('command_request');
    assert.deepEqual(
      (
        await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, {
          action: 'dismiss',
          linux_username: 'ann',
        })
      ).body,
      { delivered: true, queued: false },
    );
    assert.deepEqual((await dismiss).args, { linux_username: 'ann' });
  });

  test("a parent's pause carries context paused to the agent, online or queued", async () => {
    const a = await pairedAgent();
    const command = a.waitFor('command_request');
    const res = await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, {
      action: 'show',
      reason: 'locked',
      context: 'paused',
      linux_username: 'ann',
    });
    assert.equal(res.status, 200);
    const frame = await command;
    assert.equal(frame.command, 'show_overlay');
    assert.equal((frame.args as Record<string, unknown>).reason, 'locked');
    assert.equal((frame.args as Record<string, unknown>).context, 'paused');

    // Offline: the queued command keeps its context and arrives when the device comes back.
    await a.stop();
    // Wait (bounded) until the server has seen the socket close.
    for (let i = 0; ; i++) {
      const device = await ctx.home.client.get(`/api/devices/${a.systemId}`);
      if (device.body.online === false) break;
      assert.ok(i < 200, 'the device never went offline');
      await new Promise((r) => setImmediate(r));
    }
    const queued = await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, {
      action: 'show',
      reason: 'locked',
      context: 'paused',
      linux_username: 'ann',
    });
    assert.deepEqual(queued.body, { delivered: false, queued: true });
    const back = reconnect(a);
    const later = back.waitFor('command_request');
    await back.connect();
    const delivered = await later;
    assert.equal(delivered.command, 'show_overlay');
    assert.equal((delivered.args as Record<string, unknown>).context, 'paused');

    // A context belongs to locked only, and only the known ones.
    for (const body of [
      { action: 'show', reason: 'sleep', context: 'paused', linux_username: 'ann' },
      { action: 'show', reason: 'locked', context: 'bedtime', linux_username: 'ann' },
    ]) {
      const bad = await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error.code, 'invalid_request');
    }
  });

  test('overlay bodies are validated', async () => {
    const a = await pairedAgent();
    for (const body of [
      { action: 'show', linux_username: 'ann' },
      { action: 'explode', reason: 'sleep', linux_username: 'ann' },
      { action: 'show', reason: 'bedtime', linux_username: 'ann' },
      { action: 'show', reason: 'sleep' },
      { action: 'show', reason: 'sleep', linux_username: 'ann', extra: true },
    ]) {
      const res = await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
    }
  });

  test('commands for an offline device wait in order, expire or coalesce, and arrive after authentication', async () => {
    const a = await pairedAgent();
    await a.stop();
    await new Promise((r) => setTimeout(r, 50));
    const sent = [
      await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, {
        action: 'show',
        reason: 'filtered',
        linux_username: 'ann',
      }),
      await ctx.home.client.post(`/api/devices/${a.systemId}/clear-clock-tamper`),
      await ctx.home.client.post(`/api/devices/${a.systemId}/overlay`, {
        action: 'dismiss',
        linux_username: 'ann',
      }),
    ];
    for (const res of sent) assert.deepEqual(res.body, { delivered: false, queued: true });
    // Policy pushes replace each other while queued.
    await ctx.server.services.queue.enqueue(a.systemId, 'sync_app_policy', { version: 1 });
    await ctx.server.services.queue.enqueue(a.systemId, 'sync_app_policy', { version: 2 });
    // An overlay command older than ten minutes is stale.
    await ctx.server.services.queue.enqueue(a.systemId, 'show_overlay', { reason: 'sleep' }, { ttlMs: 1 });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await ctx.server.services.queue.list(a.systemId)).length, 5);

    const back = reconnect(a);
    const received: { command: string; args: unknown }[] = [];
    back.on('frame', (f) => {
      if (f.type === 'command_request') received.push({ command: String(f.command), args: f.args });
    });
    await back.connect();
    for (let i = 0; i < 50 && received.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      received.map((r) => r.command),
      ['show_overlay', 'clear_clock_tamper', 'dismiss_overlay', 'sync_app_policy'],
    );
    assert.deepEqual(received[3]?.args, { version: 2 });
    for (let i = 0; i < 50 && (await ctx.server.services.queue.due(a.systemId)).length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      await ctx.server.services.queue.due(a.systemId),
      [],
      'answered commands leave the queue',
    );
    assert.equal(await ctx.server.services.queue.prune(), 1, 'the stale overlay command is pruned');
  });

  test('unlinking an account or removing its child lifts its pause, app, time and domain rules on the device, online or queued', async () => {
    const a = await pairedAgent();
    const received: { command: string; args: unknown }[] = [];
    const listen = (agent: SimAgent) =>
      agent.on('frame', (f) => {
        if (f.type === 'command_request') received.push({ command: String(f.command), args: f.args });
      });
    listen(a);
    const released = { managed_user_id: null, linux_username: 'ann', version: 0, rules: [] };
    const linuxOff = {
      block_software_install: false,
      block_removable_media: false,
      block_account_changes: false,
      block_power_actions: false,
      block_terminal: false,
      disable_bluetooth: false,
      block_incognito: false,
      block_other_extensions: false,
      allowed_extension_ids: [],
      youtube_restricted: false,
    };
    const openWeek = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
        d,
        { limit_minutes: null, windows: [] },
      ]),
    );
    const timezone = (await ctx.home.client.get('/api/session')).body.household.timezone;
    const openTime = (managedUserId: string | null) => ({
      managed_user_id: managedUserId,
      linux_username: 'ann',
      version: 0,
      timezone,
      days: openWeek,
      adjustments: {},
      paused_until: null,
    });
    const waitFor = async (count: number) => {
      for (let i = 0; i < 250 && received.length < count; i++) await new Promise((r) => setTimeout(r, 20));
    };
    const waitForRelease = async () => {
      await waitFor(5);
      assert.deepEqual(received, [
        { command: 'dismiss_overlay', args: { linux_username: 'ann' } },
        { command: 'sync_app_policy', args: released },
        { command: 'set_time_policy', args: openTime(null) },
        // The account's domain policy is now the empty one (version 0).
        {
          command: 'domain_policy_changed',
          args: { managed_user_id: null, linux_username: 'ann', version: 0 },
        },
        // And its device policy every rule off (version 0, DESIGN §12).
        {
          command: 'set_device_policy',
          args: { kind: 'linux', linux_username: 'ann', version: 0, policy: linuxOff },
        },
      ]);
      received.length = 0;
    };
    const link = async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Unlinked' })).body;
      const mapping = await ctx.home.client.post(`/managed-users/${child.id}/mappings/add`, {
        system_id: a.systemId,
        linux_username: 'ann',
      });
      assert.equal(mapping.status, 201);
      // A newly linked account hears its child's time rules (here the open week of a child never edited).
      await waitFor(1);
      assert.deepEqual(received, [{ command: 'set_time_policy', args: openTime(child.id) }]);
      received.length = 0;
      return { childId: child.id as string, mappingId: mapping.body.id as string };
    };

    // Online: the device hears it at once.
    const first = await link();
    assert.equal((await ctx.home.client.delete(`/api/mappings/${first.mappingId}`)).status, 200);
    await waitForRelease();

    // Offline: removing the child queues the same, and a newer push for the account replaced an older one.
    const second = await link();
    await a.stop();
    for (let i = 0; i < 100 && ctx.server.services.channel.isLocal(a.systemId); i++)
      await new Promise((r) => setTimeout(r, 20));
    await ctx.server.services.queue.enqueue(
      a.systemId,
      'sync_app_policy',
      { managed_user_id: second.childId, linux_username: 'ann', version: 3, rules: [] },
      { coalesceKey: 'sync_app_policy:ann' },
    );
    assert.equal((await ctx.home.client.delete(`/api/managed-users/${second.childId}`)).status, 200);
    const back = reconnect(a);
    listen(back);
    await back.connect();
    await waitForRelease();
  });

  test('at most 100 commands wait for one device', async () => {
    const a = await pairedAgent();
    await a.stop();
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 100; i++)
      await ctx.server.services.queue.enqueue(a.systemId, 'clear_clock_tamper', { i });
    const full = await ctx.home.client.post(`/api/devices/${a.systemId}/clear-clock-tamper`);
    assert.equal(full.status, 409);
    assert.equal(full.body.error.code, 'conflict');
  });

  test('an agent that never answers: the route waits 15 seconds, then keeps the command for later', {
    timeout: 30_000,
  }, async () => {
    const a = await pairedAgent({ respond: () => new Promise(() => {}) });
    const started = Date.now();
    const res = await ctx.home.client.post(`/api/devices/${a.systemId}/clear-clock-tamper`);
    assert.ok(Date.now() - started >= 14_500);
    assert.deepEqual(res.body, { delivered: false, queued: true });
    assert.equal((await ctx.server.services.queue.list(a.systemId)).length, 1);
  });

  test('permissions: members need can_manage_policies on a mapped child; unenroll needs owner or admin', async () => {
    const managed = (await ctx.home.client.post('/api/user/create', { name: 'Managed' })).body;
    const viewed = (await ctx.home.client.post('/api/user/create', { name: 'Viewed' })).body;
    const a = await pairedAgent({ linuxUsers: [{ username: 'm' }, { username: 'v' }] });
    const b = await pairedAgent({ linuxUsers: [{ username: 'v' }] });
    const hidden = await pairedAgent();
    await ctx.home.client.post(`/managed-users/${managed.id}/mappings/add`, {
      system_id: a.systemId,
      linux_username: 'm',
    });
    await ctx.home.client.post(`/managed-users/${viewed.id}/mappings/add`, {
      system_id: b.systemId,
      linux_username: 'v',
    });
    const member = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: managed.id, can_view: true, can_manage_policies: true },
      { managed_user_id: viewed.id, can_view: true, can_manage_policies: false },
    ]);
    const listed = (await member.get('/api/devices')).body.items
      .map((d: { system_id: string }) => d.system_id)
      .sort();
    assert.deepEqual(listed, [a.systemId, b.systemId].sort());
    assert.equal(
      (
        await member.post(`/api/devices/${a.systemId}/overlay`, {
          action: 'show',
          reason: 'sleep',
          linux_username: 'm',
        })
      ).status,
      200,
    );
    const otherChild = await member.post(`/api/devices/${a.systemId}/overlay`, {
      action: 'show',
      reason: 'sleep',
      linux_username: 'v',
    });
    assert.equal(otherChild.status, 403, 'a shared device: only the accounts of children they manage');
    const readOnly = await member.post(`/api/devices/${b.systemId}/overlay`, {
      action: 'show',
      reason: 'sleep',
      linux_username: 'v',
    });
    assert.equal(readOnly.status, 403);
    assert.equal(readOnly.body.error.code, 'forbidden');
    assert.equal((await member.post(`/api/devices/${b.systemId}/clear-clock-tamper`)).status, 403);
    assert.equal((await member.get(`/api/devices/${hidden.systemId}`)).status, 404);
    assert.equal((await member.post(`/api/devices/${hidden.systemId}/clear-clock-tamper`)).status, 404);
    const unenroll = await member.post(`/api/device/${a.systemId}/unenroll`);
    assert.equal(unenroll.status, 403);
    assert.equal((await member.get('/api/pairing/config')).status, 403);
  });

  test('bearer routes take only an approved device token, never the bootstrap token', async () => {
    const child = (
      await ctx.home.client.post('/api/user/create', {
        name: 'Bearer kid',
        overlay_age_tier: 'teen',
        overlay_parent_note: 'Homework first',
      })
    ).body;
    const a = await pairedAgent({ linuxUsers: [{ username: 'bk' }] });
    await ctx.home.client.post(`/managed-users/${child.id}/mappings/add`, {
      system_id: a.systemId,
      linux_username: 'bk',
    });
    const ok = await ctx.home.client.get('/api/agent/accounts', { authorization: `Bearer ${a.secureToken}` });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, {
      system_id: a.systemId,
      display_name: 'Study PC',
      accounts: [
        {
          linux_username: 'bk',
          managed_user_id: child.id,
          managed_user_name: 'Bearer kid',
          overlay_age_tier: 'teen',
          overlay_parent_note: 'Homework first',
        },
      ],
    });
    const anon = async (headers: Record<string, string>) => {
      const res = await fetch(`${ctx.server.url}/api/agent/accounts`, { headers });
      return { status: res.status, body: (await res.json()) as { error: { code: string } } };
    };
    assert.equal((await anon({})).body.error.code, 'invalid_token');
    assert.equal((await anon({ authorization: 'Bearer nope' })).body.error.code, 'invalid_token');
    assert.equal((await anon({ authorization: `Basic ${a.secureToken}` })).status, 401);
    const strict = await startTestServer(ctx.db, { HEARTH_AGENT_TOKEN: 'bootstrap-secret-1' });
    try {
      const res = await fetch(`${strict.url}/api/agent/accounts`, {
        headers: { authorization: 'Bearer bootstrap-secret-1' },
      });
      assert.equal(res.status, 401);
      assert.equal(
        ((await res.json()) as { error: { code: string } }).error.code,
        'bootstrap_token_rejected',
      );
    } finally {
      await strict.close();
    }
  });

  test('queued commands survive a server restart', async () => {
    const first = await startTestServer(ctx.db, {}, { keep: true });
    let second: TestServer | null = null;
    try {
      const owner = await createHousehold(first, 'Restart home');
      const enrol = await enrollmentToken(owner);
      const a = track(new SimAgent({ url: first.wsUrl, enrollmentToken: enrol }));
      await a.connect();
      const approved = a.waitFor('pairing_approved');
      await owner.client.post(`/api/device/approve/${a.systemId}`);
      await approved;
      await a.stop();
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(
        (
          await owner.client.post(`/api/devices/${a.systemId}/overlay`, {
            action: 'show',
            reason: 'locked',
            linux_username: 'kid',
          })
        ).body,
        {
          delivered: false,
          queued: true,
        },
      );
      await first.close();

      second = await startTestServer(ctx.db, first.storageEnv);
      const back = track(
        new SimAgent({ url: second.wsUrl, systemId: a.systemId, secureToken: a.secureToken }),
      );
      const command = back.waitFor('command_request');
      assert.equal((await back.connect()).type, 'auth_result');
      const frame = await command;
      assert.equal(frame.command, 'show_overlay');
      assert.equal((frame.args as { reason: string }).reason, 'locked');
    } finally {
      await second?.close();
      const url = first.storageEnv.HEARTH_DATABASE_URL;
      if (url && ctx.db.adminUrl) {
        const name = new URL(url).pathname.slice(1);
        await withAdmin(ctx.db.adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      }
    }
  });
});
