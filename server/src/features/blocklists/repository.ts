// Storage of blocklists. A source's domains are NOT a row each: a million-line list would be a million
// rows to insert on every refresh, a million index entries, and hundreds of megabytes in the database.
// Instead a source row carries its sorted, distinct domains joined by "\n" and gzipped as ONE blob
// (bytea on PostgreSQL, BLOB on SQLite) — a million domains are about 4 MB — with a SHA-256 of the
// text and the counts. Nothing ever queries one domain in SQL: the domain check and the compile work
// on the in-memory form (domain-list.ts), loaded once per (source, hash) and cached (store.ts), so a
// refresh writes one row and a lookup costs a binary search.
import type { Kysely } from 'kysely';
import { MappingReads, PolicySyncRepository, type SyncMapping } from '../../agent-channel/policy-sync.js';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { BlocklistSourceTable, Database, DomainPolicyTable } from '../../platform/db/schema.js';

/** A source as listed: everything but its content. */
export type SourceRow = Omit<BlocklistSourceTable, 'content' | 'allow_content'>;
export type PolicyRow = DomainPolicyTable;

const SOURCE_COLUMNS = [
  'id',
  'household_id',
  'name',
  'kind',
  'url',
  'format',
  'detected_format',
  'domain_count',
  'allow_count',
  'skipped_lines',
  'content_hash',
  'etag',
  'last_modified',
  'last_refreshed_at',
  'last_attempt_at',
  'last_error',
  'created_at',
  'updated_at',
] as const;

export interface StoredContent {
  content: Buffer | null;
  allow_content: Buffer | null;
  content_hash: string | null;
}

/** Blocklist sources, each child's domain policy and its delivery state: SQL only. */
export class BlocklistRepository {
  /** Delivery state of domain_policy_changed per mapped account. */
  readonly sync: PolicySyncRepository;
  private readonly mappings: MappingReads;

  private readonly db: Kysely<Database>;
  // The domain check and the agents' fetch read these on every call: prepared, built once.
  private readonly policyRead: Prepared<'id', PolicyRow>;
  private readonly policySourcesRead: Prepared<
    'id',
    { id: string; name: string; content_hash: string | null }
  >;
  private readonly liveGrantsRead: Prepared<
    'id' | 'type' | 'now',
    { id: string; domain: string | null; expires_at: string | null }
  >;

  constructor(database: Db) {
    this.db = database.kysely;
    this.sync = new PolicySyncRepository(this.db, 'domain_policy_sync');
    this.mappings = new MappingReads(database);
    this.policyRead = new Prepared(database, (k, p) =>
      k.selectFrom('domain_policy').selectAll().where('managed_user_id', '=', p('id')),
    );
    this.policySourcesRead = new Prepared(database, (k, p) =>
      k
        .selectFrom('domain_policy_source as p')
        .innerJoin('blocklist_source as s', 's.id', 'p.source_id')
        .select(['s.id', 's.name', 's.content_hash'])
        .where('p.managed_user_id', '=', p('id'))
        .orderBy('p.position', 'asc'),
    );
    this.liveGrantsRead = new Prepared(database, (k, p) =>
      k
        .selectFrom('approval_grant as g')
        .innerJoin('device_mapping as m', 'm.id', 'g.mapping_id')
        .select(['g.id', 'g.domain', 'g.expires_at'])
        .where('m.managed_user_id', '=', p('id'))
        .where('g.type', '=', p('type') as 'domain_unblock')
        .where('g.consumed_at', 'is', null)
        .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', p('now'))]))
        .orderBy('g.created_at', 'asc')
        .orderBy('g.id', 'asc'),
    );
  }

  // ——— sources ———

