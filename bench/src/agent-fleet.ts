// Issue 3's benchmark: how many authenticated agents one server process holds and at what memory per
// socket, how fast a reconnect storm is absorbed, and the command round trip with 5,000 agents online.
// `npm run bench:fleet` at the repository root runs it; results go to bench/results/agent-fleet.md.
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../server/src/platform/crypto.js';
import { openDatabase } from '../../server/src/platform/db/database.js';
import type { WorkerReply, WorkerRequest } from './fleet-worker.js';
import { describeMachine, gitRevision } from './machine.js';
import { type Child, freePort, spawnNode, stopChild, waitForOk } from './processes.js';

const benchDir = path.resolve(import.meta.dirname, '..');
const root = path.resolve(benchDir, '..');
const tsxLoader = import.meta.resolve('tsx');
const resultsFile = path.join(benchDir, 'results', 'agent-fleet.md');

const TOTAL = Number(process.env.FLEET_AGENTS ?? 19_500);
const RTT_AGENTS = 5_000;
const RTT_REQUESTS = Number(process.env.FLEET_RTT_REQUESTS ?? 3_000);
const RTT_CONCURRENCY = 16;
const WORKERS = Math.max(2, Math.ceil(TOTAL / 9_800));
// Sockets come from several loopback addresses so a reconnect storm never runs out of source ports.
const ADDRESSES = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);

