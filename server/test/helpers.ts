import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import type { UsageApp } from '@hearth/protocol';
import pg from 'pg';
import pino from 'pino';
import type { ChannelTimings } from '../src/agent-channel/types.js';
import { type Config, loadConfig } from '../src/config.js';
import { UsageRepository } from '../src/features/usage/repository.js';
import { nowIso } from '../src/platform/clock.js';
import { newId, sha256Hex } from '../src/platform/crypto.js';
import type { AgentDeviceTable } from '../src/platform/db/schema.js';
import { type RunningServer, startServer } from '../src/server.js';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** Admin URL of the PostgreSQL server; each test server gets its own database on it. */
  adminUrl?: string;
}

/** SQLite always; PostgreSQL too when HEARTH_TEST_DATABASE_URL is set. */
export function testDatabases(): TestDatabase[] {
  const url = process.env.HEARTH_TEST_DATABASE_URL;
  return url ? [{ name: 'sqlite' }, { name: 'postgres', adminUrl: url }] : [{ name: 'sqlite' }];
}

let announced = false;
/** Prints once per test process why the PostgreSQL runs are absent. */
export function announcePostgres(): void {
  if (announced || process.env.HEARTH_TEST_DATABASE_URL) return;
  announced = true;
  console.log(
    '# skipping PostgreSQL runs: HEARTH_TEST_DATABASE_URL is not set (.ci/run sets it when PostgreSQL answers)',
  );
}

export async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createPostgresDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hearth_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

export interface TestServer extends RunningServer {
  config: Config;
  dataDir: string;
  /** ws:// address of the agent channel. */
  wsUrl: string;
  /** Environment that points another server at the same storage (restart tests). */
  storageEnv: Record<string, string>;
}

/**
 * The real server on a random port, on a fresh temporary SQLite file or PostgreSQL database. A restart
 * test passes a previous server's `storageEnv` back in and `keep: true` to the first one.
 */
