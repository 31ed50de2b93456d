import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { type Frame, SimAgent } from '../../bench/src/simulator.js';
import { sha256Hex } from '../src/platform/crypto.js';
import {
  createHousehold,
  describeWithServer,
  enrollmentToken,
  startTestServer,
  type TestServer,
  testDatabases,
  withAdmin,
  within,
} from './helpers.js';

/** A raw socket for the tests that misbehave on purpose. */
function rawSocket(
  url: string,
): Promise<{ ws: WebSocket; frames: Frame[]; closed: Promise<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const frames: Frame[] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => r({ code, reason: reason.toString() })),
    );
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    ws.on('open', () => resolve({ ws, frames, closed }));
    ws.on('error', reject);
  });
}

describeWithServer(
  'agent channel',
  { env: { HEARTH_AGENT_TOKEN: 'bootstrap-agent-token-123' }, household: 'Agent home' },
  (ctx) => {
    let token: string;
    const agents: SimAgent[] = [];
    const agent = (options: Partial<ConstructorParameters<typeof SimAgent>[0]> = {}) => {
      const a = new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: token,
        linuxUsers: [{ username: 'ann' }],
        ...options,
      });
      agents.push(a);
      return a;
    };
    /** Enrolls a new agent and approves it; returns it authenticated. */
    const pairedAgent = async (options: Partial<ConstructorParameters<typeof SimAgent>[0]> = {}) => {
      const a = agent(options);
      await a.connect();
      const approved = a.waitFor('pairing_approved');
      assert.equal((await ctx.home.client.post(`/api/device/approve/${a.systemId}`)).status, 200);
      await approved;
      return a;
    };

    before(async () => {
      token = await enrollmentToken(ctx.home);
    });
    after(async () => {
      await Promise.all(agents.map((a) => a.stop()));
    });

    test('enroll → pending (held open, listed online) → approve → pairing_approved with a hex token → authenticate', async () => {
      const a = agent({
        hostname: 'den-pc',
        linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'bob' }],
      });
      const first = await a.connect();
      assert.deepEqual(first, { type: 'pairing_status', status: 'pending' });

      const pending = (await ctx.home.client.get('/api/devices/pending')).body.items;
      const listed = pending.find((d: { system_id: string }) => d.system_id === a.systemId);
      assert.ok(listed, 'pending device listed');
      assert.equal(listed.status, 'pending');
      assert.equal(listed.online, true);
      assert.equal(listed.hostname, 'den-pc');
      assert.equal(listed.platform, 'linux');
      assert.equal(listed.agent_version, '0.57.0');
      assert.deepEqual(listed.linux_users, [{ username: 'ann', display_name: 'Ann' }, { username: 'bob' }]);

      const approvedFrame = a.waitFor('pairing_approved');
      const res = await ctx.home.client.post(`/api/device/approve/${a.systemId}`, {
        display_name: "Ann's laptop",
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { system_id: a.systemId, status: 'approved' });
      const frame = await approvedFrame;
      assert.equal(frame.system_id, a.systemId);
      assert.match(String(frame.secure_token), /^[0-9a-f]{64}$/);
      const stored = await ctx.server.services.db.kysely
        .selectFrom('agent_device')
        .select('secure_token_hash')
        .where('system_id', '=', a.systemId)
        .executeTakeFirstOrThrow();
      assert.equal(
        stored.secure_token_hash,
        sha256Hex(String(frame.secure_token)),
        'only the SHA-256 is stored',
      );

      const device = (await ctx.home.client.get(`/api/devices/${a.systemId}`)).body;
      assert.equal(device.status, 'approved');
      assert.equal(device.display_name, "Ann's laptop");
      assert.equal(device.online, true);
      assert.equal(
        (await ctx.home.client.get('/api/devices/pending')).body.items.some(
          (d: { system_id: string }) => d.system_id === a.systemId,
        ),
        false,
      );

      // Reconnect with the token: authenticated, and what the hello says is kept.
      await a.stop();
      const again = new SimAgent({
        url: ctx.server.wsUrl,
        systemId: a.systemId,
        secureToken: a.secureToken,
        hostname: 'den-pc-2',
        agentVersion: '0.58.0',
        linuxUsers: [{ username: 'ann' }],
      });
      agents.push(again);
      assert.deepEqual(await again.connect(), { type: 'auth_result', success: true, system_id: a.systemId });
      const updated = (await ctx.home.client.get(`/api/devices/${a.systemId}`)).body;
      assert.equal(updated.hostname, 'den-pc-2');
      assert.equal(updated.agent_version, '0.58.0');
      assert.deepEqual(updated.linux_users, [{ username: 'ann' }]);
      assert.ok(updated.last_seen_at);
      await again.stop();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await ctx.home.client.get(`/api/devices/${a.systemId}`)).body.online, false);
    });

    test('approval while the agent is away: the token is issued when it next says hello', async () => {
      const a = agent();
      await a.connect();
      await a.stop();
      assert.equal((await ctx.home.client.post(`/api/device/approve/${a.systemId}`)).status, 200);
      const frame = await a.connect();
      assert.equal(frame.type, 'pairing_approved');
      assert.equal(a.state, 'authenticated');
    });

    test('the bootstrap HEARTH_AGENT_TOKEN enrolls into the first household', async () => {
      const a = agent({ enrollmentToken: 'bootstrap-agent-token-123' });
      assert.deepEqual(await a.connect(), { type: 'pairing_status', status: 'pending' });
      assert.ok(
        (await ctx.home.client.get('/api/devices/pending')).body.items.some(
          (d: { system_id: string }) => d.system_id === a.systemId,
        ),
      );
    });

    test('reject → pairing_status rejected and close 4403; a rejected device stays out', async () => {
      const a = agent();
      await a.connect();
      const closed = a.waitForClose();
      const rejected = a.waitFor((f) => f.type === 'pairing_status' && f.status === 'rejected');
      const res = await ctx.home.client.post(`/api/device/reject/${a.systemId}`);
      assert.deepEqual(res.body, { system_id: a.systemId, status: 'rejected' });
      await rejected;
      assert.equal((await closed).code, 4403);
      const retry = await a.connect();
      assert.deepEqual(retry, { type: 'pairing_status', status: 'rejected' });
      assert.equal((await a.waitForClose()).code, 4403);
      assert.equal((await ctx.home.client.post(`/api/device/approve/${a.systemId}`)).status, 409);
      assert.equal((await ctx.home.client.post(`/api/device/reject/${a.systemId}`)).status, 409);
    });

    test('unenroll sends unenroll, closes 4403, revokes the token; re-enrollment asks again', async () => {
      const a = await pairedAgent();
      const oldToken = a.secureToken;
      const bearer = { authorization: `Bearer ${oldToken}` };
      assert.equal((await ctx.home.client.get('/api/agent/accounts', bearer)).status, 200);
      const command = a.waitFor((f) => f.type === 'command_request' && f.command === 'unenroll');
      const closed = a.waitForClose();
      const res = await ctx.home.client.post(`/api/device/${a.systemId}/unenroll`);
      assert.deepEqual(res.body, { system_id: a.systemId, status: 'unenrolled' });
      await command;
      assert.equal((await closed).code, 4403);
      assert.equal(
        (await ctx.home.client.get('/api/agent/accounts', bearer)).body.error.code,
        'invalid_token',
      );
      assert.equal((await ctx.home.client.post(`/api/device/${a.systemId}/unenroll`)).status, 409);

      const withOld = new SimAgent({ url: ctx.server.wsUrl, systemId: a.systemId, secureToken: oldToken });
      agents.push(withOld);
      const answer = await withOld.connect();
      assert.equal(answer.type, 'auth_result');
      assert.equal((answer as Frame).success, false);
      assert.equal((await withOld.waitForClose()).code, 4403);

      const reenrol = new SimAgent({ url: ctx.server.wsUrl, systemId: a.systemId, enrollmentToken: token });
      agents.push(reenrol);
      assert.deepEqual(await reenrol.connect(), { type: 'pairing_status', status: 'pending' });
    });

    test('an offline device hears its queued unenroll when it comes back with its old token', async () => {
      const a = await pairedAgent();
      await a.stop();
      await ctx.home.client.post(`/api/device/${a.systemId}/unenroll`);
      const back = new SimAgent({ url: ctx.server.wsUrl, systemId: a.systemId, secureToken: a.secureToken });
      agents.push(back);
      const unenroll = back.waitFor((f) => f.type === 'command_request' && f.command === 'unenroll');
      await back.connect();
      await unenroll;
      assert.equal((await back.waitForClose()).code, 4403);
      assert.deepEqual(await ctx.server.services.queue.list(a.systemId), []);
    });

    test('close codes: bad JSON, non-hello first frame, invalid hello, wrong token, no proof → 4400/4401', async () => {
      const cases: [string, string | Buffer, number][] = [
        ['malformed JSON', '{"type": "hello",', 4400],
        ['array frame', '[1,2]', 4400],
        ['not hello first', JSON.stringify({ type: 'usage_report' }), 4400],
        ['invalid hello', JSON.stringify({ type: 'hello', system_id: 'nope' }), 4400],
        ['binary frame', Buffer.from([1, 2, 3]), 4400],
        [
          'unknown secure token',
          JSON.stringify({
            type: 'hello',
            system_id: crypto.randomUUID(),
            hostname: 'h',
            platform: 'linux',
            agent_version: '0.57.0',
            linux_users: [],
            secure_token: 'f'.repeat(64),
          }),
          4401,
        ],
        [
          'wrong enrollment token',
          JSON.stringify({
            type: 'hello',
            system_id: crypto.randomUUID(),
            hostname: 'h',
            platform: 'linux',
            agent_version: '0.57.0',
            linux_users: [],
            enrollment_token: 'guess',
          }),
          4401,
        ],
        [
          'no proof at all',
          JSON.stringify({
            type: 'hello',
            system_id: crypto.randomUUID(),
            hostname: 'h',
            platform: 'linux',
            agent_version: '0.57.0',
            linux_users: [],
          }),
          4401,
        ],
      ];
      for (const [label, frame, code] of cases) {
        const { ws, closed } = await rawSocket(ctx.server.wsUrl);
        ws.send(frame);
        assert.equal((await closed).code, code, label);
      }
      // A wrong token for a real device is refused the same way.
      const a = await pairedAgent();
      await a.stop();
      const impostor = new SimAgent({
        url: ctx.server.wsUrl,
        systemId: a.systemId,
        secureToken: '0'.repeat(64),
      });
      agents.push(impostor);
      assert.deepEqual(await impostor.connect(), {
        type: 'auth_result',
        success: false,
        error: 'invalid_token',
      });
      assert.equal((await impostor.waitForClose()).code, 4401);
    });

    test('an oversize frame closes 1009; unknown types and repeated hellos get error frames and the socket stays', async () => {
      const big = await rawSocket(ctx.server.wsUrl);
      big.ws.send('x'.repeat(1024 * 1024 + 1));
      assert.equal((await big.closed).code, 1009);

      const a = await pairedAgent();
      a.send({ type: 'teleport' });
      const err = await a.waitFor('error');
      assert.equal(err.code, 'unknown_type');
      a.send(a.hello());
      assert.equal((await a.waitFor('error')).code, 'duplicate_hello');
      a.send({ type: 'usage_report', linux_username: 'ann', date: '2026-11-22', seconds_used: 'lots' });
      assert.equal((await a.waitFor('error')).code, 'invalid_message');
      assert.equal(a.state, 'authenticated');
      assert.equal(a.socket?.readyState, WebSocket.OPEN);
    });

    test('a socket that never says hello is closed 4408 after 10 seconds', { timeout: 20_000 }, async () => {
      const { closed } = await rawSocket(ctx.server.wsUrl);
      const started = Date.now();
      assert.equal((await closed).code, 4408);
      assert.ok(Date.now() - started >= 9_000);
    });

    test('a flood of hellos on many sockets leaves other agents served', async () => {
      const a = await pairedAgent();
      const flood = await Promise.all(Array.from({ length: 50 }, () => rawSocket(ctx.server.wsUrl)));
      for (const { ws } of flood)
        for (let i = 0; i < 5; i++) ws.send(JSON.stringify({ type: 'hello', system_id: 'bad' }));
      await Promise.all(flood.map((f) => f.closed));
      const command = a.waitFor('command_request');
      const res = await ctx.home.client.post(`/api/devices/${a.systemId}/clear-clock-tamper`);
      assert.deepEqual(res.body, { delivered: true, queued: false });
      assert.equal((await command).command, 'clear_clock_tamper');
    });

    test('usage reports from the agent reach the child usage snapshot', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Usage kid' })).body;
      const a = await pairedAgent({ linuxUsers: [{ username: 'uk' }] });
      await ctx.home.client.post(`/managed-users/${child.id}/mappings/add`, {
        system_id: a.systemId,
        linux_username: 'uk',
      });
      const today = new Date().toISOString().slice(0, 10);
      a.send({ type: 'usage_report', linux_username: 'uk', date: today, seconds_used: 900 });
      a.send({ type: 'usage_report', linux_username: 'uk', date: today, seconds_used: 1500 });
      a.send({ type: 'usage_report', linux_username: 'not-advertised', date: today, seconds_used: 50 });
      assert.equal((await a.waitFor('error')).code, 'unknown_account');
      const usage = (await ctx.home.client.get(`/api/user/${child.id}/usage`)).body;
      assert.equal(usage.used_seconds, 1500);
      assert.equal(usage.devices[0].online, true, 'the device is online while connected');
      await a.stop();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await ctx.home.client.get(`/api/user/${child.id}/usage`)).body.devices[0].online, false);
    });
  },
);

