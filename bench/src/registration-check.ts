// Issue 5's benchmark: GET /api/registration/check — called on every sign-up-looking page — against a
// bare Fastify route answering the same JSON, in one run. `npm run bench:registration` runs it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  cleanEnv,
  type Hearth,
  ownerCall,
  provenance,
  root,
  run,
  seedDevices,
  startHearth,
  writeResult,
} from './hearth-fixture.js';
import { type Child, freePort, spawnNode, stopChild, waitForOk } from './processes.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000);
const QUERY = '/api/registration/check?domain=games.example.com&linux_username=kid';

/** Each request carries the next device's token in turn, as many devices would (each may send 600 a minute). */
async function load(url: string, tokens: string[]) {
  let next = 0;
  const requests = [
    {
      setupRequest: (req: { headers?: Record<string, string> }) => {
        req.headers = { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` };
        return req;
      },
    },
  ];
  await autocannon({ url, requests, connections: CONNECTIONS, duration: 2 } as autocannon.Options);
  const r = await autocannon({
    url,
    requests,
    connections: CONNECTIONS,
    duration: DURATION,
  } as autocannon.Options);
  if (r.non2xx || r.errors)
    throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors ${JSON.stringify(r.statusCodeStats)}`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total ?? 0 };
}

run(async () => {
  let hearth: Hearth | null = null;
  let bare: Child | null = null;
  try {
    hearth = await startHearth('registration');
    const child = await ownerCall<{ id: string }>(hearth, 'POST', '/api/user/create', { name: 'Kit' });
    // Enforcement on for every device: each check reads the mapping, its grants and pending requests.
    const devices = await seedDevices(hearth, DEVICES, { mapTo: child.id, enforceSignup: true });
    const tokens = devices.map((d) => d.token);
    const answer = await (
      await fetch(`${hearth.baseUrl}${QUERY}`, { headers: { authorization: `Bearer ${tokens[0]}` } })
    ).text();
    if (!answer.includes('"allowed":false')) throw new Error(`unexpected check answer ${answer}`);

    const barePort = await freePort();
    const barePath = path.join(hearth.dataDir, 'bare.mjs');
    writeFileSync(
      barePath,
      `import Fastify from '${import.meta.resolve('fastify')}';
const app = Fastify({ logger: false });
const body = ${answer};
app.get('/api/registration/check', async () => body);
await app.listen({ port: ${barePort}, host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
`,
    );
    bare = spawnNode('bare', [barePath], { cwd: root, env: cleanEnv() });
    await waitForOk(bare, `http://127.0.0.1:${barePort}/api/registration/check`);

    // The bare route gets the same rotating Authorization headers, so the load generator does the same work.
    const baseline = await load(`http://127.0.0.1:${barePort}${QUERY}`, tokens);
    const measured = await load(`${hearth.baseUrl}${QUERY}`, tokens);
    writeResult('registration-check', [
      '# GET /api/registration/check against a bare route',
      '',
      '| route | requests/s | p50 (ms) | p99 (ms) | requests |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| bare Fastify route, same JSON | ${baseline.rps.toFixed(0)} | ${baseline.p50} | ${baseline.p99} | ${baseline.total.toLocaleString('en')} |`,
      `| GET /api/registration/check (bearer, ${DEVICES} devices in turn; enforced, no grant) | ${measured.rps.toFixed(0)} | ${measured.p50} | ${measured.p99} | ${measured.total.toLocaleString('en')} |`,
      '',
      `Check / bare: **${((100 * measured.rps) / baseline.rps).toFixed(1)} %** (target ≥ 70 %); p99 ${measured.p99} ms (target < 5 ms).`,
      '',
      ...provenance(),
      `- Server: compiled server/dist, SQLite, log level warn, no worker; autocannon ${CONNECTIONS} connections in the benchmark process, 2 s warm-up, ${DURATION} s measured; requests rotate over ${DEVICES} device tokens so none passes its 600-a-minute bearer limit.`,
    ]);
  } finally {
    if (bare) await stopChild(bare);
    await hearth?.stop();
  }
});