const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function startWorker(): { child: ChildProcess; ask(req: WorkerRequest): Promise<WorkerReply> } {
  const child = fork(path.join(import.meta.dirname, 'fleet-worker.ts'), [], {
    execArgv: ['--conditions=hearth-source', '--import', tsxLoader],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    child,
    ask: (req) =>
      new Promise((resolve, reject) => {
        child.once('message', (m: WorkerReply) =>
          m.op === 'error' ? reject(new Error(m.message)) : resolve(m),
        );
        child.send(req);
      }),
  };
}

async function main() {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (
    spawnSync(process.execPath, [tsc, '-b', 'protocol', 'server'], { cwd: root, stdio: 'inherit' }).status !==
    0
  ) {
    throw new Error('tsc -b protocol server failed');
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-fleet-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const password = randomBytes(12).toString('hex');
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HEARTH_')) env[k] = v;
  let server: Child | null = null;
  const workers: ReturnType<typeof startWorker>[] = [];
  try {
    server = spawnNode('hearth', [path.join(root, 'server/dist/cli.js'), 'serve', '--no-worker'], {
      cwd: root,
      env: {
        ...env,
        HEARTH_DATA_DIR: dataDir,
        HEARTH_PORT: String(port),
        HEARTH_HOST: '0.0.0.0',
        HEARTH_LOG_LEVEL: 'warn',
        HEARTH_BOOTSTRAP_ADMIN: `fleet:${password}`,
      },
    });
    await waitForOk(server, `${baseUrl}/healthz`);
    const pid = server.process.pid ?? 0;

    const signIn = await fetch(`${baseUrl}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'fleet', password }),
    });
    const session = (await signIn.json()) as { household: { id: string }; csrf_token: string };
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

    // Devices are written straight into the server's database: approving 20,000 by hand is not the point here.
    const devices = Array.from({ length: TOTAL }, () => ({
      systemId: randomUUID(),
      token: randomBytes(32).toString('hex'),
    }));
    const db = openDatabase({ databaseUrl: null, dataDir });
    const at = new Date().toISOString();
    for (let i = 0; i < devices.length; i += 500) {
      await db.kysely
        .insertInto('agent_device')
        .values(
          devices.slice(i, i + 500).map((d, j) => ({
            system_id: d.systemId,
            household_id: session.household.id,
            hostname: `fleet-${i + j}`,
            display_name: null,
            platform: 'linux',
            status: 'approved' as const,
            agent_version: '0.57.0',
            linux_users: '[{"username":"kid"}]',
            secure_token_hash: sha256Hex(d.token),
            last_seen_at: null,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
    }
    await db.close();

    await sleep(2000);
    const baselineKiB = rssKiB(pid);
    const wsUrl = `ws://127.0.0.1:${port}/ws`;
    for (let i = 0; i < WORKERS; i++) workers.push(startWorker());
    const share = Math.ceil(TOTAL / WORKERS);
    const slices = workers.map((_, i) => devices.slice(i * share, (i + 1) * share));

    // Stage 1: 5,000 agents online, then the command round trip through the parent's HTTP route.
    const first = slices[0] ?? [];
    const rttAgents = first.slice(0, RTT_AGENTS);
    const w0 = workers[0];
    if (!w0) throw new Error('no worker');
    const c1 = (await w0.ask({
      op: 'connect',
      url: wsUrl,
      devices: rttAgents,
      concurrency: 200,
      addresses: ADDRESSES,
    })) as Extract<WorkerReply, { op: 'connected' }>;
    if (c1.authenticated !== rttAgents.length)
      throw new Error(`only ${c1.authenticated} of ${rttAgents.length} agents authenticated`);
    const latencies: number[] = [];
    let undelivered = 0;
    let next = 0;
    const rttStarted = performance.now();
    await Promise.all(
      Array.from({ length: RTT_CONCURRENCY }, async () => {
        while (next < RTT_REQUESTS) {
          const target = rttAgents[next++ % rttAgents.length];
          const t = performance.now();
          const res = await fetch(`${baseUrl}/api/devices/${target?.systemId}/clear-clock-tamper`, {
            method: 'POST',
            headers: { cookie, 'x-csrftoken': session.csrf_token },
          });
          const body = (await res.json()) as { delivered?: boolean };
          latencies.push(performance.now() - t);
          if (!body.delivered) undelivered++;
        }
      }),
    );
    const rttSeconds = (performance.now() - rttStarted) / 1000;
    latencies.sort((a, b) => a - b);
    if (undelivered) throw new Error(`${undelivered} commands were not delivered`);

    // Stage 2: everyone online; memory per socket.
    await w0.ask({ op: 'stop' });
    workers[0] = startWorker();
    await sleep(1000);
    const connectStarted = performance.now();
    const connected = (await Promise.all(
      workers.map((w, i) =>
        w.ask({
          op: 'connect',
          url: wsUrl,
          devices: slices[i] ?? [],
          concurrency: 300,
          addresses: ADDRESSES,
        }),
      ),
    )) as Extract<WorkerReply, { op: 'connected' }>[];
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    const online = connected.reduce((n, c) => n + c.authenticated, 0);
    await sleep(5000);
    const loadedKiB = rssKiB(pid);
    const fds = openFiles(pid);
    const perSocketKiB = (loadedKiB - baselineKiB) / online;

    // Stage 3: a reconnect storm — every socket drops and says hello again at once.
    const stormed = (await Promise.all(
      workers.map((w) => w.ask({ op: 'storm', concurrency: 1000 })),
    )) as Extract<WorkerReply, { op: 'stormed' }>[];
    const stormOk = stormed.reduce((n, s) => n + s.authenticated, 0);
    const stormSeconds = Math.max(...stormed.map((s) => s.ms)) / 1000;
    await sleep(3000);
    const afterStormKiB = rssKiB(pid);

    const m = describeMachine();
    const lines = [
      '# Agent fleet on one server process',
      '',
      '| figure | value | target |',
      '| --- | ---: | --- |',
      `| authenticated agents held at once | ${online.toLocaleString('en')} of ${TOTAL.toLocaleString('en')} | 20,000 |`,
      `| server RSS idle → loaded | ${(baselineKiB / 1024).toFixed(0)} MiB → ${(loadedKiB / 1024).toFixed(0)} MiB | |`,
      `| RSS per authenticated socket | ${perSocketKiB.toFixed(1)} KiB | ≤ 16 KB |`,
      `| initial connect (300 handshakes in flight per client process) | ${(online / connectSeconds).toFixed(0)} handshakes/s | |`,
      `| reconnect storm: ${stormOk.toLocaleString('en')} agents drop and reconnect together | ${(stormOk / stormSeconds).toFixed(0)} handshakes/s (${stormSeconds.toFixed(1)} s) | ≥ 1,000/s |`,
      `| RSS after the storm | ${(afterStormKiB / 1024).toFixed(0)} MiB | |`,
      `| command round trip, ${RTT_AGENTS.toLocaleString('en')} agents online (HTTP POST → agent → answer → HTTP reply) | p50 ${percentile(latencies, 50).toFixed(2)} ms · p99 ${percentile(latencies, 99).toFixed(2)} ms | |`,
      `| command throughput at ${RTT_CONCURRENCY} requests in flight | ${(RTT_REQUESTS / rttSeconds).toFixed(0)} commands/s | |`,
      '',
      `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform}`,
      `- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; code: ${gitRevision(root)}`,
      `- Server: compiled server/dist, SQLite, log level warn, no worker; ${fds.toLocaleString('en')} open files when loaded (process limit ${readFileSync('/proc/self/limits', 'utf8').match(/Max open files\s+(\d+)/)?.[1] ?? '?'}).`,
      `- Agents: the simulator (bench/src/simulator.ts) in ${WORKERS} client processes on the same machine, spread over ${ADDRESSES.length} loopback addresses.`,
    ];
    const report = lines.join('\n');
    console.log(`\n${report}\n`);
    mkdirSync(path.dirname(resultsFile), { recursive: true });
    writeFileSync(resultsFile, `${report}\n`);
  } finally {
    await Promise.all(workers.map((w) => w.ask({ op: 'stop' }).catch(() => undefined)));
    if (server) await stopChild(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
