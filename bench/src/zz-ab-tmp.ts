import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { measure } from './load.js';
import { cpuSnapshot, otherCpuShare } from './machine.js';
import { freePort, spawnNode, stopChild, waitForOk } from './processes.js';

const root = path.resolve(import.meta.dirname, '../..');
async function one(dist: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-ab-'));
  const port = await freePort();
  const password = randomBytes(18).toString('base64url');
  const base = `http://127.0.0.1:${port}`;
  const extra = (process.env.PROF_ARGS ?? '').split(' ').filter(Boolean);
  const hearth = spawnNode('hearth', [...extra, path.join(root, dist, 'cli.js'), 'serve', '--no-worker'], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH,
      HEARTH_DATA_DIR: dataDir,
      HEARTH_PORT: String(port),
      HEARTH_LOG_LEVEL: 'silent',
      HEARTH_BOOTSTRAP_ADMIN: `bench:${password}`,
    },
  });
  try {
    await waitForOk(hearth, `${base}/healthz`);
    const s = await fetch(`${base}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password }),
    });
    const view = (await s.json()) as { csrf_token: string };
    const cookie = (s.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    for (const name of ['Ada', 'Ben', 'Cleo', 'Dev', 'Esme']) {
      const r = await fetch(`${base}/api/user/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, 'x-csrftoken': view.csrf_token },
        body: JSON.stringify({ name }),
      });
      if (r.status !== 201) throw new Error(String(r.status));
    }
    const body = await (await fetch(`${base}/api/users`, { headers: { cookie } })).text();
    const pids = [process.pid, hearth.process.pid ?? -1];
    const before = cpuSnapshot(pids);
    const m = await measure(
      { label: dist, url: `${base}/api/users`, headers: { cookie } },
      { duration: Number(process.env.D ?? 8), warmup: 2, connections: 50 },
    );
    const other = otherCpuShare(before, cpuSnapshot(pids));
    console.log(
      `${dist.padEnd(18)} ${Math.round(m.requestsPerSecond)} rps p50 ${m.latencyP50.toFixed(2)} p99 ${m.latencyP99.toFixed(2)} other ${((other ?? 0) * 100).toFixed(1)}% body ${body.length}B items ${JSON.parse(body).items.length}`,
    );
  } finally {
    await stopChild(hearth);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
for (const dist of (
  process.env.VARIANTS ?? 'server/dist,server/.exp2-dist,server/dist,server/.exp2-dist'
).split(','))
  await one(dist);
process.exit(0);
