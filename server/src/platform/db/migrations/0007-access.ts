import { type Kysely, sql } from 'kysely';

/**
 * Indexes for the dashboard (issue 13): a household's devices and newest alerts in the order it lists
 * them (no sort of whole rows per visit), and its two counts (unread alerts, pending requests) read
 * from small partial indexes rather than every row of the household.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('agent_device_household_newest_idx')
    .on('agent_device')
    .columns(['household_id', 'created_at', 'system_id'])
    .execute();
  await db.schema
    .createIndex('alert_household_newest_idx')
    .on('alert')
    .columns(['household_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('alert_unread_idx')
    .on('alert')
    .column('household_id')
    .where(sql.ref('acknowledged_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('approval_request_pending_idx')
    .on('approval_request')
    .column('household_id')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('approval_request_pending_idx').execute();
  await db.schema.dropIndex('alert_unread_idx').execute();
  await db.schema.dropIndex('alert_household_newest_idx').execute();
  await db.schema.dropIndex('agent_device_household_newest_idx').execute();
}
