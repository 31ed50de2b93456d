// Issue 14's benchmark: usage_report ingestion from 10,000 simulated devices, each reporting its running
// totals (with a few apps) as fast as the server takes them, then GET /api/user/<id>/usage (and /stats)
// against a bare Fastify route answering the same JSON, in the same run. `npm run bench:usage`.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../server/src/platform/db/database.js';
import {
  cleanEnv,
  type Hearth,
  ownerCall,
  provenance,
  root,
  run,
  type SeededDevice,
  seedDevices,
  startHearth,
  writeResult,
} from './hearth-fixture.js';
import { loadOptionsFromEnv, measureInTurns, median, roundRatios, type Target } from './load.js';
import { type Child, forkWorker, freePort, spawnNode, stopChild, waitForOk } from './processes.js';
import type { UsageWorkerReply, UsageWorkerRequest } from './usage-worker.js';

const OPTIONS = loadOptionsFromEnv();
const DEVICES = Number(process.env.USAGE_DEVICES ?? 10_000);
const REPORTS = Number(process.env.USAGE_REPORTS ?? 10); // per device
const BATCH = Number(process.env.USAGE_BATCH ?? 5); // reports in flight per device before its barrier
const APPS = Number(process.env.USAGE_APPS ?? 4); // apps per report
const DEVICES_PER_CHILD = 2;
// A process holds at most ~19,000 sockets here (20,000 open files); two at least, so clients use both cores.
const WORKERS = Math.max(2, Math.ceil(DEVICES / 9_500));
const ADDRESSES = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);

const startWorker = () =>
  forkWorker<UsageWorkerRequest, UsageWorkerReply>(path.join(import.meta.dirname, 'usage-worker.ts'));

/** Maps the devices two by two to children written straight into the database (as a family has). */
async function mapToChildren(hearth: Hearth, devices: SeededDevice[], firstChild: string): Promise<void> {
  const db = openDatabase({ databaseUrl: null, dataDir: hearth.dataDir });
  const at = new Date().toISOString();
  try {
    for (let i = 0; i < devices.length; i += 500) {
      const slice = devices.slice(i, i + 500);
      const children = Array.from({ length: Math.ceil(slice.length / DEVICES_PER_CHILD) }, (_, j) =>
        i === 0 && j === 0 ? firstChild : randomUUID(),
      );
      const fresh = children.filter((id) => id !== firstChild);
      if (fresh.length)
        await db.kysely
          .insertInto('managed_user')
          .values(
            fresh.map((id, j) => ({
              id,
              household_id: hearth.householdId,
              name: `Child ${i + j}`,
              overlay_age_tier: null,
              overlay_parent_note: null,
              created_at: at,
              updated_at: at,
              paused_until: null,
            })),
          )
          .execute();
      await db.kysely
        .insertInto('device_mapping')
        .values(
          slice.map((d, j) => ({
            id: randomUUID(),
            household_id: hearth.householdId,
            managed_user_id: children[Math.floor(j / DEVICES_PER_CHILD)] ?? firstChild,
            system_id: d.systemId,
            linux_username: 'kid',
            created_at: at,
          })),
        )
        .execute();
    }
  } finally {
    await db.close();
  }
}

