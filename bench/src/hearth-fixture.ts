// What the benchmarks share: the compiled server started in a child process on a temporary SQLite
// data directory, its owner signed in, devices written straight into its database, and the report.
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../server/src/platform/crypto.js';
import { openDatabase } from '../../server/src/platform/db/database.js';
import { describeMachine, gitRevision } from './machine.js';
import { type Child, freePort, spawnNode, stopChild, waitForOk } from './processes.js';

export const benchDir = path.resolve(import.meta.dirname, '..');
export const root = path.resolve(benchDir, '..');

export interface Hearth {
  baseUrl: string;
  wsUrl: string;
  port: number;
  dataDir: string;
  pid: number;
  householdId: string;
  /** Cookie and CSRF headers of the signed-in owner, for session routes. */
  owner: { cookie: string; 'x-csrftoken': string; 'content-type': string };
  /**
   * Stops the server and starts it again on the same data directory and port (a new process: nothing
   * kept in memory survives); the owner signs in again, and `pid` and `owner` change.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface HearthOptions {
  /** Run the worker loop in the server process too (`hearth serve`); by default `--no-worker`. */
  worker?: boolean;
}

export interface SeededDevice {
  systemId: string;
  token: string;
}

/** Builds the server (incremental) so a stale dist is never measured. */
export function buildServer(): void {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (
    spawnSync(process.execPath, [tsc, '-b', 'protocol', 'server'], { cwd: root, stdio: 'inherit' }).status !==
    0
  ) {
    throw new Error('tsc -b protocol server failed; cannot run the compiled server');
  }
}

/** The environment without the developer's own HEARTH_* settings. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HEARTH_')) env[k] = v;
  return env;
}

/**
 * Starts compiled Hearth with a bootstrap owner and signs in. BENCH_PROFILE=<dir> writes a CPU profile
 * of the server there, to see where the time goes.
 */
export async function startHearth(
  name: string,
  env: Record<string, string> = {},
  options: HearthOptions = {},
): Promise<Hearth> {
  buildServer();
  const dataDir = mkdtempSync(path.join(tmpdir(), `hearth-${name}-`));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const password = randomBytes(12).toString('hex');
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const args = [
    ...profile,
    path.join(root, 'server/dist/cli.js'),
    'serve',
    ...(options.worker ? [] : ['--no-worker']),
  ];
  let child: Child | null = null;

  /** One server process on the data directory, answering and with the owner signed in. */
  const launch = async () => {
    child = spawnNode('hearth', args, {
      cwd: root,
      env: {
        ...cleanEnv(),
        HEARTH_DATA_DIR: dataDir,
        HEARTH_PORT: String(port),
        HEARTH_LOG_LEVEL: 'warn',
        HEARTH_BOOTSTRAP_ADMIN: `bench:${password}`,
        ...env,
      },
    });
    await waitForOk(child, `${baseUrl}/healthz`);
    const signIn = await fetch(`${baseUrl}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password }),
    });
    if (signIn.status !== 200) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`);
    const session = (await signIn.json()) as { household: { id: string }; csrf_token: string };
    return {
      pid: child.process.pid ?? 0,
      householdId: session.household.id,
      owner: {
        cookie: (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
        'x-csrftoken': session.csrf_token,
        'content-type': 'application/json',
      },
    };
  };
  const stopRunning = async () => {
    if (child) await stopChild(child);
  };

  try {
    const first = await launch();
    const hearth: Hearth = {
      baseUrl,
      wsUrl: `ws://127.0.0.1:${port}/ws`,
      port,
      dataDir,
      ...first,
      async restart() {
        await stopRunning();
        const next = await launch();
        hearth.pid = next.pid;
        hearth.owner = next.owner;
      },
      async stop() {
        await stopRunning();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
    return hearth;
  } catch (err) {
    await stopRunning();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** A session route call as the owner; fails loudly on an unexpected status. */
export async function ownerCall<T>(hearth: Hearth, method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${hearth.baseUrl}${url}`, {
    method,
    headers: hearth.owner,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * Writes approved devices (each with account "kid" and its own token) straight into the server's
 * database: approving thousands by hand is not what these benchmarks measure. With `mapTo`, each
 * device's account is mapped to that child, sign-up enforcement as given.
 */
export async function seedDevices(
  hearth: Hearth,
  count: number,
  options: { mapTo?: string; enforceSignup?: boolean } = {},
): Promise<SeededDevice[]> {
  const devices = Array.from({ length: count }, () => ({
    systemId: randomUUID(),
    token: randomBytes(32).toString('hex'),
  }));
  const db = openDatabase({ databaseUrl: null, dataDir: hearth.dataDir });
  const at = new Date().toISOString();
  try {
    for (let i = 0; i < devices.length; i += 250) {
      const slice = devices.slice(i, i + 250);
      await db.kysely
        .insertInto('agent_device')
        .values(
          slice.map((d, j) => ({
            system_id: d.systemId,
            household_id: hearth.householdId,
            hostname: `bench-${i + j}`,
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
      if (options.mapTo) {
        const child = options.mapTo;
        await db.kysely
          .insertInto('device_mapping')
          .values(
            slice.map((d) => ({
              id: randomUUID(),
              household_id: hearth.householdId,
              managed_user_id: child,
              system_id: d.systemId,
              linux_username: 'kid',
              created_at: at,
              enforce_signup_approvals: options.enforceSignup ? 1 : 0,
            })),
          )
          .execute();
      }
    }
  } finally {
    await db.close();
  }
  return devices;
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** The closing lines every result carries: machine, date and code. */
export function provenance(): string[] {
  const m = describeMachine();
  return [
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform}`,
    `- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; code: ${gitRevision(root)}`,
  ];
}

/** Prints a result and keeps it in bench/results/<name>.md. */
export function writeResult(name: string, lines: string[]): void {
  const report = lines.join('\n');
  console.log(`\n${report}\n`);
  const file = path.join(benchDir, 'results', `${name}.md`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${report}\n`);
}

/** Runs a benchmark's main and always exits. */
export function run(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
