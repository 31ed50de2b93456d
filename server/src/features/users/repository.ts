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

  // The dashboard's use of today, per child: prepared too.
  private readonly householdUsage: Prepared<
    'household' | 'date',
    { managed_user_id: string; seconds: number }
  >;

  constructor(database: Db) {
    this.db = database.kysely;
    this.householdUsage = new Prepared(database, (k, p) =>
      k
        .selectFrom('managed_user as c')
        .innerJoin('device_mapping as m', 'm.managed_user_id', 'c.id')
        .innerJoin('usage_day as u', (j) =>
          j.onRef('u.system_id', '=', 'm.system_id').onRef('u.linux_username', '=', 'm.linux_username'),
        )
        .select((eb) => ['m.managed_user_id', eb.fn.sum<number>('u.seconds_used').as('seconds')])
        .where('c.household_id', '=', p('household'))
        .where('u.date', '=', p('date'))
        .groupBy('m.managed_user_id'),
    );
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

  /** Seconds used on one day by each child of a household (children without use are absent). */
  async usageOfHousehold(householdId: string, date: string): Promise<Map<string, number>> {
    const rows = await this.householdUsage.all({ household: householdId, date });
    return new Map(rows.map((r) => [r.managed_user_id, Number(r.seconds)]));
  }
}