run(async () => {
  let hearth: Hearth | null = null;
  let bare: Child | null = null;
  const workers: ReturnType<typeof startWorker>[] = [];
  try {
    // Warn level would log every barrier report (an account the hello did not name).
    hearth = await startHearth('usage', { HEARTH_LOG_LEVEL: 'error' });
    const child = await ownerCall<{ id: string }>(hearth, 'POST', '/api/user/create', { name: 'Kit' });
    const devices = await seedDevices(hearth, DEVICES);
    await mapToChildren(hearth, devices, child.id);

    for (let i = 0; i < WORKERS; i++) workers.push(startWorker());
    const share = Math.ceil(DEVICES / WORKERS);
    const connected = (await Promise.all(
      workers.map((w, i) =>
        w.ask({
          op: 'connect',
          url: hearth?.wsUrl ?? '',
          devices: devices.slice(i * share, (i + 1) * share),
          concurrency: 200,
          addresses: ADDRESSES,
        }),
      ),
    )) as Extract<UsageWorkerReply, { op: 'connected' }>[];
    const online = connected.reduce((n, c) => n + c.authenticated, 0);
    if (online !== DEVICES) throw new Error(`only ${online} of ${DEVICES} agents authenticated`);

    // Every device reports at once; the clock runs until the last barrier is answered.
    const date = new Date().toISOString().slice(0, 10);
    const started = performance.now();
    const reported = (await Promise.all(
      workers.map((w) => w.ask({ op: 'report', date, reports: REPORTS, batch: BATCH, apps: APPS })),
    )) as Extract<UsageWorkerReply, { op: 'reported' }>[];
    const seconds = (performance.now() - started) / 1000;
    const reports = reported.reduce((n, r) => n + r.reports, 0);
    const lost = reported.reduce((n, r) => n + r.lost, 0);
    if (reports !== DEVICES * REPORTS || lost)
      throw new Error(`${reports} reports handled, ${lost} agents lost`);
    // The stored totals are the last ones sent (nothing lost, nothing lowered), read through the usage route.
    const usage = await ownerCall<{ devices: { used_seconds?: number; seconds_used?: number }[] }>(
      hearth,
      'GET',
      `/api/user/${child.id}/usage`,
    );
    // The child's two devices are the first agents of the first worker (running totals from 0 and 7 s).
    const stored = usage.devices.reduce((n, d) => n + Number(d.used_seconds ?? d.seconds_used ?? 0), 0);
    if (stored !== 2 * 60 * REPORTS + 7)
      throw new Error(
        `the child's devices hold ${stored} s, not the last totals sent (${2 * 60 * REPORTS + 7} s)`,
      );
    await Promise.all(workers.map((w) => w.ask({ op: 'stop' })));
    workers.length = 0;

    // The routes against a bare Fastify app answering their bodies.
    const usagePath = `/api/user/${child.id}/usage`;
    const statsPath = `/api/user/${child.id}/stats?days=30`;
    const usageBody = JSON.stringify(usage);
    const statsBody = JSON.stringify(await ownerCall(hearth, 'GET', statsPath));
    const barePort = await freePort();
    const barePath = path.join(hearth.dataDir, 'bare.mjs');
    writeFileSync(
      barePath,
      `import Fastify from '${import.meta.resolve('fastify')}';
const app = Fastify({ logger: false });
const usage = ${usageBody};
const stats = ${statsBody};
app.get('/api/user/:id/usage', async () => usage);
app.get('/api/user/:id/stats', async () => stats);
await app.listen({ port: ${barePort}, host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
`,
    );
    bare = spawnNode('bare', [barePath], { cwd: root, env: cleanEnv() });
    const bareUrl = `http://127.0.0.1:${barePort}`;
    await waitForOk(bare, `${bareUrl}${usagePath}`);
    // The bare routes get the same cookie headers, so the load generator does the same work.
    const headers = { cookie: hearth.owner.cookie };
    const targets: Target[] = [
      { label: 'bare usage', url: `${bareUrl}${usagePath}`, headers },
      { label: 'usage', url: `${hearth.baseUrl}${usagePath}`, headers },
      { label: 'bare stats', url: `${bareUrl}${statsPath}`, headers },
      { label: 'stats', url: `${hearth.baseUrl}${statsPath}`, headers },
    ];
    const [bareUsage, usageRoute, bareStats, statsRoute] = await measureInTurns(targets, OPTIONS, {
      round: (n) => console.log(`# round ${n} of ${OPTIONS.rounds}`),
    });
    if (!bareUsage || !usageRoute || !bareStats || !statsRoute) throw new Error('no measurement');
    const usageRatios = roundRatios(usageRoute, bareUsage);
    const statsRatios = roundRatios(statsRoute, bareStats);
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    const ms = (x: number) => x.toFixed(2);
    const n = (x: number) => Math.round(x).toLocaleString('en');
    const row = (label: string, m: typeof bareUsage) =>
      `| ${label} | ${n(m.requestsPerSecond)} | ${ms(m.latencyP50)} | ${ms(m.latencyP99)} | ${m.requests.toLocaleString('en')} |`;
    writeResult('usage-ingest', [
      '# usage_report ingestion and the usage routes',
      '',
      '| figure | value | target |',
      '| --- | ---: | --- |',
      `| ${DEVICES.toLocaleString('en')} devices × ${REPORTS} reports (${APPS} apps each, ${BATCH} in flight per device), all at once | ${seconds.toFixed(2)} s, **${n(reports / seconds)} reports/s** | ≥ 5,000/s |`,
      '',
      '| route | requests/s | p50 (ms) | p99 (ms) | requests |',
      '| --- | ---: | ---: | ---: | ---: |',
      row('bare Fastify route, the usage JSON', bareUsage),
      row(`GET /api/user/<id>/usage (${DEVICES_PER_CHILD} devices, use today)`, usageRoute),
      row('bare Fastify route, the stats JSON', bareStats),
      row('GET /api/user/<id>/stats?days=30', statsRoute),
      '',
      `Usage / bare: **${pct(usageRoute.requestsPerSecond / bareUsage.requestsPerSecond)}** (target ≥ 50 %); rounds ${usageRatios.map(pct).join(', ')} (median ${pct(median(usageRatios))}).`,
      `Stats / bare: **${pct(statsRoute.requestsPerSecond / bareStats.requestsPerSecond)}**; rounds ${statsRatios.map(pct).join(', ')} (median ${pct(median(statsRatios))}).`,
      '',
      ...provenance(),
      `- Server: compiled server/dist, SQLite (WAL, synchronous=NORMAL), log level error, no worker; ${DEVICES.toLocaleString('en')} approved devices mapped ${DEVICES_PER_CHILD} a child.`,
      `- Agents: the simulator (bench/src/simulator.ts) in ${WORKERS} client processes on the same machine over ${ADDRESSES.length} loopback addresses; each sends ${BATCH} reports, then one for an account its hello did not name, and waits for that one's error frame (the server handles one socket's frames in order) before the next ${BATCH}.`,
      `- Routes: autocannon ${OPTIONS.connections} connections in the benchmark process; a ${OPTIONS.warmup} s warm-up per route, then ${OPTIONS.rounds} rounds in which the four take turns for ${OPTIONS.duration} s each.`,
    ]);
  } finally {
    await Promise.all(workers.map((w) => w.ask({ op: 'stop' }).catch(() => undefined)));
    if (bare) await stopChild(bare);
    await hearth?.stop();
  }
});
