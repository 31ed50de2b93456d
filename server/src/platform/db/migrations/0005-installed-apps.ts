import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // SPEC "Device (agent_device)": the last report's hash, time and application count.
  await db.schema.alterTable('agent_device').addColumn('installed_apps_report_hash', 'text').execute();
  await db.schema.alterTable('agent_device').addColumn('installed_apps_reported_at', 'text').execute();
  await db.schema
    .alterTable('agent_device')
    .addColumn('installed_apps_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // Reports are per account on a device; the hash lets an identical re-report write nothing.
  await db.schema
    .createTable('installed_apps_report')
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('linux_username', 'text', (c) => c.notNull())
    .addColumn('report_hash', 'text', (c) => c.notNull())
    .addColumn('reported_at', 'text', (c) => c.notNull())
    .addColumn('app_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('installed_apps_report_pk', ['system_id', 'linux_username'])
    .execute();

  // SPEC "Installed application": one row per (system_id, linux_username, identifier, match_type).
  await db.schema
    .createTable('device_installed_application')
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('linux_username', 'text', (c) => c.notNull())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('match_type', 'text', (c) => c.notNull())
    .addColumn('application_name', 'text', (c) => c.notNull())
    .addColumn('version_name', 'text', (c) => c.notNull())
    .addColumn('icon_hash', 'text')
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('device_installed_application_pk', [
      'system_id',
      'linux_username',
      'identifier',
      'match_type',
    ])
    .execute();

  // Icons are content-addressed and shared by every device that has the app; base64 text keeps the
  // column portable between SQLite and PostgreSQL (32 KB at most per icon).
  await db.schema
    .createTable('application_icon')
    .addColumn('content_hash', 'text', (c) => c.primaryKey())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('data_base64', 'text', (c) => c.notNull())
    .addColumn('byte_size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('app_policy')
    .addColumn('managed_user_id', 'text', (c) =>
      c.primaryKey().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .execute();

  await db.schema
    .createTable('app_policy_sync')
    .addColumn('managed_user_id', 'text', (c) =>
      c.notNull().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_policy_sync_pk', ['managed_user_id', 'system_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'app_policy_sync',
    'app_policy',
    'application_icon',
    'device_installed_application',
    'installed_apps_report',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  for (const c of ['installed_apps_count', 'installed_apps_reported_at', 'installed_apps_report_hash']) {
    await db.schema.alterTable('agent_device').dropColumn(c).execute();
  }
}
