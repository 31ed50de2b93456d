// Issue 2's benchmark: GET /api/users on the real Hearth server against a bare Fastify route that
// answers the same body, plus /healthz, and (issue 13) GET /api/dashboard of the same household
// against GET /api/users. `npm run bench` at the repository root runs it; see BENCHMARKS.md.
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../server/src/platform/db/database.js';
import { LoadError, type LoadOptions, loadOptionsFromEnv, measureInTurns } from './load.js';
import { cpuSnapshot, describeMachine, gitRevision, otherCpuShare } from './machine.js';
import { type Child, freePort, spawnNode, stopChild, waitForOk } from './processes.js';
import { BUSY_MACHINE, formatUsersVsBare, type RouteResult } from './report.js';

const benchDir = path.resolve(import.meta.dirname, '..');
const root = path.resolve(benchDir, '..');
const resultsFile = path.join(benchDir, 'results', 'users-vs-bare.md');
const tsxLoader = import.meta.resolve('tsx');

const CHILDREN = ['Ada', 'Ben', 'Cleo', 'Dev', 'Esme'];
/** What the dashboard shows besides the children: each child's two devices, and what waits. */
const DEVICES_PER_CHILD = 2;
const PENDING_DEVICES = 2;
const ALERTS = 200;
const PENDING_APPROVALS = 5;

class BenchError extends Error {}

/** The environment without the developer's HEARTH_* settings (a .env-style database URL, a port). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('HEARTH_')) env[key] = value;
  return { ...env, ...extra };
}

/** Production runs the compiled server; BENCH_SERVER=source runs the TypeScript sources through tsx. */
function serverCommand(): { args: string[]; description: string } {
  const mode = process.env.BENCH_SERVER?.trim() || 'dist';
  if (mode === 'source') {
    return {
      args: ['--conditions=hearth-source', '--import', tsxLoader, path.join(root, 'server/src/cli.ts')],
      description: 'server sources through tsx',
    };
  }
  if (mode !== 'dist') throw new BenchError(`BENCH_SERVER must be "dist" or "source", got "${mode}"`);
  // Incremental, so cheap when nothing changed; it keeps a stale dist from being measured. Only the
  // server and its protocol: the admin UI plays no part here.
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', 'protocol', 'server'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0)
    throw new BenchError('tsc -b protocol server failed; cannot run the compiled server');
  return { args: [path.join(root, 'server/dist/cli.js')], description: 'compiled server/dist' };
}

async function expectStatus(res: Response, status: number, what: string): Promise<string> {
  const text = await res.text();
  if (res.status !== status) throw new BenchError(`${what}: expected ${status}, got ${res.status}: ${text}`);
  return text;
}

/** Signs in as the owner and adds the children, through the same routes the admin UI uses. */
async function seedHousehold(baseUrl: string, username: string, password: string) {
  const signIn = await fetch(`${baseUrl}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const view = JSON.parse(await expectStatus(signIn, 200, 'sign-in')) as { csrf_token: string };
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .find((c) => c.startsWith('hearth_session='));
  if (!cookie) throw new BenchError('sign-in set no hearth_session cookie');
  for (const name of CHILDREN) {
    const res = await fetch(`${baseUrl}/api/user/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrftoken': view.csrf_token },
      body: JSON.stringify({ name }),
    });
    await expectStatus(res, 201, `creating child ${name}`);
  }
  return { cookie, csrf: view.csrf_token };
}

/**
 * Gives the household what a dashboard shows: two approved devices per child, each mapped through
 * the route the admin UI uses, with today's use; two pending devices; alerts, half of them unread;
 * pending approval requests. Devices, use, alerts and requests are written straight into the
 * database, as the agents' reports would have.
 */
