import type { Kysely } from 'kysely';
import type { Database, DeviceMappingTable, ManagedUserTable } from '../../platform/db/schema.js';

export class UserRepository {
  constructor(private readonly db: Kysely<Database>) {}

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
  list(householdId: string, onlyIds?: string[]) {
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

  /** Permission of one member parent on one child, if any. */
  permission(parentId: string, managedUserId: string) {
    return this.db
      .selectFrom('parent_child_permission')
      .select(['can_view', 'can_manage_policies'])
      .where('parent_id', '=', parentId)
      .where('managed_user_id', '=', managedUserId)
      .executeTakeFirst();
  }

  async viewableIds(parentId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('parent_child_permission')
      .select('managed_user_id')
      .where('parent_id', '=', parentId)
      .where((eb) => eb.or([eb('can_view', '=', 1), eb('can_manage_policies', '=', 1)]))
      .execute();
    return rows.map((r) => r.managed_user_id);
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
