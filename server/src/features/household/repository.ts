import type { ParentRole } from '@hearth/protocol';
import type { Kysely } from 'kysely';
import type { Database, ParentTable } from '../../platform/db/schema.js';

export interface PermissionRow {
  parent_id: string;
  managed_user_id: string;
  can_view: boolean;
  can_manage_policies: boolean;
}

export class HouseholdRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Runs `work` in one transaction, with a repository bound to it. */
  transaction<T>(work: (repo: HouseholdRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new HouseholdRepository(trx)));
  }

  async createHousehold(row: {
    id: string;
    name: string;
    timezone?: string;
    enrollment_token: string;
    created_at: string;
  }): Promise<void> {
    await this.db.insertInto('household').values(row).execute();
  }

  getHousehold(id: string) {
    return this.db.selectFrom('household').selectAll().where('id', '=', id).executeTakeFirst();
  }

  firstHousehold() {
    return this.db
      .selectFrom('household')
      .selectAll()
      .orderBy('created_at', 'asc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The household whose enrollment token this is (the caller compares in constant time). */
  byEnrollmentToken(token: string) {
    return this.db
      .selectFrom('household')
      .select(['id', 'enrollment_token'])
      .where('enrollment_token', '=', token)
      .executeTakeFirst();
  }

  async countParents(): Promise<number> {
    const row = await this.db
      .selectFrom('parent')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertParent(row: ParentTable): Promise<void> {
    await this.db.insertInto('parent').values(row).execute();
  }

  findParentByUsernameKey(usernameKey: string) {
    return this.db
      .selectFrom('parent')
      .innerJoin('household', 'household.id', 'parent.household_id')
      .select([
        'parent.id',
        'parent.username',
        'parent.password_hash',
        'parent.role',
        'parent.household_id',
        'household.name as household_name',
      ])
      .where('parent.username_key', '=', usernameKey)
      .executeTakeFirst();
  }

  usernameTaken(usernameKey: string) {
    return this.db
      .selectFrom('parent')
      .select('id')
      .where('username_key', '=', usernameKey)
      .executeTakeFirst();
  }

  listParents(householdId: string) {
    return this.db
      .selectFrom('parent')
      .select(['id', 'username', 'role', 'created_at'])
      .where('household_id', '=', householdId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  getParent(householdId: string, parentId: string) {
    return this.db
      .selectFrom('parent')
      .select(['id', 'username', 'role', 'created_at'])
      .where('household_id', '=', householdId)
      .where('id', '=', parentId)
      .executeTakeFirst();
  }

  async countOwners(householdId: string): Promise<number> {
    const row = await this.db
      .selectFrom('parent')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('household_id', '=', householdId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async updateParent(
    parentId: string,
    changes: {
      role?: ParentRole;
      password_hash?: string;
      username?: string;
      username_key?: string;
      updated_at: string;
    },
  ) {
    await this.db.updateTable('parent').set(changes).where('id', '=', parentId).execute();
  }

  async permissionsOf(parentIds: string[]): Promise<PermissionRow[]> {
    if (!parentIds.length) return [];
    const rows = await this.db
      .selectFrom('parent_child_permission')
      .selectAll()
      .where('parent_id', 'in', parentIds)
      .orderBy('managed_user_id')
      .execute();
    return rows.map((r) => ({
      ...r,
      can_view: r.can_view === 1,
      can_manage_policies: r.can_manage_policies === 1,
    }));
  }

  async replacePermissions(parentId: string, rows: Omit<PermissionRow, 'parent_id'>[]): Promise<void> {
    await this.db.deleteFrom('parent_child_permission').where('parent_id', '=', parentId).execute();
    if (!rows.length) return;
    await this.db
      .insertInto('parent_child_permission')
      .values(
        rows.map((r) => ({
          parent_id: parentId,
          managed_user_id: r.managed_user_id,
          can_view: r.can_view ? 1 : 0,
          can_manage_policies: r.can_manage_policies ? 1 : 0,
        })),
      )
      .execute();
  }

  /** Deletes a parent; their sessions and permissions go with them (foreign keys). */
  async deleteParent(householdId: string, parentId: string): Promise<void> {
    await this.db
      .deleteFrom('parent')
      .where('household_id', '=', householdId)
      .where('id', '=', parentId)
      .execute();
  }

  /** Signs a parent out everywhere but the given session. */
  async deleteOtherSessions(parentId: string, keepSessionId: string): Promise<void> {
    await this.db
      .deleteFrom('session')
      .where('parent_id', '=', parentId)
      .where('id', '!=', keepSessionId)
      .execute();
  }
}