export async function startTestServer(
  db: TestDatabase = { name: 'sqlite' },
  env: Record<string, string> = {},
  options: { keep?: boolean; timings?: Partial<ChannelTimings>; log?: pino.Logger } = {},
): Promise<TestServer> {
  const dataDir = env.HEARTH_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'hearth-test-'));
  const pgDb =
    db.name === 'postgres' && db.adminUrl && !env.HEARTH_DATABASE_URL
      ? await createPostgresDatabase(db.adminUrl)
      : null;
  const config = loadConfig({
    HEARTH_PORT: '0',
    HEARTH_HOST: '127.0.0.1',
    HEARTH_DATA_DIR: dataDir,
    HEARTH_LOG_LEVEL: 'silent',
    ...(pgDb ? { HEARTH_DATABASE_URL: pgDb.url } : {}),
    ...env,
  });
  const server = await startServer(config, {
    worker: false,
    log: options.log ?? pino({ level: 'silent' }),
    timings: options.timings,
  });
  return {
    ...server,
    config,
    dataDir,
    wsUrl: `${server.url.replace(/^http/, 'ws')}/ws`,
    storageEnv: {
      HEARTH_DATA_DIR: dataDir,
      ...(config.databaseUrl ? { HEARTH_DATABASE_URL: config.databaseUrl } : {}),
    },
    async close() {
      await server.close();
      if (options.keep) return;
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a suite declared with `describeWithServer` shares; filled in before its first test. */
export interface ServerSuite {
  db: TestDatabase;
  server: TestServer;
  /** The suite's household, its owner signed in; set when the suite names one. */
  home: Household;
}

/**
 * Declares a suite once per test database, each against its own real server: started (with the
 * named household) before the suite's own hooks run, closed after them.
 */
export function describeWithServer(
  title: string,
  options: { env?: Record<string, string>; household?: string; log?: pino.Logger },
  body: (ctx: ServerSuite) => void,
): void {
  announcePostgres();
  for (const db of testDatabases()) {
    describe(`${title} (${db.name})`, () => {
      const ctx = { db } as ServerSuite;
      before(async () => {
        ctx.server = await startTestServer(db, options.env, { log: options.log });
        if (options.household) ctx.home = await createHousehold(ctx.server, options.household);
      });
      body(ctx);
      after(() => ctx.server?.close());
    });
  }
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A browser-like HTTP client: keeps the session cookie and sends the CSRF token on changes. */
export class Client {
  cookie: string | null = null;
  csrf: string | null = null;

  constructor(readonly baseUrl: string) {}

  async request<T = any>(
    method: string,
    url: string,
    options: {
      json?: unknown;
      form?: Record<string, string>;
      raw?: string;
      headers?: Record<string, string>;
      csrf?: boolean;
    } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.raw !== undefined) {
      body = options.raw;
    }
    if (this.cookie) headers.cookie = this.cookie;
    const changing = !['GET', 'HEAD', 'OPTIONS'].includes(method);
    if (changing && this.csrf && options.csrf !== false && !('x-csrftoken' in headers))
      headers['x-csrftoken'] = this.csrf;
    // Each request on a connection of its own: after a long pause (a busy CI machine), a kept-alive
    // socket can be handed a request just as the server closes it, failing it with ECONNRESET.
    headers.connection ??= 'close';
    const res = await fetch(this.baseUrl + url, { method, headers, body, redirect: 'manual' });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie?.startsWith('hearth_session=')) {
      const value = setCookie.split(';')[0] ?? '';
      this.cookie = value === 'hearth_session=' ? null : value;
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text)
      parsed = JSON.parse(text);
    const reply = { status: res.status, headers: res.headers, body: parsed as T, text };
    const csrf = (parsed as { csrf_token?: unknown } | null)?.csrf_token;
    if (typeof csrf === 'string' && res.ok) this.csrf = csrf;
    return reply;
  }

  get = <T = any>(url: string, headers?: Record<string, string>) => this.request<T>('GET', url, { headers });
  post = <T = any>(url: string, json?: unknown) =>
    this.request<T>('POST', url, json === undefined ? {} : { json });
  patch = <T = any>(url: string, json?: unknown) => this.request<T>('PATCH', url, { json });
  delete = <T = any>(url: string) => this.request<T>('DELETE', url);

  async signIn(username: string, password: string): Promise<Reply> {
    return this.post('/api/session', { username, password });
  }
}

export const PASSWORD = 'correct horse battery staple';

export interface Household {
  client: Client;
  householdId: string;
  parentId: string;
  username: string;
}

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}${++counter}_${Math.random().toString(36).slice(2, 7)}`;

/**
 * A new household with its owner signed in: through POST /api/setup while the server has no parent,
 * then through the same household service that open sign-up uses.
 */
export async function createHousehold(server: TestServer, name = 'Household'): Promise<Household> {
  const client = new Client(server.url);
  const username = uniqueName('owner');
  const body = { username, password: PASSWORD, household_name: name };
  const res = await client.post('/api/setup', body);
  if (res.status === 201)
    return { client, householdId: res.body.household.id, parentId: res.body.parent.id, username };
  if (res.status !== 409) throw new Error(`could not set up: ${res.status} ${res.text}`);
  await server.services.auth.createHouseholdWithOwner(body, false);
  const signed = await client.signIn(username, PASSWORD);
  if (signed.status !== 200) throw new Error(`could not sign in: ${signed.status} ${signed.text}`);
  return { client, householdId: signed.body.household.id, parentId: signed.body.parent.id, username };
}

/** Adds a parent to a household through the parents route and signs them in. */
export async function addParent(
  server: TestServer,
  owner: Household,
  role: 'owner' | 'admin' | 'member',
  children: { managed_user_id: string; can_view: boolean; can_manage_policies: boolean }[] = [],
): Promise<Client> {
  const username = uniqueName(role);
  const res = await owner.client.post('/api/household/parents', {
    username,
    password: PASSWORD,
    role,
    children,
  });
  if (res.status !== 201) throw new Error(`could not add parent: ${res.status} ${res.text}`);
  const client = new Client(server.url);
  const signed = await client.signIn(username, PASSWORD);
  if (signed.status !== 200) throw new Error(`could not sign in: ${signed.status} ${signed.text}`);
  return client;
}

/**
 * Devices arrive over the agent channel (a later issue); until then tests create them through the
 * device repository, the one place that writes them.
 */
export async function createDevice(
  server: RunningServer,
  householdId: string,
  overrides: Partial<AgentDeviceTable> & { linux_users?: string } = {},
): Promise<AgentDeviceTable & { secure_token: string }> {
  const { DeviceRepository } = await import('../src/features/devices/repository.js');
  const at = nowIso();
  const secureToken = newId().replaceAll('-', '');
  const row: AgentDeviceTable = {
    system_id: newId(),
    household_id: householdId,
    hostname: 'kids-laptop',
    display_name: null,
    platform: 'linux',
    status: 'approved',
    agent_version: '0.57.0',
    linux_users: JSON.stringify([{ username: 'ann' }]),
    secure_token_hash: sha256Hex(secureToken),
    last_seen_at: at,
    created_at: at,
    updated_at: at,
    ...overrides,
  };
  await new DeviceRepository(server.services.db.kysely).insert(row);
  return { ...row, secure_token: secureToken };
}

/** Records a day of use for a device account, as the agent channel's usage reports will. */
export async function recordUsage(
  server: RunningServer,
  systemId: string,
  linuxUsername: string,
  date: string,
  seconds: number,
  apps: UsageApp[] = [],
) {
  await new UsageRepository(server.services.db).recordUsage(
    systemId,
    linuxUsername,
    date,
    seconds,
    apps,
    nowIso(),
  );
}

/** The household's enrollment token, read the way the admin UI does. */
export async function enrollmentToken(owner: Household): Promise<string> {
  const res = await owner.client.get('/api/pairing/config');
  if (res.status !== 200) throw new Error(`pairing config: ${res.status} ${res.text}`);
  return res.body.enrollment_token;
}

/** Reads Server-Sent Events from a real HTTP stream. */
export class SseReader {
  readonly events: { id: string; event: string; data: any }[] = [];
  comments = 0;
  private buffer = '';
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];
  status = 0;

  static async open(url: string, cookie: string, lastEventId?: string): Promise<SseReader> {
    const reader = new SseReader();
    const res = await fetch(url, {
      headers: {
        cookie,
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      signal: reader.controller.signal,
    });
    reader.status = res.status;
    if (res.body) void reader.pump(res.body);
    return reader;
  }

  private async pump(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let end = this.buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) this.comments++;
            const i = line.indexOf(': ');
            if (i > 0) fields[line.slice(0, i)] = line.slice(i + 2);
          }
          if (fields.event && fields.data)
            this.events.push({ id: fields.id ?? '', event: fields.event, data: JSON.parse(fields.data) });
          for (const w of this.waiters.splice(0)) w();
          end = this.buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted
    }
    this.ended = true;
    for (const w of this.waiters.splice(0)) w();
  }

  /** True once the server ended the stream. */
  ended = false;

  // A bound for an event that is due (CI runs on two busy cores), never a wait.
  async next(match: (e: { event: string; data: any }) => boolean, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no matching event; saw ${this.events.map((e) => e.event).join(', ')}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  close() {
    this.controller.abort();
  }
}

/**
 * Settles with what `work` settles with, or with 'timed out' once `ms` have passed: for a test whose
 * failure would otherwise be a wait that never ends (a close held open), so it fails in words instead.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | 'timed out'> {
  let bound: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => {
    bound = setTimeout(() => resolve('timed out'), ms);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(bound);
  }
}

/** `work`, or an error naming `what` once `ms` have passed. */
export async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  const value = await within(work, ms);
  if (value === 'timed out') throw new Error(`${what} did not finish within ${ms / 1000} s`);
  return value;
}

/** A port the OS just handed out and released, for a child process to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
