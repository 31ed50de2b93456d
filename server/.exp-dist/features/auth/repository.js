export class SessionRepository {
  db;
  constructor(db) {
    this.db = db;
  }
  async insert(row) {
    await this.db.insertInto('session').values(row).execute();
  }
  find(id) {
    return this.db
      .selectFrom('session')
      .innerJoin('parent', 'parent.id', 'session.parent_id')
      .innerJoin('household', 'household.id', 'parent.household_id')
      .select([
        'session.id as session_id',
        'session.csrf_token',
        'session.last_seen_at',
        'parent.id as parent_id',
        'parent.username',
        'parent.role',
        'household.id as household_id',
        'household.name as household_name',
      ])
      .where('session.id', '=', id)
      .executeTakeFirst();
  }
  async touch(id, at) {
    await this.db.updateTable('session').set({ last_seen_at: at }).where('id', '=', id).execute();
  }
  async delete(id) {
    await this.db.deleteFrom('session').where('id', '=', id).execute();
  }
  async deleteForParent(parentId, exceptSessionId) {
    let q = this.db.deleteFrom('session').where('parent_id', '=', parentId);
    if (exceptSessionId) q = q.where('id', '!=', exceptSessionId);
    await q.execute();
  }
  async deleteIdleBefore(cutoff) {
    const result = await this.db.deleteFrom('session').where('last_seen_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
//# sourceMappingURL=repository.js.map
