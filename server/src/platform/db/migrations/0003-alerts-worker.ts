import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.references('agent_device.system_id').onDelete('set null'))
    .addColumn('linux_username', 'text')
    .addColumn('managed_user_id', 'text', (c) => c.references('managed_user.id').onDelete('set null'))
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('acknowledged_at', 'text')
    .execute();
  await db.schema
    .createIndex('alert_household_idx')
    .on('alert')
    .columns(['household_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('alert_kind_idx')
    .on('alert')
    .columns(['household_id', 'kind', 'created_at'])
    .execute();
  await db.schema.createIndex('alert_created_idx').on('alert').column('created_at').execute();

  // One worker at a time across instances: whoever holds the unexpired lease runs the tasks.
  await db.schema
    .createTable('worker_lease')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'text', (c) => c.notNull())
    .addColumn('restart_requested_at', 'text')
    .execute();

  await db.schema
    .createTable('worker_task')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('every_ms', 'integer', (c) => c.notNull())
    .addColumn('last_run_at', 'text')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_result', 'text')
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('worker_task').ifExists().execute();
  await db.schema.dropTable('worker_lease').ifExists().execute();
  await db.schema.dropTable('alert').ifExists().execute();
}
