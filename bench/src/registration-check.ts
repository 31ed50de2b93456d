// Issue 5's benchmark: GET /api/registration/check — called on every sign-up-looking page — against a
// bare Fastify route answering the same JSON, in one run. `npm run bench:registration` runs it.
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sha256Hex } from '../../server/src/platform/crypto.js';
import { openDatabase } from '../../server/src/platform/db/database.js';
import { describeMachine, gitRevision } from './machine.js';
import { type Child, freePort, spawnNode, stopChild, waitForOk } from './processes.js';

const benchDir = path.resolve(import.meta.dirname, '..');
const root = path.resolve(benchDir, '..');
const resultsFile = path.join(benchDir, 'results', 'registration-check.md');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000);

/** Each request carries the token of the next device in turn, as many devices would (each may send 600 a minute). */
async function run(url: string, tokens: string[]) {
  let next = 0;
  const requests = [
    {
      setupRequest: (req: { headers?: Record<string, string> }) => {
        req.headers = tokens.length
          ? { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` }
          : req.headers;
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

async function main() {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (
    spawnSync(process.execPath, [tsc, '-b', 'protocol', 'server'], { cwd: root, stdio: 'inherit' }).status !==
    0
  )
    throw new Error('tsc failed');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-reg-'));
  const [port, barePort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const password = randomBytes(12).toString('hex');
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HEARTH_')) env[k] = v;
  let server: Child | null = null;
  let bare: Child | null = null;
  try {
    // BENCH_PROFILE=<dir> writes a CPU profile of the server, to see where the time goes.
    const profile = process.env.BENCH_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
    server = spawnNode(
      'hearth',
      [...profile, path.join(root, 'server/dist/cli.js'), 'serve', '--no-worker'],
      {
        cwd: root,
        env: {
          ...env,
          HEARTH_DATA_DIR: dataDir,
          HEARTH_PORT: String(port),
          HEARTH_LOG_LEVEL: 'warn',
          HEARTH_BOOTSTRAP_ADMIN: `reg:${password}`,
        },
      },
    );
    await waitForOk(server, `${baseUrl}/healthz`);
    const signIn = await fetch(`${baseUrl}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'reg', password }),
    });
    const session = (await signIn.json()) as { household: { id: string }; csrf_token: string };
    const headers = {
      cookie: (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'x-csrftoken': session.csrf_token,
      'content-type': 'application/json',
    };
    const child = (await (
      await fetch(`${baseUrl}/api/user/create`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Kit' }),
      })
    ).json()) as { id: string };

    // Paired devices with enforcement on, written straight into the database: the check does its full work.
    const devices = Array.from({ length: DEVICES }, () => ({
      systemId: randomUUID(),
      token: randomBytes(32).toString('hex'),
    }));
    const db = openDatabase({ databaseUrl: null, dataDir });
    const at = new Date().toISOString();
    for (let i = 0; i < devices.length; i += 250) {
      const slice = devices.slice(i, i + 250);
      await db.kysely
        .insertInto('agent_device')
        .values(
          slice.map((d, j) => ({
            system_id: d.systemId,
            household_id: session.household.id,
            hostname: `pc-${i + j}`,
            display_name: null,
            platform: 'linux',
            status: 'approved' as const,
            agent_version: '0.57.0',
            linux_users: '[{"username":"kid"}]',
            secure_token_hash: sha256Hex(d.token),
            last_seen_at: at,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
      await db.kysely
        .insertInto('device_mapping')
        .values(
          slice.map((d) => ({
            id: randomUUID(),
            household_id: session.household.id,
            managed_user_id: child.id,
            system_id: d.systemId,
            linux_username: 'kid',
            created_at: at,
            enforce_signup_approvals: 1,
          })),
        )
        .execute();
    }
    await db.close();
    const first = devices[0];
    if (!first) throw new Error('no devices');
    const agentHeaders = { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' };
    const checkUrl = `${baseUrl}/api/registration/check?domain=games.example.com&linux_username=kid`;
    const answer = await (await fetch(checkUrl, { headers: agentHeaders })).text();
    if (!answer.includes('"allowed":false')) throw new Error(`unexpected check answer ${answer}`);

    const barePath = path.join(dataDir, 'bare.mjs');
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
    bare = spawnNode('bare', [barePath], { cwd: root, env });
    await waitForOk(bare, `http://127.0.0.1:${barePort}/api/registration/check`);

    const bareRun = await run(
      `http://127.0.0.1:${barePort}/api/registration/check?domain=games.example.com&linux_username=kid`,
      [],
    );
    const hearth = await run(
      checkUrl,
      devices.map((d) => d.token),
    );
    const m = describeMachine();
    const report = [
      '# GET /api/registration/check against a bare route',
      '',
      '| route | requests/s | p50 (ms) | p99 (ms) | requests |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| bare Fastify route, same JSON | ${bareRun.rps.toFixed(0)} | ${bareRun.p50} | ${bareRun.p99} | ${bareRun.total.toLocaleString('en')} |`,
      `| GET /api/registration/check (bearer, ${DEVICES} devices in turn; enforced, no grant) | ${hearth.rps.toFixed(0)} | ${hearth.p50} | ${hearth.p99} | ${hearth.total.toLocaleString('en')} |`,
      '',
      `Check / bare: **${((100 * hearth.rps) / bareRun.rps).toFixed(1)} %** (target ≥ 70 %); p99 ${hearth.p99} ms (target < 5 ms).`,
      '',
      `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform}`,
      `- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; code: ${gitRevision(root)}`,
      `- Server: compiled server/dist, SQLite, log level warn, no worker; autocannon ${CONNECTIONS} connections in the benchmark process, 2 s warm-up, ${DURATION} s measured; requests rotate over ${DEVICES} device tokens so none passes its 600-a-minute bearer limit.`,
    ].join('\n');
    console.log(`\n${report}\n`);
    mkdirSync(path.dirname(resultsFile), { recursive: true });
    writeFileSync(resultsFile, `${report}\n`);
  } finally {
    if (bare) await stopChild(bare);
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