for (const db of testDatabases()) {
  describe(`agent liveness and reconnection (${db.name})`, () => {
    test('pings keep a live agent connected; an agent that stops answering is dropped and shown offline', async () => {
      const server = await startTestServer(
        db,
        {},
        { timings: { helloMs: 10_000, pingMs: 100, silenceMs: 500, sweepMs: 50 } },
      );
      const agents: SimAgent[] = [];
      try {
        const owner = await createHousehold(server, 'Liveness');
        const token = await enrollmentToken(owner);
        const pair = async () => {
          const a = new SimAgent({ url: server.wsUrl, enrollmentToken: token });
          agents.push(a);
          await a.connect();
          const approved = a.waitFor('pairing_approved');
          await owner.client.post(`/api/device/approve/${a.systemId}`);
          await approved;
          return a;
        };
        const alive = await pair();
        const silent = await pair();
        // A frozen peer: its socket stops reading, so the server's pings go unanswered.
        (silent.socket as unknown as { _socket: { pause(): void } })._socket.pause();
        await new Promise((r) => setTimeout(r, 1200));
        assert.equal(alive.state, 'authenticated');
        assert.equal((await owner.client.get(`/api/devices/${alive.systemId}`)).body.online, true);
        assert.equal((await owner.client.get(`/api/devices/${silent.systemId}`)).body.online, false);
        assert.equal(server.services.channel.isLocal(silent.systemId), false);
      } finally {
        await Promise.all(agents.map((a) => a.stop()));
        await server.close();
      }
    });

    test('an agent that connects while the server is closing is turned away, and the close ends', async () => {
      const server = await startTestServer(db);
      let late: Awaited<ReturnType<typeof rawSocket>> | null = null;
      try {
        // The channel closes first and the listener a moment later; a reconnecting agent can land between.
        await server.services.channel.close();
        late = await rawSocket(server.wsUrl);
        const answer = await within(late.closed, 60_000);
        assert.notEqual(answer, 'timed out', 'a socket accepted after the channel closed stays open');
        assert.equal(answer !== 'timed out' && answer.code, 1001);
      } finally {
        // Without the fix the held socket would hold the server's close for ever; end it from this side.
        late?.ws.terminate();
        await server.close();
      }
    });

    test('the simulator reconnects with back-off after a server restart and authenticates again', async () => {
      const first = await startTestServer(db, {}, { keep: true });
      let second: TestServer | null = null;
      const owner = await createHousehold(first, 'Reconnect');
      const a = new SimAgent({
        url: first.wsUrl,
        enrollmentToken: await enrollmentToken(owner),
        reconnect: true,
        backoffMs: { base: 50, max: 400 },
      });
      try {
        await a.connect();
        const approved = a.waitFor('pairing_approved');
        await owner.client.post(`/api/device/approve/${a.systemId}`);
        await approved;
        const port = new URL(first.url).port;
        await first.close();
        second = await startTestServer(db, { ...first.storageEnv, HEARTH_PORT: port });
        const back = await a.waitFor((f) => f.type === 'auth_result' && f.success === true, 10_000);
        assert.equal(back.system_id, a.systemId);
        assert.ok(a.connects >= 2);
      } finally {
        await a.stop();
        await second?.close();
        const url = first.storageEnv.HEARTH_DATABASE_URL;
        if (url && db.adminUrl) {
          const name = new URL(url).pathname.slice(1);
          await withAdmin(db.adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
        }
      }
    });
  });
}
