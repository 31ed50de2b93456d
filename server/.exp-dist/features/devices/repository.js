export function parseLinuxUsers(json) {
  if (!json) return [];
  try {
    const value = JSON.parse(json);
    return Array.isArray(value) ? value.filter((u) => u && typeof u.username === 'string') : [];
  } catch {
    return [];
  }
}
export class DeviceRepository {
  db;
  constructor(db) {
    this.db = db;
  }
  async insert(row) {
    await this.db.insertInto('agent_device').values(row).execute();
  }
  get(householdId, systemId) {
    return this.db
      .selectFrom('agent_device')
      .selectAll()
      .where('household_id', '=', householdId)
      .where('system_id', '=', systemId)
      .executeTakeFirst();
  }
}
//# sourceMappingURL=repository.js.map
