import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
} from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** Cheap liveness probe for /healthz. */
  ping(): Promise<void>;
  /**
   * Runs an already compiled read on the shortest path the dialect has (a cached prepared statement
   * on SQLite, the pool on PostgreSQL). Hot routes use it through `Prepared`.
   */
  reader<R>(sqlText: string): (params: readonly unknown[]) => Promise<R[]>;
  close(): Promise<void>;
}

export class SchemaTooNewError extends Error {}

const STATEMENT_CACHE_LIMIT = 500;

/**
 * Kysely's SQLite driver prepares every statement anew; caching the prepared statements by SQL text
 * removes that cost from every request (Kysely runs one query at a time on the connection, so sharing
 * a statement is safe).
 */
function cachingSqlite(file: string) {
  const raw = new SqliteDatabase(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    raw,
    adapter: {
      close: () => raw.close(),
      prepare(text: string) {
        let stmt = cache.get(text);
        if (!stmt) {
          if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
          stmt = raw.prepare(text);
          cache.set(text, stmt);
        }
        return stmt;
      },
    },
  };
}

/**
 * The data directory holds the database (enrolment and CSRF tokens among its rows) and the secret key:
 * it is made 0700 and every file directly in it 0600 for group and others, at creation and again at
 * each start, so a directory or files left readable by an older Hearth or a copy are tightened.
 */
export function secureDataDir(dataDir: string, create = true): void {
  if (create) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  else if (!existsSync(dataDir)) return;
  const tighten = (file: string, mode: number) => {
    try {
      if (statSync(file).mode & 0o077) chmodSync(file, mode);
    } catch (err) {
      // Not ours to change (another owner) or gone meanwhile: leave it as it is.
      if (!['EPERM', 'ENOENT'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  };
  tighten(dataDir, 0o700);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    const file = path.join(dataDir, entry.name);
    if (entry.isFile()) tighten(file, statSync(file).mode & 0o700);
    else if (entry.isDirectory()) tighten(file, 0o700);
  }
}

export function openDatabase(options: { databaseUrl: string | null; dataDir: string }): Db {
  // With PostgreSQL the directory holds only the secret key and artifacts, and may not exist at all.
  secureDataDir(options.dataDir, !options.databaseUrl);
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // Idle clients that lose the server must not crash the process.
    pool.on('error', () => {});
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      dialect: 'postgres',
      // Named statements: PostgreSQL plans each once per connection.
      reader: <R>(sqlText: string) => {
        const name = `hearth_${createHash('sha1').update(sqlText).digest('hex').slice(0, 16)}`;
        return async (params: readonly unknown[]) =>
          (await pool.query({ name, text: sqlText, values: params as unknown[] })).rows as R[];
      },
      ping: async () => {
        await sql`select 1`.execute(kysely);
      },
      close: () => kysely.destroy(),
    };
  }
  const file = path.join(options.dataDir, 'hearth.db');
  // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database's mode.
  closeSync(openSync(file, 'a', 0o600));
  const { raw, adapter } = cachingSqlite(file);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: adapter }) });
  return {
    kysely,
    dialect: 'sqlite',
    // better-sqlite3 is synchronous, so a read here never interleaves with another statement.
    // One prepared statement per reader, kept for the life of the connection.
    reader: <R>(sqlText: string) => {
      const statement = raw.prepare(sqlText);
      return async (params: readonly unknown[]) => {
        // While another request holds a transaction open on the connection, wait for it through
        // Kysely's lock rather than read its uncommitted rows.
        if (raw.inTransaction)
          return (await kysely.executeQuery<R>(CompiledQuery.raw(sqlText, [...params]))).rows;
        return statement.all(...params) as R[];
      };
    },
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}

const provider: MigrationProvider = {
  getMigrations: async (): Promise<Record<string, Migration>> => migrations,
};

/** Applies pending migrations; refuses a database written by a newer Hearth. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const known = new Set(Object.keys(migrations));
  const tables = await db.kysely.introspection.getTables({ withInternalKyselyTables: true });
  if (tables.some((t) => t.name === 'kysely_migration')) {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db.kysely);
    const unknown = rows.rows.map((r) => r.name).filter((name) => !known.has(name));
    if (unknown.length) {
      throw new SchemaTooNewError(
        `The database schema is newer than this version of Hearth (it has migration ${unknown.join(', ')}, which this version does not know). ` +
          'Run the newer Hearth release that wrote it, or point HEARTH_DATABASE_URL / HEARTH_DATA_DIR at another database.',
      );
    }
  }
  const migrator = new Migrator({ db: db.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
