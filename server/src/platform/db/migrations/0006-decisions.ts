import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The minutes a parent granted for a time extension; they may be fewer than the child asked for.
  await db.schema.alterTable('approval_request').addColumn('approved_minutes', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('approval_request').dropColumn('approved_minutes').execute();
}
