import { type Kysely, PostgresAdapter } from 'kysely';

// DESIGN §12: device policies (Linux per mapping; Android per mapping and device-wide), each one row
// with its document, its version and its delivery state; screenshots (the bytes in a file under
// <data>/screenshots/, or in `data` on PostgreSQL with HEARTH_SCREENSHOT_STORAGE=database); and per
// mapping the periodic screenshot interval.
export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema
    .createTable('device_policy')
    /** `mapping:<id>` or `device:<system_id>` (the Android device-wide policy). */
    .addColumn('scope_key', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    /** Null for a device-wide policy; the mapping's removal takes its policy with it. */
    .addColumn('mapping_id', 'text', (c) => c.references('device_mapping.id').onDelete('cascade'))
    .addColumn('linux_username', 'text')
    /** linux | android */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    /** The document as JSON. */
    .addColumn('policy', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    /** pending | synced | failed | unsupported, of `version`. */
    .addColumn('sync_status', 'text', (c) => c.notNull())
    .addColumn('applied_version', 'integer')
    .addColumn('last_attempt_at', 'text')
    .addColumn('error', 'text')
    /** JSON object of the agent's per-rule outcomes, as last reported. */
    .addColumn('rules', 'text')
    .execute();
  await db.schema.createIndex('device_policy_device').on('device_policy').column('system_id').execute();
  await db.schema.createIndex('device_policy_mapping').on('device_policy').column('mapping_id').execute();

  await db.schema
    .createTable('screenshot')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('linux_username', 'text', (c) => c.notNull())
    .addColumn('managed_user_id', 'text')
    .addColumn('request_id', 'text')
    /** image/png | image/jpeg */
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('taken_at', 'text', (c) => c.notNull())
    /** file | database */
    .addColumn('storage', 'text', (c) => c.notNull())
    .addColumn('data', bytes)
    .execute();
  await db.schema
    .createIndex('screenshot_device_taken')
    .on('screenshot')
    .columns(['system_id', 'taken_at'])
    .execute();
  await db.schema.createIndex('screenshot_taken').on('screenshot').column('taken_at').execute();

  await db.schema
    .alterTable('device_mapping')
    .addColumn('screenshot_interval_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  /** When the worker last asked for a periodic screenshot of the account. */
  await db.schema.alterTable('device_mapping').addColumn('screenshot_requested_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('device_mapping').dropColumn('screenshot_requested_at').execute();
  await db.schema.alterTable('device_mapping').dropColumn('screenshot_interval_minutes').execute();
  await db.schema.dropTable('screenshot').execute();
  await db.schema.dropTable('device_policy').execute();
}
