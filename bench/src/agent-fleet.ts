// Issue 3's benchmark: how many authenticated agents one server process holds and at what memory per
// socket, how fast a reconnect storm is absorbed, and the command round trip with 5,000 agents online.
// `npm run bench:fleet` at the repository root runs it; results go to bench/results/agent-fleet.md.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkerReply, WorkerRequest } from './fleet-worker.js';
import {
  type Hearth,
  percentile,
  provenance,
  run,
  seedDevices,
  startHearth,
  writeResult,
} from './hearth-fixture.js';
import { forkWorker } from './processes.js';

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

const startWorker = () =>
  forkWorker<WorkerRequest, WorkerReply>(path.join(import.meta.dirname, 'fleet-worker.ts'));

run(async () => {
  let hearth: Hearth | null = null;
  const workers: ReturnType<typeof startWorker>[] = [];
  try {
    hearth = await startHearth('fleet');
    const pid = hearth.pid;
    const baseUrl = hearth.baseUrl;
    const session = { csrf_token: hearth.owner['x-csrftoken'] };
    const cookie = hearth.owner.cookie;
    const devices = await seedDevices(hearth, TOTAL);

    await sleep(2000);
    const baselineKiB = rssKiB(pid);
    const wsUrl = hearth.wsUrl;
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

    writeResult('agent-fleet', [
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
      ...provenance(),
      `- Server: compiled server/dist, SQLite, log level warn, no worker; ${fds.toLocaleString('en')} open files when loaded (process limit ${readFileSync('/proc/self/limits', 'utf8').match(/Max open files\s+(\d+)/)?.[1] ?? '?'}).`,
      `- Agents: the simulator (bench/src/simulator.ts) in ${WORKERS} client processes on the same machine, spread over ${ADDRESSES.length} loopback addresses.`,
    ]);
  } finally {
    await Promise.all(workers.map((w) => w.ask({ op: 'stop' }).catch(() => undefined)));
    await hearth?.stop();
  }
});
