import { type Kysely, sql } from 'kysely';
import type {
  AgentDeviceTable,
  ConsoleDeviceTable,
  ConsoleLinkTable,
  ConsoleLoginTable,
  Database,
  DeviceMappingTable,
} from '../../platform/db/schema.js';
import type { ProviderName } from './providers/types.js';

export type ConsoleLinkRow = ConsoleLinkTable;
export type ConsoleDeviceRow = ConsoleDeviceTable;

/** An imported console with the state of its Hearth device. */
export interface ConsoleRow extends ConsoleDeviceRow {
  device_status: string;
  display_name: string | null;
  hostname: string;
  mapping_id: string | null;
}

/** Linked console accounts, pending sign-ins and imported consoles: SQL only. */
export class ConsoleRepository {
  constructor(private readonly db: Kysely<Database>) {}

  link(householdId: string, provider: ProviderName): Promise<ConsoleLinkRow | undefined> {
    return this.db
      .selectFrom('console_link')
      .selectAll()
      .where('household_id', '=', householdId)
      .where('provider', '=', provider)
      .executeTakeFirst();
  }

  /** Stores a (new or renewed) link, replacing what was stored for the household and provider. */
  async saveLink(row: ConsoleLinkRow): Promise<void> {
    const { household_id, provider, ...rest } = row;
    await this.db
      .insertInto('console_link')
      .values(row)
      .onConflict((oc) => oc.columns(['household_id', 'provider']).doUpdateSet(rest))
      .execute();
  }

  async updateLink(householdId: string, provider: ProviderName, changes: Partial<ConsoleLinkRow>) {
    await this.db
      .updateTable('console_link')
      .set(changes)
      .where('household_id', '=', householdId)
      .where('provider', '=', provider)
      .execute();
  }

