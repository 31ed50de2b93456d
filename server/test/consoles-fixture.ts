// Shared parts of the console tests: the vendor simulators, a server pointed at them, a linked account.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type NintendoSimulator,
  startNintendoSimulator,
  startXboxSimulator,
  type XboxSimulator,
} from '@hearth/simulators';
import {
  createPostgresDatabase,
  type Household,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from './helpers.js';

export interface Simulators {
  xbox: XboxSimulator;
  nintendo: NintendoSimulator;
  close(): Promise<void>;
}

export async function startSimulators(): Promise<Simulators> {
  const [xbox, nintendo] = await Promise.all([startXboxSimulator(), startNintendoSimulator()]);
  return {
    xbox,
    nintendo,
    async close() {
      await Promise.all([xbox.close(), nintendo.close()]);
    },
  };
}

/** The HEARTH_* variables that point a server at the simulators. */
export const simulatorEnv = (sims: Simulators): Record<string, string> => ({
  HEARTH_XBOX_AUTH_BASE: sims.xbox.authBase,
  HEARTH_XBOX_API_BASE: sims.xbox.apiBase,
  HEARTH_NINTENDO_AUTH_BASE: sims.nintendo.authBase,
  HEARTH_NINTENDO_API_BASE: sims.nintendo.apiBase,
});

export function startConsoleServer(
  db: TestDatabase,
  sims: Simulators,
  env: Record<string, string> = {},
  options: { keep?: boolean } = {},
): Promise<TestServer> {
  return startTestServer(db, { ...simulatorEnv(sims), ...env }, options);
}

/**
 * Storage that outlives one server process (a data directory, and a PostgreSQL database when the
 * suite runs on one), for tests that restart the server; `drop` removes it.
 */
export async function lastingStorage(db: TestDatabase) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-consoles-'));
  const pg = db.name === 'postgres' && db.adminUrl ? await createPostgresDatabase(db.adminUrl) : null;
  return {
    env: { HEARTH_DATA_DIR: dataDir, ...(pg ? { HEARTH_DATABASE_URL: pg.url } : {}) } as Record<
      string,
      string
    >,
    async drop() {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A call to a simulator's control API. */
export async function sim(
  base: string,
  method: 'GET' | 'POST' | 'DELETE',
  route: string,
  body?: unknown,
): Promise<any> {
  const res = await fetch(`${base}/_sim${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `simulator ${method} ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The vendor's sign-in page, followed as a parent would: the address it ends on. */
export async function signInAtVendor(loginUrl: string): Promise<string> {
  const res = await fetch(loginUrl, { headers: { accept: 'application/json' } });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text).redirect_url;
}

/** Links the household's account of `provider` through the routes, as the wizard does. */
export async function linkAccount(owner: Household, provider: 'xbox' | 'nintendo'): Promise<void> {
  const start = await owner.client.get(`/api/${provider}/login-url`);
  assert.equal(start.status, 200, start.text);
  const redirect = await signInAtVendor(start.body.url);
  const linked = await owner.client.post(`/api/${provider}/authenticate`, {
    redirect_url: redirect,
    state: start.body.state,
  });
  assert.equal(linked.status, 200, linked.text);
  assert.equal(linked.body.linked, true);
}

/** Everything stored on disk for a SQLite server (the database and its journal). */
export function storedBytes(server: TestServer): string {
  if (server.config.databaseUrl) return '';
  const file = path.join(server.dataDir, 'hearth.db');
  let text = readFileSync(file).toString('latin1');
  try {
    text += readFileSync(`${file}-wal`).toString('latin1');
  } catch {
    // no write-ahead log
  }
  return text;
}

/** The household's stored link row for `provider` (secrets sealed), or undefined. */
export function storedLink(server: TestServer, householdId: string, provider: 'xbox' | 'nintendo') {
  return server.services.db.kysely
    .selectFrom('console_link')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}
