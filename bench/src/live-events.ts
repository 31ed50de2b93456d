// Issue 4's benchmark: how long a child's access request takes from the agent's POST to arriving on
// 1,000 open dashboard streams, and how cheaply the rate-limited path answers 429s compared with a
// bare Fastify route. `npm run bench:events` at the repository root runs it.
import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import {
  cleanEnv,
  type Hearth,
  ownerCall,
  percentile,
  provenance,
  root,
  run,
  seedDevices,
  startHearth,
  writeResult,
} from './hearth-fixture.js';
import { loadOptionsFromEnv, measureInTurns, median, roundRatios } from './load.js';
import { type Child, freePort, spawnNode, stopChild } from './processes.js';

const STREAMS = Number(process.env.EVENTS_STREAMS ?? 1000);
const REQUESTS = Number(process.env.EVENTS_REQUESTS ?? 300);
const OPTIONS = loadOptionsFromEnv();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// On two cores one client process measured best; more processes only compete with the server.
const STREAM_PROCESSES = Number(process.env.EVENTS_STREAM_PROCESSES ?? 1);
const now = () => performance.timeOrigin + performance.now();

type StreamWorker = { child: ChildProcess; ask<T>(message: Record<string, unknown>): Promise<T> };

/** A child process holding part of the streams (see stream-worker.ts). */
function startStreamWorker(): StreamWorker {
  const child = fork(path.join(import.meta.dirname, 'stream-worker.ts'), [], {
    execArgv: ['--conditions=hearth-source', '--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    child,
    ask: <T>(message: Record<string, unknown>) =>
      new Promise<T>((resolve, reject) => {
        child.once('message', (m: { op: string; message?: string }) =>
          m.op === 'error' ? reject(new Error(m.message)) : resolve(m as T),
        );
        child.send(message);
      }),
  };
}

run(async () => {
  let hearth: Hearth | null = null;
  let bare: Child | null = null;
  const workers: StreamWorker[] = [];
  try {
    hearth = await startHearth('events');
    const barePort = await freePort();
    const child = await ownerCall<{ id: string }>(hearth, 'POST', '/api/user/create', { name: 'Ann' });
    const [device] = await seedDevices(hearth, 1, { mapTo: child.id });
    if (!device) throw new Error('no device');

    // The streams are spread over a few processes so their parsing does not delay what is measured.
    for (let i = 0; i < STREAM_PROCESSES; i++) workers.push(startStreamWorker());
    const share = Math.ceil(STREAMS / STREAM_PROCESSES);
    await Promise.all(
      workers.map((w, i) =>
        w.ask({
          op: 'open',
          url: `${hearth?.baseUrl}/api/dashboard/events`,
          cookie: hearth?.owner.cookie,
          count: Math.min(share, STREAMS - i * share),
        }),
      ),
    );
    await sleep(1000);

    // Each request from its own loopback address: the route allows 30 a minute per address.
    const sent = new Map<string, number>();
    const postLatency: number[] = [];
    const senders = Array.from(
      { length: Math.ceil(REQUESTS / 25) },
      (_, i) => new Agent({ localAddress: `127.0.${1 + Math.floor(i / 200)}.${2 + (i % 200)}` }),
    );
    for (let i = 0; i < REQUESTS; i++) {
      const t = now();
      const res = await undiciFetch(`${hearth.baseUrl}/api/access-request`, {
        method: 'POST',
        headers: { authorization: `Bearer ${device.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ linux_username: 'kid', reason: 'locked', message: `please ${i}` }),
        dispatcher: senders[Math.floor(i / 25)],
      });
      const body = (await res.json()) as { id?: string; error?: { message: string } };
      if (res.status !== 201 || !body.id)
        throw new Error(`access request ${i}: ${res.status} ${JSON.stringify(body)}`);
      postLatency.push(now() - t);
      sent.set(body.id, t);
      await sleep(20);
    }
    await sleep(2000);
    const arrivals = new Map<string, number[]>();
    for (const w of workers) {
      const report = await w.ask<{ arrivals: [string, number[]][] }>({ op: 'report' });
      for (const [id, times] of report.arrivals) arrivals.set(id, [...(arrivals.get(id) ?? []), ...times]);
    }
    const delivery: number[] = [];
    let missing = 0;
    for (const [id, t] of sent) {
      const got = arrivals.get(id) ?? [];
      missing += STREAMS - got.length;
      for (const arrival of got) delivery.push(arrival - t);
    }
    delivery.sort((a, b) => a - b);
    postLatency.sort((a, b) => a - b);
    await Promise.all(workers.map((w) => w.ask({ op: 'stop' }).catch(() => undefined)));
    workers.length = 0;
    await Promise.all(senders.map((s) => s.close()));

    // 429s from the real route (this address is over its limit after 30) against a bare Fastify route.
    const barePath = path.join(hearth.dataDir, 'bare-429.mjs');
    writeFileSync(
      barePath,
      `import Fastify from '${import.meta.resolve('fastify')}';
const app = Fastify({ logger: false });
const body = { error: { code: 'rate_limited', message: 'Too many requests from this address; please wait a moment.' } };
app.post('/api/access-request', async (_req, reply) => reply.code(429).header('retry-after', '60').send(body));
await app.listen({ port: ${barePort}, host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
`,
    );
    bare = spawnNode('bare', [barePath], { cwd: root, env: cleanEnv() });
    await sleep(500);
    const limitedHeaders = { authorization: `Bearer ${device.token}`, 'content-type': 'application/json' };
    const requestBody = JSON.stringify({ linux_username: 'kid', reason: 'locked', message: 'one more?' });
    // This address uses up its 30 a minute first; from then on every response must be a 429
    // (measureInTurns fails the run otherwise).
    for (let i = 0; ; i++) {
      const res = await undiciFetch(`${hearth.baseUrl}/api/access-request`, {
        method: 'POST',
        headers: limitedHeaders,
        body: requestBody,
      });
      await res.arrayBuffer();
      if (res.status === 429) break;
      if (res.status !== 201 || i > 30)
        throw new Error(`expected the limit to answer 429, got ${res.status}`);
    }
    // Every response must be a 429.
    const [limited, baseline] = await measureInTurns(
      [
        { label: 'limited route', url: `${hearth.baseUrl}/api/access-request` },
        { label: 'bare route', url: `http://127.0.0.1:${barePort}/api/access-request` },
      ].map((t) => ({
        ...t,
        method: 'POST' as const,
        headers: limitedHeaders,
        body: requestBody,
        status: 429,
      })),
      OPTIONS,
    );
    if (!limited || !baseline) throw new Error('the 429 runs reported nothing');
    const ratios = roundRatios(limited, baseline);
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

    writeResult('live-events', [
      '# Live events and the rate-limited access-request route',
      '',
      '| figure | value | target |',
      '| --- | ---: | --- |',
      `| access request POST → event on each of ${STREAMS.toLocaleString('en')} open streams (${REQUESTS} requests, ${delivery.length.toLocaleString('en')} deliveries, ${missing} missing) | p50 ${percentile(delivery, 50).toFixed(1)} ms · p99 ${percentile(delivery, 99).toFixed(1)} ms | p99 < 50 ms |`,
      `| access request POST response time | p50 ${percentile(postLatency, 50).toFixed(1)} ms · p99 ${percentile(postLatency, 99).toFixed(1)} ms | |`,
      `| 429s from POST /api/access-request (over the limit) | ${limited.requestsPerSecond.toFixed(0)} req/s (p99 ${limited.latencyP99.toFixed(2)} ms) | |`,
      `| bare Fastify route answering the same 429 | ${baseline.requestsPerSecond.toFixed(0)} req/s (p99 ${baseline.latencyP99.toFixed(2)} ms) | |`,
      `| 429 path / bare route, median of the rounds | **${pct(median(ratios))}** | ≥ 50 % |`,
      '',
      `429 path / bare route round by round: ${ratios.map(pct).join(', ')}.`,
      '',
      ...provenance(),
      `- Server: compiled server/dist, SQLite, log level warn, no worker, in-process bus; streams held by ${STREAM_PROCESSES} client processes and load from the benchmark process, all on the same machine; autocannon ${OPTIONS.connections} connections, a ${OPTIONS.warmup} s warm-up per route, then ${OPTIONS.rounds} rounds in which the two 429 routes take turns for ${OPTIONS.duration} s each.`,
    ]);
  } finally {
    await Promise.all(workers.map((w) => w.ask({ op: 'stop' }).catch(() => undefined)));
    if (bare) await stopChild(bare);
    await hearth?.stop();
  }
});
