// Issue 4's benchmark: how long a child's access request takes from the agent's POST to arriving on
// 1,000 open dashboard streams, and how cheaply the rate-limited path answers 429s compared with a
// bare Fastify route. `npm run bench:events` at the repository root runs it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
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
import { type Child, freePort, spawnNode, stopChild } from './processes.js';

const STREAMS = Number(process.env.EVENTS_STREAMS ?? 1000);
const REQUESTS = Number(process.env.EVENTS_REQUESTS ?? 300);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts arrival times of access_requested events, by alert id, on one SSE stream. */
async function openStream(
  url: string,
  cookie: string,
  arrivals: Map<string, number[]>,
  dispatcher: Agent,
): Promise<AbortController> {
  const controller = new AbortController();
  const res = await undiciFetch(url, {
    headers: { cookie, accept: 'text/event-stream' },
    signal: controller.signal,
    dispatcher,
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.includes('event: access_requested')) {
            const data = block.slice(block.indexOf('data: ') + 6);
            const id = /"id":"([^"]+)"/.exec(data)?.[1];
            if (id) {
              const list = arrivals.get(id) ?? [];
              list.push(performance.now());
              arrivals.set(id, list);
            }
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // closed by the benchmark
    }
  })();
  return controller;
}

async function rps(url: string, method: 'GET' | 'POST', headers: Record<string, string> = {}, body?: string) {
  await autocannon({ url, method, headers, body, connections: 50, duration: 2 });
  const result = await autocannon({ url, method, headers, body, connections: 50, duration: DURATION });
  return { rps: result.requests.average, p99: result.latency.p99, statuses: result.statusCodeStats };
}

run(async () => {
  let hearth: Hearth | null = null;
  let bare: Child | null = null;
  const streams: AbortController[] = [];
  const dispatcher = new Agent({ connections: STREAMS + 50, pipelining: 0 });
  try {
    hearth = await startHearth('events');
    const barePort = await freePort();
    const child = await ownerCall<{ id: string }>(hearth, 'POST', '/api/user/create', { name: 'Ann' });
    const [device] = await seedDevices(hearth, 1, { mapTo: child.id });
    if (!device) throw new Error('no device');

    const arrivals = new Map<string, number[]>();
    for (let i = 0; i < STREAMS; i++)
      streams.push(
        await openStream(`${hearth.baseUrl}/api/dashboard/events`, hearth.owner.cookie, arrivals, dispatcher),
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
      const t = performance.now();
      const res = await undiciFetch(`${hearth.baseUrl}/api/access-request`, {
        method: 'POST',
        headers: { authorization: `Bearer ${device.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ linux_username: 'kid', reason: 'locked', message: `please ${i}` }),
        dispatcher: senders[Math.floor(i / 25)],
      });
      const body = (await res.json()) as { id?: string; error?: { message: string } };
      if (res.status !== 201 || !body.id)
        throw new Error(`access request ${i}: ${res.status} ${JSON.stringify(body)}`);
      postLatency.push(performance.now() - t);
      sent.set(body.id, t);
      await sleep(20);
    }
    await sleep(2000);
    const delivery: number[] = [];
    let missing = 0;
    for (const [id, t] of sent) {
      const got = arrivals.get(id) ?? [];
      missing += STREAMS - got.length;
      for (const arrival of got) delivery.push(arrival - t);
    }
    delivery.sort((a, b) => a - b);
    postLatency.sort((a, b) => a - b);
    for (const s of streams) s.abort();
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
    const limited = await rps(`${hearth.baseUrl}/api/access-request`, 'POST', limitedHeaders, requestBody);
    const baseline = await rps(
      `http://127.0.0.1:${barePort}/api/access-request`,
      'POST',
      limitedHeaders,
      requestBody,
    );
    for (const [name, run] of [
      ['limited route', limited],
      ['bare route', baseline],
    ] as const) {
      if (!Object.keys(run.statuses).every((s) => s === '429'))
        throw new Error(`the ${name} answered ${JSON.stringify(run.statuses)}`);
    }

    writeResult('live-events', [
      '# Live events and the rate-limited access-request route',
      '',
      '| figure | value | target |',
      '| --- | ---: | --- |',
      `| access request POST → event on each of ${STREAMS.toLocaleString('en')} open streams (${REQUESTS} requests, ${delivery.length.toLocaleString('en')} deliveries, ${missing} missing) | p50 ${percentile(delivery, 50).toFixed(1)} ms · p99 ${percentile(delivery, 99).toFixed(1)} ms | p99 < 50 ms |`,
      `| access request POST response time | p50 ${percentile(postLatency, 50).toFixed(1)} ms · p99 ${percentile(postLatency, 99).toFixed(1)} ms | |`,
      `| 429s from POST /api/access-request (over the limit) | ${limited.rps.toFixed(0)} req/s (p99 ${limited.p99} ms) | |`,
      `| bare Fastify route answering the same 429 | ${baseline.rps.toFixed(0)} req/s (p99 ${baseline.p99} ms) | |`,
      `| 429 path / bare route | **${((100 * limited.rps) / baseline.rps).toFixed(1)} %** | ≥ 50 % |`,
      '',
      ...provenance(),
      '- Server: compiled server/dist, SQLite, log level warn, no worker, in-process bus; streams and load from the benchmark process on the same machine; autocannon 50 connections, 2 s warm-up then measured.',
    ]);
  } finally {
    for (const s of streams) s.abort();
    await dispatcher.close().catch(() => {});
    if (bare) await stopChild(bare);
    await hearth?.stop();
  }
});
