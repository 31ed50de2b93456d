import { type Kysely, PostgresAdapter } from 'kysely';

// DESIGN §11: a household's blocklist sources, each child's domain policy (its sources, own block and
// allow entries, version) and the per-(device, account) delivery state of `domain_policy_changed`.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A list's domains are one gzipped blob, not a row each (see features/blocklists/repository.ts).
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';

  await db.schema
    .createTable('blocklist_source')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('detected_format', 'text')
    .addColumn('domain_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('allow_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped_lines', 'integer', (c) => c.notNull().defaultTo(0))
    // gzip of the sorted, distinct blocked domains joined by "\n"; and of the list's exceptions.
    .addColumn('content', bytes)
    .addColumn('allow_content', bytes)
    // SHA-256 of both texts: what caches and the children's policies are keyed by.
    .addColumn('content_hash', 'text')
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('last_refreshed_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('blocklist_source_household_idx')
    .on('blocklist_source')
    .column('household_id')
    .execute();

  await db.schema
    .createTable('domain_policy')
    .addColumn('managed_user_id', 'text', (c) =>
      c.primaryKey().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('household_id', 'text', (c) => c.notNull().references('household.id').onDelete('cascade'))
    // Raised only when the effective content (content_hash) changes.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('domain_count', 'integer', (c) => c.notNull())
    /** JSON arrays of the child's own entries. */
    .addColumn('block_domains', 'text', (c) => c.notNull())
    .addColumn('allow_domains', 'text', (c) => c.notNull())
    /** JSON: the unexpired domain_unblock grants the last compile took in, [{id, domain, expires_at}]. */
    .addColumn('grants', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .addColumn('compiled_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('domain_policy_source')
    .addColumn('managed_user_id', 'text', (c) =>
      c.notNull().references('managed_user.id').onDelete('cascade'),
    )
    .addColumn('source_id', 'text', (c) => c.notNull().references('blocklist_source.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('domain_policy_source_pk', ['managed_user_id', 'source_id'])
    .execute();
  await db.schema
    .createIndex('domain_policy_source_source_idx')
    .on('domain_policy_source')
    .column('source_id')
    .execute();

  // One row per mapped (device, account), as time_policy_sync.
  await db.schema
    .createTable('domain_policy_sync')
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('domain_policy_sync').execute();
  await db.schema.dropTable('domain_policy_source').execute();
  await db.schema.dropTable('domain_policy').execute();
  await db.schema.dropTable('blocklist_source').execute();
}
