import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Which server instance holds the device's socket; with last_seen_at it tells every instance who is online.
  await db.schema.alterTable('agent_device').addColumn('connected_instance', 'text').execute();
  await db.schema.alterTable('agent_device').addColumn('decided_at', 'text').execute();

  // Commands for devices that are offline, delivered in order once they authenticate.
  await db.schema
    .createTable('device_command')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('command', 'text', (c) => c.notNull())
    .addColumn('args', 'text', (c) => c.notNull())
    .addColumn('coalesce_key', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema
    .createIndex('device_command_device_idx')
    .on('device_command')
    .columns(['system_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_command').ifExists().execute();
  await db.schema.alterTable('agent_device').dropColumn('decided_at').execute();
  await db.schema.alterTable('agent_device').dropColumn('connected_instance').execute();
}
