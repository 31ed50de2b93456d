import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SimAgent } from '../../bench/src/simulator.js';
import { Client, createPostgresDatabase, freePort, SseReader } from './helpers.js';

// Redis counters outlive a run by a minute, so each run signs in under a name of its own.
const admin = `twin${Math.random().toString(36).slice(2, 8)}`;
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/cli.ts');
const pgUrl = process.env.HEARTH_TEST_DATABASE_URL;
const redisUrl = process.env.HEARTH_TEST_REDIS_URL;
const skip =
  !pgUrl || !redisUrl
    ? 'needs PostgreSQL and Redis (HEARTH_TEST_DATABASE_URL and HEARTH_TEST_REDIS_URL)'
    : undefined;
if (skip) console.log(`# skipping the two-instance tests: ${skip}`);

async function startInstance(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--conditions=hearth-source', '--import', 'tsx', cli, 'serve', '--no-worker'],
    {
      env: { ...process.env, ...env, HEARTH_PORT: String(port), HEARTH_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`instance exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, child };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('instance did not start');
}

describe('two server instances on one PostgreSQL and Redis', { skip }, () => {
  let a: { url: string; child: ChildProcess };
  let b: { url: string; child: ChildProcess };
  let drop: () => Promise<void>;
  const dirs: string[] = [];
  const agents: SimAgent[] = [];

  before(async () => {
    const database = await createPostgresDatabase(pgUrl ?? '');
    drop = database.drop;
    const shared = {
      HEARTH_DATABASE_URL: database.url,
      HEARTH_REDIS_URL: redisUrl ?? '',
      HEARTH_BOOTSTRAP_ADMIN: `${admin}:twin-instance-password`,
    };
    const dir = () => {
      const d = mkdtempSync(path.join(tmpdir(), 'hearth-multi-'));
      dirs.push(d);
      return d;
    };
    a = await startInstance({ ...shared, HEARTH_DATA_DIR: dir() });
    b = await startInstance({ ...shared, HEARTH_DATA_DIR: dir() });
  });

  after(async () => {
    await Promise.all(agents.map((x) => x.stop()));
    for (const inst of [a, b]) {
      if (!inst) continue;
      // An instance that ended during the tests has no exit left to wait for.
      if (inst.child.exitCode !== null || inst.child.signalCode !== null) continue;
      const exited = new Promise((r) => inst.child.once('exit', r));
      inst.child.kill('SIGTERM');
      await exited;
    }
    await drop?.();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('a parent on instance A pairs, commands and unenrolls an agent connected to instance B', async () => {
    const parent = new Client(a.url);
    assert.equal((await parent.signIn(admin, 'twin-instance-password')).status, 200);
    const token = (await parent.get('/api/pairing/config')).body.enrollment_token;

    const agent = new SimAgent({
      url: `${b.url.replace('http', 'ws')}/ws`,
      enrollmentToken: token,
      linuxUsers: [{ username: 'ann' }],
    });
    agents.push(agent);
    assert.deepEqual(await agent.connect(), { type: 'pairing_status', status: 'pending' });

    const pending = (await parent.get('/api/devices/pending')).body.items;
    assert.equal(
      pending.find((d: { system_id: string }) => d.system_id === agent.systemId)?.online,
      true,
      'A sees the socket B holds',
    );

    const approved = agent.waitFor('pairing_approved');
    assert.equal((await parent.post(`/api/device/approve/${agent.systemId}`)).status, 200);
    assert.match(String((await approved).secure_token), /^[0-9a-f]{64}$/);

    const command = agent.waitFor('command_request');
    const res = await parent.post(`/api/devices/${agent.systemId}/overlay`, {
      action: 'show',
      reason: 'sleep',
      linux_username: 'ann',
    });
    assert.deepEqual(res.body, { delivered: true, queued: false });
    assert.equal((await command).command, 'show_overlay');

    const unenroll = agent.waitFor((f) => f.type === 'command_request' && f.command === 'unenroll');
    const closed = agent.waitForClose();
    assert.equal((await parent.post(`/api/device/${agent.systemId}/unenroll`)).status, 200);
    await unenroll;
    assert.equal((await closed).code, 4403);
  });

  test("a usage report on A reaches the same child's device on B as time_status (through the bus)", async () => {
    const parent = new Client(a.url);
    assert.equal((await parent.signIn(admin, 'twin-instance-password')).status, 200);
    assert.equal((await parent.patch('/api/household', { timezone: 'UTC' })).status, 200);
    const token = (await parent.get('/api/pairing/config')).body.enrollment_token;
    const child = (await parent.post('/api/user/create', { name: 'Split' })).body.id;
    const pair = async (instance: { url: string }) => {
      const agent = new SimAgent({
        url: `${instance.url.replace('http', 'ws')}/ws`,
        enrollmentToken: token,
        linuxUsers: [{ username: 'split' }],
      });
      agents.push(agent);
      await agent.connect();
      const approved = agent.waitFor('pairing_approved');
      assert.equal((await parent.post(`/api/device/approve/${agent.systemId}`)).status, 200);
      await approved;
      assert.equal(
        (
          await parent.post(`/managed-users/${child}/mappings/add`, {
            system_id: agent.systemId,
            linux_username: 'split',
          })
        ).status,
        201,
      );
      return agent;
    };
    const onA = await pair(a);
    const onB = await pair(b);
    const status = onB.waitFor('time_status');
    const today = new Date().toISOString().slice(0, 10);
    onA.send({ type: 'usage_report', linux_username: 'split', date: today, seconds_used: 420 });
    const frame = await status;
    assert.deepEqual(frame, {
      type: 'time_status',
      linux_username: 'split',
      date: today,
      used_seconds: 420,
      remaining_seconds: null,
    });
  });

  test("what a parent changes on A, B's cached reads show at once", async () => {
    const onA = new Client(a.url);
    assert.equal((await onA.signIn(admin, 'twin-instance-password')).status, 200);
    const onB = new Client(b.url);
    onB.cookie = onA.cookie;
    onB.csrf = onA.csrf;
    const names = async () =>
      ((await onB.get('/api/users')).body.items as { name: string }[]).map((u) => u.name);

    // B reads (and keeps) the session and the children list; A adds a child.
    assert.ok(!(await names()).includes('Rowan'));
    const child = await onA.post('/api/user/create', { name: 'Rowan' });
    assert.equal(child.status, 201);
    assert.ok((await names()).includes('Rowan'), 'B lists the child A just created');
    assert.equal(
      (await onA.patch(`/managed-users/${child.body.id}/overlay`, { overlay_parent_note: 'Back soon' }))
        .status,
      200,
    );
    const rowan = (await onB.get('/api/users')).body.items.find(
      (u: { id: string }) => u.id === child.body.id,
    );
    assert.equal(rowan.overlay_parent_note, 'Back soon');

    // An agent paired through A, its token used on B.
    const token = (await onA.get('/api/pairing/config')).body.enrollment_token;
    const agent = new SimAgent({
      url: `${a.url.replace('http', 'ws')}/ws`,
      enrollmentToken: token,
      linuxUsers: [{ username: 'rowan' }],
    });
    agents.push(agent);
    await agent.connect();
    const approved = agent.waitFor('pairing_approved');
    assert.equal((await onA.post(`/api/device/approve/${agent.systemId}`)).status, 200);
    const bearer = { authorization: `Bearer ${(await approved).secure_token}` };
    const checkOnB = async () =>
      onB.get('/api/registration/check?domain=games.example&linux_username=rowan', bearer);

    assert.deepEqual((await checkOnB()).body, { allowed: true, pending: false, domain: 'games.example' });
    const mapping = await onA.post(`/managed-users/${child.body.id}/mappings/add`, {
      system_id: agent.systemId,
      linux_username: 'rowan',
    });
    assert.equal(mapping.status, 201);
    const listed = (await onB.get('/api/users')).body.items.find(
      (u: { id: string }) => u.id === child.body.id,
    );
    assert.equal(listed.mappings.length, 1, 'B lists the mapping A just added');
    await onA.post(`/api/mappings/${mapping.body.id}/approval-settings`, { enforce_signup_approvals: true });
    assert.equal((await checkOnB()).body.allowed, false, 'the toggle on A holds on B at once');
    const grant = await onA.post(`/api/mappings/${mapping.body.id}/approval-grants`, {
      domain: 'games.example',
      kind: 'persistent',
    });
    assert.equal((await checkOnB()).body.allowed, true, 'the grant made on A allows on B');
    await onA.delete(`/api/mappings/${mapping.body.id}/approval-grants/${grant.body.id}`);
    assert.equal((await checkOnB()).body.allowed, false, 'the grant revoked on A no longer allows on B');

    assert.equal((await onA.post(`/api/device/${agent.systemId}/unenroll`)).status, 200);
    const refused = await checkOnB();
    assert.equal(refused.status, 401, 'the unenrolled device token is refused on B at once');
    assert.equal(refused.body.error.code, 'invalid_token');

    assert.equal((await onA.delete('/api/session')).status, 200);
    const signedOut = await onB.get('/api/users');
    assert.equal(signedOut.status, 401, 'a session ended on A ends on B at once');
  });

  test("a parent's new role on A applies to their session on B at once", async () => {
    const owner = new Client(a.url);
    assert.equal((await owner.signIn(admin, 'twin-instance-password')).status, 200);
    const username = `helper${Math.random().toString(36).slice(2, 8)}`;
    const created = await owner.post('/api/household/parents', {
      username,
      password: 'helper-password-long',
      role: 'admin',
      children: [],
    });
    assert.equal(created.status, 201);
    const helper = new Client(b.url);
    assert.equal((await helper.signIn(username, 'helper-password-long')).status, 200);
    assert.equal((await helper.post('/api/user/create', { name: 'Sky' })).status, 201);
    assert.equal(
      (await owner.patch(`/api/household/parents/${created.body.id}`, { role: 'member' })).status,
      200,
    );
    const denied = await helper.post('/api/user/create', { name: 'Sky again' });
    assert.equal(denied.status, 403, 'B knows the parent is a member now');
  });

  test("a member's stream on B stops hearing a child the owner takes away on A (issue 13)", async () => {
    const owner = new Client(a.url);
    assert.equal((await owner.signIn(admin, 'twin-instance-password')).status, 200);
    const kept = (await owner.post('/api/user/create', { name: 'Kept' })).body.id;
    const lost = (await owner.post('/api/user/create', { name: 'Lost' })).body.id;
    const agent = new SimAgent({
      url: `${a.url.replace('http', 'ws')}/ws`,
      enrollmentToken: (await owner.get('/api/pairing/config')).body.enrollment_token,
      linuxUsers: [{ username: 'kept' }, { username: 'lost' }],
    });
    agents.push(agent);
    await agent.connect();
    const approved = agent.waitFor('pairing_approved');
    assert.equal((await owner.post(`/api/device/approve/${agent.systemId}`)).status, 200);
    const token = (await approved).secure_token;
    for (const [child, account] of [
      [kept, 'kept'],
      [lost, 'lost'],
    ])
      await owner.post(`/managed-users/${child}/mappings/add`, {
        system_id: agent.systemId,
        linux_username: account,
      });

    const username = `viewer${Math.random().toString(36).slice(2, 8)}`;
    const grant = (id: string) => ({ managed_user_id: id, can_view: true, can_manage_policies: false });
    const created = await owner.post('/api/household/parents', {
      username,
      password: 'viewer-password-long',
      role: 'member',
      children: [grant(kept), grant(lost)],
    });
    assert.equal(created.status, 201, created.text);
    const member = new Client(b.url);
    assert.equal((await member.signIn(username, 'viewer-password-long')).status, 200);
    const stream = await SseReader.open(`${b.url}/api/dashboard/events`, member.cookie ?? '');
    try {
      let n = 0;
      // Each request is posted on the instance named, as an agent behind a balancer would.
      const ask = async (on: string, account: string) => {
        const res = await fetch(`${on}/api/access-request`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ linux_username: account, reason: 'sleep', message: `ask ${++n}` }),
        });
        assert.equal(res.status, 201);
        return ((await res.json()) as { id: string }).id;
      };
      const alertOf = (id: string) => (e: { event: string; data: any }) =>
        e.event === 'alert_created' && e.data.id === id;
      await stream.next(alertOf(await ask(a.url, 'lost')));

      const res = await owner.patch(`/api/household/parents/${created.body.id}`, { children: [grant(kept)] });
      assert.equal(res.status, 200, res.text);
      for (const on of [a.url, b.url]) {
        const from = stream.events.length;
        const hidden = await ask(on, 'lost');
        await stream.next(alertOf(await ask(on, 'kept')));
        const later = stream.events.slice(from);
        assert.ok(!later.some(alertOf(hidden)), `an event of the lost child posted on ${on} reached B`);
        assert.ok(!later.some((e) => e.data?.managed_user_id === lost));
      }
    } finally {
      stream.close();
    }
  });

  test('sign-in limits are shared: ten failures on A lock the pair on B too', async () => {
    const onA = new Client(a.url);
    for (let i = 0; i < 10; i++) assert.equal((await onA.signIn(admin, `wrong-${i}-password`)).status, 401);
    assert.equal((await new Client(b.url).signIn(admin, 'twin-instance-password')).status, 429);
  });
});
