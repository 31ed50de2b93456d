import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SimAgent } from '../../bench/src/simulator.js';
import { Client, createPostgresDatabase, freePort } from './helpers.js';

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

  test('sign-in limits are shared: ten failures on A lock the pair on B too', async () => {
    const onA = new Client(a.url);
    for (let i = 0; i < 10; i++) assert.equal((await onA.signIn(admin, `wrong-${i}-password`)).status, 401);
    assert.equal((await new Client(b.url).signIn(admin, 'twin-instance-password')).status, 429);
  });
});
