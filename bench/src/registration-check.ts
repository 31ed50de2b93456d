// Issue 5's benchmark: GET /api/registration/check — called on every sign-up-looking page — against a
// bare Fastify route answering the same JSON, in one run. `npm run bench:registration` runs it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
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
import { loadOptionsFromEnv, measureInTurns, median, roundRatios, type Target } from './load.js';
import { type Child, freePort, spawnNode, stopChild, waitForOk } from './processes.js';

const OPTIONS = loadOptionsFromEnv();
// Enough devices that none reaches its 600 a minute even at 40,000 checks a second (2.4 million a minute).
const DEVICES = Number(process.env.BENCH_DEVICES ?? 5000);
const QUERY = '/api/registration/check?domain=games.example.com&linux_username=kid';

/** Each request carries the next device's token in turn, as many devices would (each may send 600 a minute). */
function rotating(label: string, url: string, tokens: string[]): Target {
  let next = 0;
  return {
    label,
    url,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` },
        }),
      },
    ],
  };
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
    const [baseline, measured] = await measureInTurns(
      [
        rotating('bare', `http://127.0.0.1:${barePort}${QUERY}`, tokens),
        rotating('check', `${hearth.baseUrl}${QUERY}`, tokens),
      ],
      OPTIONS,
      { round: (n) => console.log(`# round ${n} of ${OPTIONS.rounds}`) },
    );
    if (!baseline || !measured) throw new Error('no measurement');
    const ratios = roundRatios(measured, baseline);
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    const ms = (x: number) => x.toFixed(2);
    writeResult('registration-check', [
      '# GET /api/registration/check against a bare route',
      '',
      '| route | requests/s | p50 (ms) | p99 (ms) | requests |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| bare Fastify route, same JSON | ${baseline.requestsPerSecond.toFixed(0)} | ${ms(baseline.latencyP50)} | ${ms(baseline.latencyP99)} | ${baseline.requests.toLocaleString('en')} |`,
      `| GET /api/registration/check (bearer, ${DEVICES} devices in turn; enforced, no grant) | ${measured.requestsPerSecond.toFixed(0)} | ${ms(measured.latencyP50)} | ${ms(measured.latencyP99)} | ${measured.requests.toLocaleString('en')} |`,
      '',
      `Check / bare: **${pct(measured.requestsPerSecond / baseline.requestsPerSecond)}** (target ≥ 70 %); p99 ${ms(measured.latencyP99)} ms (target < 5 ms).`,
      `Round by round: ${ratios.map(pct).join(', ')} (median ${pct(median(ratios))}).`,
      '',
      ...provenance(),
      `- Server: compiled server/dist, SQLite, log level warn, no worker; autocannon ${OPTIONS.connections} connections in the benchmark process; a ${OPTIONS.warmup} s warm-up per route, then ${OPTIONS.rounds} rounds in which the two routes take turns for ${OPTIONS.duration} s each (requests/s: mean of the rounds; latencies over all rounds); requests rotate over ${DEVICES} device tokens so none passes its 600-a-minute bearer limit.`,
    ]);
  } finally {
    if (bare) await stopChild(bare);
    await hearth?.stop();
  }
});
