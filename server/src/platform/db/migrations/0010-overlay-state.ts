import type { Kysely } from 'kysely';

// The Linux agent's `overlay_status`: on which accounts Hearth Space is showing, kept on the device
// as the JSON array it sent (a whole set each time, read only with the device).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agent_device').addColumn('overlay_state', 'text').execute();
  await db.schema.alterTable('agent_device').addColumn('overlay_state_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agent_device').dropColumn('overlay_state_at').execute();
  await db.schema.alterTable('agent_device').dropColumn('overlay_state').execute();
}
