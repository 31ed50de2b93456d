import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { migrateToLatest, openDatabase } from '../src/platform/db/database.js';
import { Prepared } from '../src/platform/db/prepared.js';

describe('prepared reads on SQLite', () => {
  test('wait for an open transaction instead of reading its uncommitted rows', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-prepared-'));
    const db = openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      await migrateToLatest(db);
      const households = new Prepared(db, (k, p) =>
        k.selectFrom('household').select('id').where('name', '=', p('name')),
      );
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const transaction = db.kysely.transaction().execute(async (trx) => {
        await trx
          .insertInto('household')
          .values({ id: 'h1', name: 'Pending', enrollment_token: 't1', created_at: '2026-01-01' })
          .execute();
        await held;
        throw new Error('roll back');
      });
      await new Promise((r) => setTimeout(r, 20));
      const read = households.all({ name: 'Pending' });
      release();
      await assert.rejects(transaction, /roll back/);
      assert.deepEqual(await read, [], 'the rolled-back row was never seen');
      assert.deepEqual(await households.all({ name: 'Pending' }), []);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
