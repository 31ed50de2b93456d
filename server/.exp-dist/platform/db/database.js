import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.js';
export class SchemaTooNewError extends Error {}
const STATEMENT_CACHE_LIMIT = 500;
/**
 * Kysely's SQLite driver prepares every statement anew; caching the prepared statements by SQL text
 * removes that cost from every request (Kysely runs one query at a time on the connection, so sharing
 * a statement is safe).
 */
process.on('exit', () => {
  for (const [k, [t, n]] of globalThis.__sq ?? [])
    console.error(`${k}: ${n} calls, ${(Number(t) / 1000 / n).toFixed(1)} µs each`);
});
function cachingSqlite(file) {
  const raw = new SqliteDatabase(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const cache = new Map();
  return {
    raw,
    adapter: {
      close: () => raw.close(),
      prepare(text) {
        let stmt = cache.get(text);
        if (!stmt) {
          if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
          stmt = raw.prepare(text);
          cache.set(text, stmt);
        }
        const t0 = process.hrtime.bigint();
        const st = stmt;
        globalThis.__prep = (globalThis.__prep ?? 0n) + (process.hrtime.bigint() - t0);
        return {
          reader: st.reader,
          all(p) {
            const t = process.hrtime.bigint();
            const r = st.all(p);
            const d = process.hrtime.bigint() - t;
            const k = text.slice(0, 40);
            const m = (globalThis.__sq ??= new Map());
            const e = m.get(k) ?? [0n, 0];
            e[0] += d;
            e[1]++;
            m.set(k, e);
            return r;
          },
          run: (p) => st.run(p),
        };
      },
    },
  };
}
export function openDatabase(options) {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // Idle clients that lose the server must not crash the process.
    pool.on('error', () => {});
    const kysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      dialect: 'postgres',
      ping: async () => {
        await sql`select 1`.execute(kysely);
      },
      close: () => kysely.destroy(),
    };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const { adapter } = cachingSqlite(path.join(options.dataDir, 'hearth.db'));
  const kysely = new Kysely({ dialect: new SqliteDialect({ database: adapter }) });
  return {
    kysely,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}
const provider = {
  getMigrations: async () => migrations,
};
/** Applies pending migrations; refuses a database written by a newer Hearth. */
export async function migrateToLatest(db) {
  const known = new Set(Object.keys(migrations));
  const tables = await db.kysely.introspection.getTables({ withInternalKyselyTables: true });
  if (tables.some((t) => t.name === 'kysely_migration')) {
    const rows = await sql`select name from kysely_migration`.execute(db.kysely);
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
//# sourceMappingURL=database.js.map
