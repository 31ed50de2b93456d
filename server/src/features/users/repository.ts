import type { Kysely } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { Database, DeviceMappingTable, ManagedUserTable } from '../../platform/db/schema.js';

export type ChildWithMappingRow = Pick<
  ManagedUserTable,
  'id' | 'name' | 'overlay_age_tier' | 'overlay_parent_note' | 'created_at'
> & {
  mapping_id: string | null;
  system_id: string | null;
  linux_username: string | null;
  hostname: string | null;
  display_name: string | null;
  device_status: string | null;
  platform: string | null;
};

export class UserRepository {
  private readonly db: Kysely<Database>;
  // The children list is the dashboard's most frequent read: prepared, one statement for a household.
  private readonly householdChildren: Prepared<'household', ChildWithMappingRow>;

  constructor(database: Db) {
    this.db = database.kysely;
    this.householdChildren = new Prepared(database, (k, p) =>
      k
        .selectFrom('managed_user as u')
        .leftJoin('device_mapping as m', 'm.managed_user_id', 'u.id')
        .leftJoin('agent_device as d', 'd.system_id', 'm.system_id')
        .select([
          'u.id',
          'u.name',
          'u.overlay_age_tier',
          'u.overlay_parent_note',
          'u.created_at',
          'm.id as mapping_id',
          'm.system_id',
          'm.linux_username',
          'd.hostname',
          'd.display_name',
          'd.status as device_status',
          'd.platform',
        ])
        .where('u.household_id', '=', p('household'))
        .orderBy('u.created_at', 'desc')
        .orderBy('u.id', 'desc')
        .orderBy('m.created_at', 'asc')
        .orderBy('m.id', 'asc'),
    );
  }

  /** Children with their mappings in one statement: one row per mapping (or one for a child without). */
  childrenWithMappings(householdId: string): Promise<ChildWithMappingRow[]> {
    return this.householdChildren.all({ household: householdId });
  }

  async insert(row: ManagedUserTable): Promise<void> {
    await this.db.insertInto('managed_user').values(row).execute();
  }

  get(householdId: string, id: string) {
    return this.db
      .selectFrom('managed_user')
      .selectAll()
      .where('household_id', '=', householdId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Children of the household, newest first; `onlyIds` narrows to the ones a member may see. */
  list(householdId: string, onlyIds?: string[] | null) {
    let q = this.db
      .selectFrom('managed_user')
      .select(['id', 'name', 'overlay_age_tier', 'overlay_parent_note', 'created_at'])
      .where('household_id', '=', householdId);

    if (onlyIds) {
      if (!onlyIds.length) return Promise.resolve([]);
      q = q.where('id', 'in', onlyIds);
    }
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  }

  async existingIds(householdId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db
      .selectFrom('managed_user')
      .select('id')
      .where('household_id', '=', householdId)
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  async updateOverlay(
    id: string,
    changes: Partial<Pick<ManagedUserTable, 'overlay_age_tier' | 'overlay_parent_note'>> & {
      updated_at: string;
    },
  ): Promise<void> {
    await this.db.updateTable('managed_user').set(changes).where('id', '=', id).execute();
  }

  async rename(id: string, name: string, at: string): Promise<void> {
    await this.db.updateTable('managed_user').set({ name, updated_at: at }).where('id', '=', id).execute();
  }

  /**
   * Deletes a child in one transaction and answers the mappings it had. The schema's foreign keys
   * remove what hangs on the child or its mappings; alerts keep their row with the child nulled.
   */
  removeChild(householdId: string, id: string) {
    return this.db.transaction().execute(async (trx) => {
      const mappings = await trx
        .selectFrom('device_mapping')
        .select(['id', 'system_id', 'linux_username', 'managed_user_id'])
        .where('managed_user_id', '=', id)
        .execute();
      await trx
        .updateTable('alert')
        .set({ managed_user_id: null })
        .where('household_id', '=', householdId)
        .where('managed_user_id', '=', id)
        .execute();
      await trx.deleteFrom('device_mapping').where('managed_user_id', '=', id).execute();
      await trx
        .deleteFrom('managed_user')
        .where('household_id', '=', householdId)
        .where('id', '=', id)
        .execute();
      return mappings;
    });
  }

  /** Deletes one mapping (its sign-up settings, grants and requests go with it); undefined when gone. */
  async removeMapping(householdId: string, id: string) {
    const row = await this.db
      .deleteFrom('device_mapping')
      .where('household_id', '=', householdId)
      .where('id', '=', id)
      .returning(['id', 'system_id', 'linux_username', 'managed_user_id'])
      .executeTakeFirst();
    return row;
  }

  mappingsOf(userIds: string[]) {
    if (!userIds.length) return Promise.resolve([]);
    return this.db
      .selectFrom('device_mapping')
      .leftJoin('agent_device', 'agent_device.system_id', 'device_mapping.system_id')
      .select([
        'device_mapping.id',
        'device_mapping.managed_user_id',
        'device_mapping.system_id',
        'device_mapping.linux_username',
        'device_mapping.created_at',
        'agent_device.hostname',
        'agent_device.display_name',
        'agent_device.platform',
        'agent_device.status',
        'agent_device.linux_users',
        'agent_device.connected_instance',
        'agent_device.last_seen_at',
      ])
      .where('device_mapping.managed_user_id', 'in', userIds)
      .orderBy('device_mapping.created_at', 'asc')
      .orderBy('device_mapping.id', 'asc')
      .execute();
  }

  findMapping(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('device_mapping')
      .select(['id', 'managed_user_id'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .executeTakeFirst();
  }

  async insertMapping(row: DeviceMappingTable): Promise<void> {
    await this.db.insertInto('device_mapping').values(row).execute();
  }

  usageOn(pairs: { system_id: string; linux_username: string }[], fromDate: string, toDate: string) {
    if (!pairs.length) return Promise.resolve([]);
    return this.db
      .selectFrom('usage_day')
      .select(['system_id', 'linux_username', 'date', 'seconds_used'])
      .where('date', '>=', fromDate)
      .where('date', '<=', toDate)
      .where((eb) =>
        eb.or(
          pairs.map((p) =>
            eb.and([eb('system_id', '=', p.system_id), eb('linux_username', '=', p.linux_username)]),
          ),
        ),
      )
      .execute();
  }
}
