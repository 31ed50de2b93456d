import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase, SchemaTooNewError } from '../src/platform/db/database.js';
import { migrations } from '../src/platform/db/migrations/index.js';
import { announcePostgres, createPostgresDatabase, testDatabases } from './helpers.js';

announcePostgres();

for (const db of testDatabases()) {
  describe(`migrations (${db.name})`, () => {
    test('apply once, are idempotent, and refuse a schema written by a newer Hearth', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-mig-'));
      const pgDb = db.adminUrl ? await createPostgresDatabase(db.adminUrl) : null;
      const database = openDatabase({ databaseUrl: pgDb?.url ?? null, dataDir });
      try {
        assert.deepEqual(await migrateToLatest(database), Object.keys(migrations));
        assert.deepEqual(await migrateToLatest(database), []);
        const tables = (await database.kysely.introspection.getTables()).map((t) => t.name);
        for (const t of ['household', 'parent', 'session', 'managed_user', 'agent_device', 'device_mapping'])
          assert.ok(tables.includes(t), t);

        await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2030-01-01T00:00:00.000Z')`.execute(
          database.kysely,
        );
        await assert.rejects(migrateToLatest(database), (err: Error) => {
          assert.ok(err instanceof SchemaTooNewError);
          assert.match(err.message, /newer than this version of Hearth/);
          assert.match(err.message, /9999-from-the-future/);
          return true;
        });
      } finally {
        await database.close();
        await pgDb?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    if (db.name === 'sqlite') {
      test('SQLite runs in WAL mode with foreign keys enforced', async () => {
        const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-mig-'));
        const database = openDatabase({ databaseUrl: null, dataDir });
        try {
          await migrateToLatest(database);
          const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(database.kysely);
          assert.equal(mode.rows[0]?.journal_mode, 'wal');
          await assert.rejects(
            database.kysely
              .insertInto('parent')
              .values({
                id: 'p',
                household_id: 'missing',
                username: 'u',
                username_key: 'u',
                password_hash: 'x',
                role: 'owner',
                created_at: '',
                updated_at: '',
              })
              .execute(),
            /FOREIGN KEY/,
          );
        } finally {
          await database.close();
          rmSync(dataDir, { recursive: true, force: true });
        }
      });
    }
  });
}