async function seedDashboard(baseUrl: string, dataDir: string, auth: { cookie: string; csrf: string }) {
  const users = await getBody(`${baseUrl}/api/users`, { cookie: auth.cookie });
  const children = (JSON.parse(users.text) as { items: { id: string }[] }).items;
  const db = openDatabase({ databaseUrl: null, dataDir });
  try {
    const household = await db.kysely.selectFrom('household').select('id').executeTakeFirstOrThrow();
    const at = new Date().toISOString();
    const today = at.slice(0, 10);
    const device = (i: number, status: 'approved' | 'pending') => ({
      system_id: randomUUID(),
      household_id: household.id,
      hostname: `bench-${i}`,
      display_name: null,
      platform: 'linux',
      status,
      agent_version: '0.57.0',
      linux_users: '[{"username":"kid"}]',
      secure_token_hash: null,
      last_seen_at: at,
      created_at: at,
      updated_at: at,
    });
    const mapped = children.flatMap((child, c) =>
      Array.from({ length: DEVICES_PER_CHILD }, (_, d) => ({
        child: child.id,
        row: device(c * DEVICES_PER_CHILD + d, 'approved'),
      })),
    );
    const pending = Array.from({ length: PENDING_DEVICES }, (_, i) => device(1000 + i, 'pending'));
    await db.kysely
      .insertInto('agent_device')
      .values([...mapped.map((m) => m.row), ...pending])
      .execute();
    for (const m of mapped) {
      const res = await fetch(`${baseUrl}/managed-users/${m.child}/mappings/add`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: auth.cookie, 'x-csrftoken': auth.csrf },
        body: JSON.stringify({ system_id: m.row.system_id, linux_username: 'kid' }),
      });
      await expectStatus(res, 201, 'mapping a device');
    }
    await db.kysely
      .insertInto('usage_day')
      .values(
        mapped.map((m, i) => ({
          system_id: m.row.system_id,
          linux_username: 'kid',
          date: today,
          seconds_used: 600 + i * 60,
          updated_at: at,
        })),
      )
      .execute();
    const alerts = Array.from({ length: ALERTS }, (_, i) => {
      const m = mapped[i % mapped.length];
      return {
        id: randomUUID(),
        household_id: household.id,
        kind: 'clock_tamper',
        system_id: m?.row.system_id ?? null,
        linux_username: 'kid',
        managed_user_id: m?.child ?? null,
        payload: '{"skew_seconds":3600}',
        created_at: new Date(Date.now() - i * 60_000).toISOString(),
        acknowledged_at: i % 2 ? at : null,
      };
    });
    for (let i = 0; i < alerts.length; i += 50)
      await db.kysely
        .insertInto('alert')
        .values(alerts.slice(i, i + 50))
        .execute();
    const mappings = await db.kysely.selectFrom('device_mapping').select(['id', 'system_id']).execute();
    await db.kysely
      .insertInto('approval_request')
      .values(
        mapped.slice(0, PENDING_APPROVALS).map((m) => ({
          id: randomUUID(),
          household_id: household.id,
          type: 'time_extension' as const,
          status: 'pending' as const,
          mapping_id: mappings.find((x) => x.system_id === m.row.system_id)?.id ?? null,
          managed_user_id: m.child,
          system_id: m.row.system_id,
          linux_username: 'kid',
          domain: null,
          url: null,
          details: '{"minutes":30}',
          requested_at: at,
          decided_at: null,
          decided_by: null,
          grant: null,
        })),
      )
      .execute();
  } finally {
    await db.close();
  }
  const dashboard = JSON.parse((await getBody(`${baseUrl}/api/dashboard`, { cookie: auth.cookie })).text);
  const shown = `${dashboard.users.length} children, ${dashboard.devices.length} devices, ${dashboard.recent_alerts.length} recent alerts`;
  if (
    dashboard.users.length !== CHILDREN.length ||
    dashboard.devices.length !== CHILDREN.length * DEVICES_PER_CHILD + PENDING_DEVICES ||
    dashboard.counts.pending_approvals !== PENDING_APPROVALS ||
    dashboard.counts.unread_alerts !== ALERTS / 2
  )
    throw new BenchError(`GET /api/dashboard does not show the seeded household: ${shown}`);
  return shown;
}

async function getBody(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await expectStatus(res, 200, `GET ${url}`);
  return { text, contentType: res.headers.get('content-type') };
}

const children: Child[] = [];
let dataDir: string | null = null;
let cleaning: Promise<void> | null = null;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.allSettled(children.map((child) => stopChild(child)));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  })();
  return cleaning;
}