  /** Stores rotated secrets only over the ones they replace (another writer may have rotated first). */
  async replaceSecrets(householdId: string, provider: ProviderName, before: string, after: string) {
    const r = await this.db
      .updateTable('console_link')
      .set({ secrets: after })
      .where('household_id', '=', householdId)
      .where('provider', '=', provider)
      .where('secrets', '=', before)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Links due for a sync (not expired), the longest waiting first. */
  dueLinks(now: string, limit: number) {
    return this.db
      .selectFrom('console_link')
      .select(['household_id', 'provider'])
      .where('status', '!=', 'expired')
      .where('next_sync_at', '<=', now)
      .orderBy('next_sync_at')
      .limit(limit)
      .execute();
  }

  /** The links holding consoles of a child: a change of its week makes them due now. */
  async makeDueForChild(managedUserId: string, now: string): Promise<void> {
    await this.db
      .updateTable('console_link')
      .set({ next_sync_at: now })
      .where('status', '!=', 'expired')
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('console_device as c')
            .select('c.system_id')
            .whereRef('c.household_id', '=', 'console_link.household_id')
            .whereRef('c.provider', '=', 'console_link.provider')
            .where('c.managed_user_id', '=', managedUserId),
        ),
      )
      .execute();
  }

  async insertLogin(row: ConsoleLoginTable): Promise<void> {
    await this.db.insertInto('console_login').values(row).execute();
  }

  /** A sign-in of the household started since `since`, by its state, whether used or not. */
  login(householdId: string, provider: ProviderName, state: string, since: string) {
    return this.db
      .selectFrom('console_login')
      .selectAll()
      .where('state', '=', state)
      .where('household_id', '=', householdId)
      .where('provider', '=', provider)
      .where('created_at', '>=', since)
      .executeTakeFirst();
  }

  /** The household's newest sign-in started since `since` (used or not). */
  newestLogin(householdId: string, provider: ProviderName, since: string) {
    return this.db
      .selectFrom('console_login')
      .selectAll()
      .where('household_id', '=', householdId)
      .where('provider', '=', provider)
      .where('created_at', '>=', since)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Marks a sign-in used; false when it was used already (a replay, or a concurrent paste). */
  async useLogin(state: string, at: string): Promise<boolean> {
    const r = await this.db
      .updateTable('console_login')
      .set({ used_at: at })
      .where('state', '=', state)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Forgets sign-ins older than `before`. */
  async pruneLogins(before: string): Promise<number> {
    const r = await this.db.deleteFrom('console_login').where('created_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  private consoles() {
    return this.db
      .selectFrom('console_device as c')
      .innerJoin('agent_device as d', 'd.system_id', 'c.system_id')
      .leftJoin('device_mapping as m', (j) =>
        j.onRef('m.system_id', '=', 'c.system_id').onRef('m.linux_username', '=', 'c.player_id'),
      )
      .selectAll('c')
      .select(['d.status as device_status', 'd.display_name', 'd.hostname', 'm.id as mapping_id']);
  }

  /** The consoles imported through a link, oldest first. */
  consolesOfLink(householdId: string, provider: ProviderName): Promise<ConsoleRow[]> {
    return this.consoles()
      .where('c.household_id', '=', householdId)
      .where('c.provider', '=', provider)
      .orderBy('c.imported_at')
      .orderBy('c.system_id')
      .execute();
  }

  /** The consoles a child plays on. */
  consolesOfChild(managedUserId: string): Promise<ConsoleRow[]> {
    return this.consoles().where('c.managed_user_id', '=', managedUserId).execute();
  }

  /** The child a player belongs to through the household's imported consoles, if any. */
  playerChildren(householdId: string, provider: ProviderName) {
    return this.db
      .selectFrom('console_device')
      .select(['player_id', 'managed_user_id', 'console_id', 'system_id'])
      .where('household_id', '=', householdId)
      .where('provider', '=', provider)
      .execute();
  }

  /** Imports a console: its device (approved), the player's mapping to the child, the console row. */
  async importConsole(device: AgentDeviceTable, mapping: DeviceMappingTable, row: ConsoleDeviceRow) {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('agent_device').values(device).execute();
      await trx.insertInto('device_mapping').values(mapping).execute();
      await trx.insertInto('console_device').values(row).execute();
    });
  }

  async updateConsole(systemId: string, changes: Partial<ConsoleDeviceRow>): Promise<void> {
    await this.db.updateTable('console_device').set(changes).where('system_id', '=', systemId).execute();
  }

  /**
   * Unlinks: the credentials and sign-ins are deleted, and each imported console leaves Hearth as an
   * unenrolled device (its playtime stays in the child's statistics). Answers the consoles' ids.
   */
  async unlink(householdId: string, provider: ProviderName, at: string): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const consoles = await trx
        .selectFrom('console_device')
        .select('system_id')
        .where('household_id', '=', householdId)
        .where('provider', '=', provider)
        .execute();
      const ids = consoles.map((c) => c.system_id);
      if (ids.length) {
        await trx
          .updateTable('agent_device')
          .set({ status: 'unenrolled', decided_at: at, updated_at: at })
          .where('system_id', 'in', ids)
          .where('status', '=', 'approved')
          .execute();
        await trx.deleteFrom('console_device').where('system_id', 'in', ids).execute();
      }
      await trx
        .deleteFrom('console_login')
        .where('household_id', '=', householdId)
        .where('provider', '=', provider)
        .execute();
      await trx
        .deleteFrom('console_link')
        .where('household_id', '=', householdId)
        .where('provider', '=', provider)
        .execute();
      return ids;
    });
  }

  /** What is stored of an account's playtime since `from` (date → seconds). */
  async usageSince(systemId: string, account: string, from: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('usage_day')
      .select(['date', 'seconds_used'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', account)
      .where('date', '>=', from)
      .execute();
    return new Map(rows.map((r) => [r.date, Number(r.seconds_used)]));
  }

  /** The household's zone. */
  async timezoneOf(householdId: string): Promise<string> {
    const row = await this.db
      .selectFrom('household')
      .select('timezone')
      .where('id', '=', householdId)
      .executeTakeFirst();
    return row?.timezone ?? 'UTC';
  }

  /** Links of every household (the benchmark's and tests' view of the worker's queue). */
  async countLinks(): Promise<number> {
    const row = await this.db
      .selectFrom('console_link')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
