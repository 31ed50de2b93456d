import type { Kysely } from 'kysely';
import type { Database, DbBool } from '../../platform/db/schema.js';

/** One object of the household with the grant a parent holds on the child it belongs to (null: none). */
export interface GrantRow {
  id: string;
  /** The child the object belongs to (absent for devices, which may serve several). */
  managed_user_id?: string | null;
  can_view: DbBool | null;
  can_manage_policies: DbBool | null;
}

/**
 * Reads for access checks: each answers for any number of ids in one statement, and only ever returns
 * objects of the given household. It says what a parent holds; the access service decides.
 */
export class AccessRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every child of the household, each with the parent's grant on it (what AccessService keeps). */
  allChildGrants(householdId: string, parentId: string): Promise<GrantRow[]> {
    return this.db
      .selectFrom('managed_user as u')
      .leftJoin('parent_child_permission as p', (join) =>
        join.onRef('p.managed_user_id', '=', 'u.id').on('p.parent_id', '=', parentId),
      )
      .select(['u.id', 'u.id as managed_user_id', 'p.can_view', 'p.can_manage_policies'])
      .where('u.household_id', '=', householdId)
      .execute();
  }

  /** The household's children among `ids`, each with the parent's grant on it. */
  childGrants(householdId: string, parentId: string, ids: readonly string[]): Promise<GrantRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db
      .selectFrom('managed_user as u')
      .leftJoin('parent_child_permission as p', (join) =>
        join.onRef('p.managed_user_id', '=', 'u.id').on('p.parent_id', '=', parentId),
      )
      .select(['u.id', 'u.id as managed_user_id', 'p.can_view', 'p.can_manage_policies'])
      .where('u.household_id', '=', householdId)
      .where('u.id', 'in', ids)
      .execute();
  }

  /**
   * The household's devices among `ids`, each with the strongest grant the parent holds on any child
   * mapped to it.
   */
  deviceGrants(householdId: string, parentId: string, ids: readonly string[]): Promise<GrantRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db
      .selectFrom('agent_device as d')
      .leftJoin('device_mapping as m', 'm.system_id', 'd.system_id')
      .leftJoin('parent_child_permission as p', (join) =>
        join.onRef('p.managed_user_id', '=', 'm.managed_user_id').on('p.parent_id', '=', parentId),
      )
      .select((eb) => [
        'd.system_id as id',
        eb.fn.max('p.can_view').$castTo<DbBool | null>().as('can_view'),
        eb.fn.max('p.can_manage_policies').$castTo<DbBool | null>().as('can_manage_policies'),
      ])
      .where('d.household_id', '=', householdId)
      .where('d.system_id', 'in', ids)
      .groupBy('d.system_id')
      .execute();
  }

  /** The household's device mappings among `ids`, each with the parent's grant on the mapped child. */
  mappingGrants(householdId: string, parentId: string, ids: readonly string[]): Promise<GrantRow[]> {
    return this.ownedGrants('device_mapping', householdId, parentId, ids);
  }

  /** The household's approval requests among `ids`, each with the parent's grant on its child. */
  approvalGrants(householdId: string, parentId: string, ids: readonly string[]): Promise<GrantRow[]> {
    return this.ownedGrants('approval_request', householdId, parentId, ids);
  }

  /** The household's alerts among `ids`, each with the parent's grant on its child. */
  alertGrants(householdId: string, parentId: string, ids: readonly string[]): Promise<GrantRow[]> {
    return this.ownedGrants('alert', householdId, parentId, ids);
  }

  /** Rows of a table whose objects belong to one child each (id, household_id, managed_user_id). */
  private ownedGrants(
    table: 'device_mapping' | 'approval_request' | 'alert',
    householdId: string,
    parentId: string,
    ids: readonly string[],
  ): Promise<GrantRow[]> {
    if (!ids.length) return Promise.resolve([]);
    // The three tables share the columns read here; Kysely is told one of them.
    return this.db
      .selectFrom(`${table} as o` as 'alert as o')
      .leftJoin('parent_child_permission as p', (join) =>
        join.onRef('p.managed_user_id', '=', 'o.managed_user_id').on('p.parent_id', '=', parentId),
      )
      .select(['o.id', 'o.managed_user_id', 'p.can_view', 'p.can_manage_policies'])
      .where('o.household_id', '=', householdId)
      .where('o.id', 'in', ids)
      .execute();
  }

  /** Accounts among `usernames` on a device that are mapped to a child the parent manages. */
  async managedAccounts(systemId: string, parentId: string, usernames: readonly string[]): Promise<string[]> {
    if (!usernames.length) return [];
    const rows = await this.db
      .selectFrom('device_mapping as m')
      .innerJoin('parent_child_permission as p', 'p.managed_user_id', 'm.managed_user_id')
      .select('m.linux_username')
      .where('m.system_id', '=', systemId)
      .where('m.linux_username', 'in', usernames)
      .where('p.parent_id', '=', parentId)
      .where('p.can_manage_policies', '=', 1)
      .execute();
    return rows.map((r) => r.linux_username);
  }

  /** Accounts on a device that are mapped to a child a parent holds any grant on. */
  async visibleAccounts(systemId: string, parentId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('device_mapping as m')
      .innerJoin('parent_child_permission as p', 'p.managed_user_id', 'm.managed_user_id')
      .select('m.linux_username')
      .where('m.system_id', '=', systemId)
      .where('p.parent_id', '=', parentId)
      .where((eb) => eb.or([eb('p.can_view', '=', 1), eb('p.can_manage_policies', '=', 1)]))
      .execute();
    return rows.map((r) => r.linux_username);
  }

  /** Children a parent holds any grant on. */
  async visibleChildIds(parentId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('parent_child_permission')
      .select('managed_user_id')
      .where('parent_id', '=', parentId)
      .where((eb) => eb.or([eb('can_view', '=', 1), eb('can_manage_policies', '=', 1)]))
      .execute();
    return rows.map((r) => r.managed_user_id);
  }

  /** Devices mapped to a child a parent holds any grant on. */
  async visibleDeviceIds(parentId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('device_mapping as m')
      .innerJoin('parent_child_permission as p', 'p.managed_user_id', 'm.managed_user_id')
      .select('m.system_id')
      .distinct()
      .where('p.parent_id', '=', parentId)
      .where((eb) => eb.or([eb('p.can_view', '=', 1), eb('p.can_manage_policies', '=', 1)]))
      .execute();
    return rows.map((r) => r.system_id);
  }
}
