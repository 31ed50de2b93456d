import type { Kysely } from 'kysely';

// DESIGN §13: a household's linked console accounts (credentials encrypted with HEARTH_SECRET_KEY),
// the sign-ins started by `login-url` (state and PKCE verifier until the paste), and each imported
// console: its vendor ids, the player mapped to the child, and its sync state.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_link')
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    /** The encrypted JSON of the vendor's refresh (Xbox) or session (Nintendo) token and account id. */
    .addColumn('secrets', 'text', (c) => c.notNull())
    .addColumn('account_name', 'text')
    .addColumn('linked_at', 'text', (c) => c.notNull())
    .addColumn('linked_by', 'text')
    /** ok | expired (link again) | failing (backing off). */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('last_sync_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    /** When the worker syncs it next (5 minutes after a sync, later while backing off). */
    .addColumn('next_sync_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('console_link_pk', ['household_id', 'provider'])
    .execute();
  await db.schema.createIndex('console_link_due').on('console_link').column('next_sync_at').execute();

  await db.schema
    .createTable('console_login')
    .addColumn('state', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    /** The encrypted PKCE verifier, or null where the vendor uses none. */
    .addColumn('verifier', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('console_login_household')
    .on('console_login')
    .columns(['household_id', 'provider', 'created_at'])
    .execute();

  await db.schema
    .createTable('console_device')
    .addColumn('system_id', 'text', (c) =>
      c.primaryKey().references('agent_device.system_id').onDelete('cascade'),
    )
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('console_id', 'text', (c) => c.notNull())
    .addColumn('console_name', 'text', (c) => c.notNull())
    .addColumn('player_id', 'text', (c) => c.notNull())
    .addColumn('player_name', 'text', (c) => c.notNull())
    .addColumn('managed_user_id', 'text', (c) =>
      c.notNull().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .addColumn('last_sync_at', 'text')
    .addColumn('last_error', 'text')
    /** JSON array of what the console could not hold of the child's week, in words. */
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo('[]'))
    /** The limits last written to the vendor (a digest): equal means no call. */
    .addColumn('pushed_digest', 'text')
    .execute();
  await db.schema
    .createIndex('console_device_console')
    .on('console_device')
    .columns(['household_id', 'provider', 'console_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_device').execute();
  await db.schema.dropTable('console_login').execute();
  await db.schema.dropTable('console_link').execute();
}