  listSources(householdId: string): Promise<SourceRow[]> {
    return this.db
      .selectFrom('blocklist_source')
      .select(SOURCE_COLUMNS)
      .where('household_id', '=', householdId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  source(householdId: string, id: string): Promise<SourceRow | undefined> {
    return this.db
      .selectFrom('blocklist_source')
      .select(SOURCE_COLUMNS)
      .where('household_id', '=', householdId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  sourceById(id: string): Promise<SourceRow | undefined> {
    return this.db
      .selectFrom('blocklist_source')
      .select(SOURCE_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The stored (gzipped) content of a source. */
  content(id: string): Promise<StoredContent | undefined> {
    return this.db
      .selectFrom('blocklist_source')
      .select(['content', 'allow_content', 'content_hash'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The household's sources among `ids` (the others are missing or another household's). */
  sourcesIn(householdId: string, ids: readonly string[]): Promise<{ id: string }[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db
      .selectFrom('blocklist_source')
      .select('id')
      .where('household_id', '=', householdId)
      .where('id', 'in', ids)
      .execute();
  }

  async insertSource(row: BlocklistSourceTable): Promise<void> {
    await this.db.insertInto('blocklist_source').values(row).execute();
  }

  async updateSource(id: string, changes: Partial<BlocklistSourceTable>): Promise<void> {
    await this.db.updateTable('blocklist_source').set(changes).where('id', '=', id).execute();
  }

  async deleteSource(householdId: string, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('blocklist_source')
      .where('household_id', '=', householdId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** Url sources never fetched, or whose last attempt ended before `before`. */
  urlSourcesDue(before: string): Promise<{ id: string }[]> {
    return this.db
      .selectFrom('blocklist_source')
      .select('id')
      .where('kind', '=', 'url')
      .where((eb) => eb.or([eb('last_attempt_at', 'is', null), eb('last_attempt_at', '<', before)]))
      .orderBy('last_attempt_at', 'asc')
      .execute();
  }

  /** The children whose policy takes a source in. */
  async childrenUsing(sourceId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('domain_policy_source')
      .select('managed_user_id')
      .where('source_id', '=', sourceId)
      .execute();
    return rows.map((r) => r.managed_user_id);
  }

  // ——— policies ———

  policy(managedUserId: string): Promise<PolicyRow | undefined> {
    return this.policyRead.first({ id: managedUserId });
  }

  /** The child's sources in the order the parent gave them, with what a compile needs. */
  policySources(managedUserId: string) {
    return this.policySourcesRead.all({ id: managedUserId });
  }

  /**
   * Writes the parent's choice (sources, own entries) in one transaction; a child without a policy
   * row gets one at version 0 holding `emptyHash`, the hash of nothing.
   */
  async saveInputs(
    managedUserId: string,
    householdId: string,
    input: { source_ids: readonly string[]; block_domains: string; allow_domains: string },
    meta: { at: string; by: string; emptyHash: string },
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('domain_policy')
        .values({
          managed_user_id: managedUserId,
          household_id: householdId,
          version: 0,
          content_hash: meta.emptyHash,
          domain_count: 0,
          block_domains: input.block_domains,
          allow_domains: input.allow_domains,
          grants: '[]',
          updated_at: meta.at,
          updated_by: meta.by,
          compiled_at: meta.at,
        })
        .onConflict((oc) =>
          oc.column('managed_user_id').doUpdateSet({
            block_domains: input.block_domains,
            allow_domains: input.allow_domains,
            updated_at: meta.at,
            updated_by: meta.by,
          }),
        )
        .execute();
      await trx.deleteFrom('domain_policy_source').where('managed_user_id', '=', managedUserId).execute();
      if (input.source_ids.length)
        await trx
          .insertInto('domain_policy_source')
          .values(
            input.source_ids.map((source_id, position) => ({
              managed_user_id: managedUserId,
              source_id,
              position,
            })),
          )
          .execute();
    });
  }

  /**
   * Records a compile: the version rises by one only when `content_hash` differs from the stored one.
   * Answers the version now stored and whether it rose.
   */
  saveCompiled(
    managedUserId: string,
    compiled: { content_hash: string; domain_count: number; grants: string; at: string },
  ): Promise<{ version: number; changed: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('domain_policy')
        .select(['version', 'content_hash'])
        .where('managed_user_id', '=', managedUserId)
        .executeTakeFirst();
      if (!current) return { version: 0, changed: false };
      const changed = current.content_hash !== compiled.content_hash;
      const version = Number(current.version) + (changed ? 1 : 0);
      await trx
        .updateTable('domain_policy')
        .set({
          version,
          content_hash: compiled.content_hash,
          domain_count: compiled.domain_count,
          grants: compiled.grants,
          compiled_at: compiled.at,
        })
        .where('managed_user_id', '=', managedUserId)
        .execute();
      return { version, changed };
    });
  }

  /** Policies whose last compile took in at least one grant (the expiry task looks at these). */
  policiesWithGrants(): Promise<{ managed_user_id: string; grants: string }[]> {
    return this.db
      .selectFrom('domain_policy')
      .select(['managed_user_id', 'grants'])
      .where('grants', '!=', '[]')
      .execute();
  }

  /** The child's unused domain_unblock grants, expired or not (the domain check filters by its clock). */
  unusedGrants(managedUserId: string) {
    return this.liveGrantsRead.all({ id: managedUserId, type: 'domain_unblock', now: '' });
  }

  /** The child's domain_unblock grants still in force at `now` (any of the child's mappings). */
  liveGrants(managedUserId: string, now: string) {
    return this.liveGrantsRead.all({ id: managedUserId, type: 'domain_unblock', now });
  }

  // ——— delivery ———

  /** The child's mapped accounts with their device (DESIGN §11 delivery, the sync status). */
  mappingsOf(managedUserId: string): Promise<SyncMapping[]> {
    return this.mappings.mappingsOf(managedUserId);
  }

  /** The mapping of an account on a device. */
  mappingOf(systemId: string, linuxUsername: string) {
    return this.mappings.mappingOf(systemId, linuxUsername);
  }

  /** The child a mapping belongs to. */
  async childOfMapping(mappingId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('device_mapping')
      .select('managed_user_id')
      .where('id', '=', mappingId)
      .executeTakeFirst();
    return row?.managed_user_id;
  }

  /**
   * The agent says it enforces `version`: synced when that is the version last pushed (or newer),
   * else the row keeps waiting. A policy the agent fetched without a push gets its row here.
   */
  async recordApplied(
    mapping: { id: string; managed_user_id: string },
    systemId: string,
    version: number,
    at: string,
  ): Promise<void> {
    await this.db
      .insertInto('domain_policy_sync')
      .values({
        mapping_id: mapping.id,
        managed_user_id: mapping.managed_user_id,
        system_id: systemId,
        version,
        status: 'synced',
        applied_version: version,
        last_attempt_at: at,
        error: null,
      })
      .onConflict((oc) =>
        oc.column('mapping_id').doUpdateSet((eb) => ({
          applied_version: version,
          status: eb
            .case()
            .when('domain_policy_sync.version', '<=', version)
            .then('synced' as const)
            .else(eb.ref('domain_policy_sync.status'))
            .end(),
          error: eb
            .case()
            .when('domain_policy_sync.version', '<=', version)
            .then(null)
            .else(eb.ref('domain_policy_sync.error'))
            .end(),
        })),
      )
      .execute();
  }
}
