export class HouseholdRepository {
  db;
  constructor(db) {
    this.db = db;
  }
  async createHousehold(row) {
    await this.db.insertInto('household').values(row).execute();
  }
  getHousehold(id) {
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
  async countParents() {
    const row = await this.db
      .selectFrom('parent')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  async insertParent(row) {
    await this.db.insertInto('parent').values(row).execute();
  }
  findParentByUsernameKey(usernameKey) {
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
  usernameTaken(usernameKey) {
    return this.db
      .selectFrom('parent')
      .select('id')
      .where('username_key', '=', usernameKey)
      .executeTakeFirst();
  }
  listParents(householdId) {
    return this.db
      .selectFrom('parent')
      .select(['id', 'username', 'role', 'created_at'])
      .where('household_id', '=', householdId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }
  getParent(householdId, parentId) {
    return this.db
      .selectFrom('parent')
      .select(['id', 'username', 'role', 'created_at'])
      .where('household_id', '=', householdId)
      .where('id', '=', parentId)
      .executeTakeFirst();
  }
  async countOwners(householdId) {
    const row = await this.db
      .selectFrom('parent')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('household_id', '=', householdId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  async updateParent(parentId, changes) {
    await this.db.updateTable('parent').set(changes).where('id', '=', parentId).execute();
  }
  async permissionsOf(parentIds) {
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
  async replacePermissions(parentId, rows) {
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
}
//# sourceMappingURL=repository.js.map