async function run(options: LoadOptions): Promise<void> {
  const server = serverCommand();
  dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-'));
  const port = await freePort();
  const username = 'bench';
  const password = randomBytes(18).toString('base64url');
  const baseUrl = `http://127.0.0.1:${port}`;

  console.log(`# starting Hearth (${server.description}) on ${baseUrl}`);
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops, for finding hot
  // spots. A relative directory is taken from where `npm run bench` was typed (npm's INIT_CWD).
  const profileDir = process.env.BENCH_CPU_PROF?.trim();
  const profile = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.INIT_CWD ?? process.cwd(), profileDir)}`]
    : [];
  // cwd is the temporary directory so no developer .env is read.
  const hearth = spawnNode('Hearth server', [...profile, ...server.args, 'serve', '--no-worker'], {
    cwd: dataDir,
    env: cleanEnv({
      HEARTH_DATA_DIR: dataDir,
      HEARTH_HOST: '127.0.0.1',
      HEARTH_PORT: String(port),
      HEARTH_LOG_LEVEL: 'silent',
      HEARTH_BOOTSTRAP_ADMIN: `${username}:${password}`,
    }),
  });
  children.push(hearth);
  await waitForOk(hearth, `${baseUrl}/healthz`);

  const auth = await seedHousehold(baseUrl, username, password);
  const { cookie } = auth;
  // Before the bare route copies the children list: its body then carries the mappings too.
  const dashboardShows = await seedDashboard(baseUrl, dataDir, auth);
  console.log(`# the dashboard shows ${dashboardShows}`);
  const users = await getBody(`${baseUrl}/api/users`, { cookie });
  const listed = (JSON.parse(users.text) as { items: unknown[] }).items.length;
  if (listed !== CHILDREN.length) throw new BenchError(`GET /api/users listed ${listed} children, not 5`);

  const bodyFile = path.join(dataDir, 'users.json');
  writeFileSync(bodyFile, users.text);
  const barePort = await freePort();
  const bareUrl = `http://127.0.0.1:${barePort}/api/users`;
  console.log(`# starting the bare Fastify route on ${bareUrl}`);
  const bare = spawnNode(
    'bare Fastify server',
    ['--import', tsxLoader, path.join(benchDir, 'src/bare-server.ts')],
    {
      cwd: benchDir,
      env: cleanEnv({ BENCH_BARE_BODY_FILE: bodyFile, BENCH_BARE_PORT: String(barePort) }),
    },
  );
  children.push(bare);
  await waitForOk(bare, bareUrl);
  const bareBody = await getBody(bareUrl);
  if (bareBody.text !== users.text || bareBody.contentType !== users.contentType) {
    throw new BenchError(
      `the bare route does not answer like Hearth:\n  ${users.contentType} ${users.text}\n  ${bareBody.contentType} ${bareBody.text}`,
    );
  }

  const pids = [process.pid, hearth.process.pid ?? -1, bare.process.pid ?? -1];
  const targets = [
    { label: 'bare Fastify route, same body', url: bareUrl },
    { label: 'GET /api/users (session cookie)', url: `${baseUrl}/api/users`, headers: { cookie } },
    { label: 'GET /healthz', url: `${baseUrl}/healthz` },
    { label: 'GET /api/dashboard (session cookie)', url: `${baseUrl}/api/dashboard`, headers: { cookie } },
  ];
  console.log(
    `# ${options.warmup} s warm-up each, then ${options.rounds} rounds of ${options.duration} s per route, the routes taking turns`,
  );
  // The most CPU other processes took during any one measured run of each route.
  const otherCpu: (number | null)[] = targets.map(() => 0);
  let snapshot = cpuSnapshot(pids);
  const turns = await measureInTurns(targets, options, {
    round: (n) => console.log(`# round ${n} of ${options.rounds}`),
    before: () => {
      snapshot = cpuSnapshot(pids);
    },
    after: (index) => {
      const share = otherCpuShare(snapshot, cpuSnapshot(pids));
      const seen = otherCpu[index];
      otherCpu[index] = share === null || seen === null ? null : Math.max(seen ?? 0, share);
      if (share !== null && share > BUSY_MACHINE)
        console.warn(
          `# warning: other processes took ${(share * 100).toFixed(0)} % of the CPU during ${targets[index]?.label}; the figures are unreliable`,
        );
    },
  });
  const results: RouteResult[] = turns.map((t, i) => ({ ...t, otherCpu: otherCpu[i] ?? null }));
  const [bareResult, usersResult, healthzResult, dashboardResult] = results as [
    RouteResult,
    RouteResult,
    RouteResult,
    RouteResult,
  ];

  const report = formatUsersVsBare({
    bare: bareResult,
    users: usersResult,
    healthz: healthzResult,
    dashboard: dashboardResult,
    dashboardShows,
    server: server.description,
    revision: gitRevision(root),
    options,
    machine: describeMachine(),
    date: new Date(),
  });
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `# GET /api/users vs a bare Fastify route, and GET /api/dashboard\n\n${report}`);
  console.log(`\n${report}`);
  console.log(`# written to ${path.relative(root, resultsFile)}`);
}

process.once('SIGINT', () => {
  console.error('# interrupted; stopping the servers');
  void cleanUp().finally(() => process.exit(130));
});

let exitCode = 0;
try {
  await run(loadOptionsFromEnv());
} catch (err) {
  exitCode = 1;
  console.error(`\nbenchmark failed: ${err instanceof Error ? err.message : String(err)}`);
  if (!(err instanceof BenchError || err instanceof LoadError) && err instanceof Error && err.stack)
    console.error(err.stack);
  // A server that died under load explains the errors better than the error count does.
  for (const child of children) {
    const how = child.exitStatus();
    if (how)
      console.error(`\n${child.name} exited during the run (${how}); its last output:\n${child.output()}`);
  }
} finally {
  await cleanUp();
}
// Always exit, even if a socket or timer is still open somewhere.
process.exit(exitCode);
