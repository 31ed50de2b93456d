import type { Kysely } from 'kysely';

// DESIGN §10: the household's time zone, each child's weekly schedule, who made an adjustment, the pause,
// the per-(device, account) delivery state of `set_time_policy`, and per-application daily totals.
export async function up(db: Kysely<unknown>): Promise<void> {
  // An IANA zone name; a household made before this migration reads as UTC until a parent sets it.
  await db.schema
    .alterTable('household')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();

  // The pause of a child on all devices: an ISO instant, "indefinite", or null (not paused).
  await db.schema.alterTable('managed_user').addColumn('paused_until', 'text').execute();

  await db.schema
    .createTable('time_schedule')
    .addColumn('managed_user_id', 'text', (c) =>
      c.primaryKey().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    // Raised on every change a device must hear of: the schedule, an adjustment, the pause.
    .addColumn('version', 'integer', (c) => c.notNull())
    /** JSON: {monday … sunday: {limit_minutes, windows}}. */
    .addColumn('days', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .execute();

  // time_adjustment (0004) holds the seconds a parent added or took for a date; it learns who and why.
  await db.schema.alterTable('time_adjustment').addColumn('note', 'text').execute();
  await db.schema.alterTable('time_adjustment').addColumn('created_by', 'text').execute();

  // One row per mapped (device, account): what was pushed and what the agent acknowledged.
  await db.schema
    .createTable('time_policy_sync')
    .addColumn('mapping_id', 'text', (c) =>
      c.primaryKey().references('device_mapping.id').onDelete('cascade'),
    )
    .addColumn('managed_user_id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('applied_version', 'integer')
    .addColumn('last_attempt_at', 'text')
    .addColumn('error', 'text')
    .execute();

  // Per-application running totals of a day, from usage_report's `apps`.
  await db.schema
    .createTable('usage_app_day')
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('linux_username', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('match_type', 'text', (c) => c.notNull())
    .addColumn('seconds', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_app_day_pk', [
      'system_id',
      'linux_username',
      'date',
      'identifier',
      'match_type',
    ])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_app_day').execute();
  await db.schema.dropTable('time_policy_sync').execute();
  await db.schema.alterTable('time_adjustment').dropColumn('created_by').execute();
  await db.schema.alterTable('time_adjustment').dropColumn('note').execute();
  await db.schema.dropTable('time_schedule').execute();
  await db.schema.alterTable('managed_user').dropColumn('paused_until').execute();
  await db.schema.alterTable('household').dropColumn('timezone').execute();
}
