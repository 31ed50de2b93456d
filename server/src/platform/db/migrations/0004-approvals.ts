import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('device_mapping')
    .addColumn('enforce_signup_approvals', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('approval_request')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('mapping_id', 'text', (c) => c.references('device_mapping.id').onDelete('cascade'))
    .addColumn('managed_user_id', 'text', (c) => c.references('managed_user.id').onDelete('cascade'))
    .addColumn('system_id', 'text', (c) =>
      c.notNull().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('linux_username', 'text', (c) => c.notNull())
    .addColumn('domain', 'text')
    .addColumn('url', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('grant', 'text')
    .execute();
  await db.schema
    .createIndex('approval_request_household_idx')
    .on('approval_request')
    .columns(['household_id', 'requested_at'])
    .execute();
  // One pending request per (mapping, type, domain), enforced by the database too.
  await db.schema
    .createIndex('approval_request_pending_uq')
    .on('approval_request')
    .columns(['mapping_id', 'type', 'domain'])

    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('approval_grant')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('mapping_id', 'text', (c) => c.notNull().references('device_mapping.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('domain', 'text')
    .addColumn('target', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source_request_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('consumed_at', 'text')
    .execute();
  await db.schema
    .createIndex('approval_grant_mapping_idx')
    .on('approval_grant')
    .columns(['mapping_id', 'type'])
    .execute();

  // Extra minutes a parent granted for one day; the schedules feature adds them to the day's allowance.
  await db.schema
    .createTable('time_adjustment')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('managed_user_id', 'text', (c) =>
      c.notNull().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('seconds', 'integer', (c) => c.notNull())
    .addColumn('source_request_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('time_adjustment_user_idx')
    .on('time_adjustment')
    .columns(['managed_user_id', 'date'])
    .execute();

  await db.schema
    .createTable('user_online_account')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    // The child's id, or "device:<system_id>:<account>" for an account not mapped to a child.
    .addColumn('owner_key', 'text', (c) => c.notNull())
    .addColumn('managed_user_id', 'text', (c) => c.references('managed_user.id').onDelete('cascade'))
    .addColumn('system_id', 'text', (c) => c.references('agent_device.system_id').onDelete('set null'))
    .addColumn('linux_username', 'text')
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('first_detected_at', 'text', (c) => c.notNull())
    .addColumn('last_active_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('user_online_account_uq', ['household_id', 'owner_key', 'domain', 'username'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['user_online_account', 'time_adjustment', 'approval_grant', 'approval_request']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  await db.schema.alterTable('device_mapping').dropColumn('enforce_signup_approvals').execute();
}
