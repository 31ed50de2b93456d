// Portable across SQLite and PostgreSQL: text ids and ISO timestamps, integer booleans.
export async function up(db) {
  await db.schema
    .createTable('household')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enrollment_token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('parent')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_key', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('parent_household_idx').on('parent').column('household_id').execute();
  await db.schema
    .createTable('managed_user')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('overlay_age_tier', 'text')
    .addColumn('overlay_parent_note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('managed_user_household_idx')
    .on('managed_user')
    .columns(['household_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('parent_child_permission')
    .addColumn('parent_id', 'text', (c) => c.notNull().references('parent.id').onDelete('cascade'))
    .addColumn('managed_user_id', 'text', (c) =>
      c.notNull().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('can_view', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('can_manage_policies', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('parent_child_permission_pk', ['parent_id', 'managed_user_id'])
    .execute();
  await db.schema
    .createTable('session')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('parent_id', 'text', (c) => c.notNull().references('parent.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_parent_idx').on('session').column('parent_id').execute();
  await db.schema.createIndex('session_last_seen_idx').on('session').column('last_seen_at').execute();
  await db.schema
    .createTable('agent_device')
    .addColumn('system_id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('agent_version', 'text')
    .addColumn('linux_users', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('secure_token_hash', 'text', (c) => c.unique())
    .addColumn('last_seen_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agent_device_household_idx')
    .on('agent_device')
    .columns(['household_id', 'status'])
    .execute();
  await db.schema
    .createTable('device_mapping')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('managed_user_id', 'text', (c) =>
      c.notNull().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('linux_username', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('device_mapping_device_account_uq', ['system_id', 'linux_username'])
    .execute();
  await db.schema
    .createIndex('device_mapping_user_idx')
    .on('device_mapping')
    .column('managed_user_id')
    .execute();
  await db.schema
    .createTable('usage_day')
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('linux_username', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('seconds_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_day_pk', ['system_id', 'linux_username', 'date'])
    .execute();
}
export async function down(db) {
  for (const table of [
    'usage_day',
    'device_mapping',
    'agent_device',
    'session',
    'parent_child_permission',
    'managed_user',
    'parent',
    'household',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
//# sourceMappingURL=0001-foundation.js.map
