import type { Kysely } from 'kysely';
import type { AgentDeviceTable, Database } from '../../platform/db/schema.js';

export interface ReportedAccount {
  username: string;
  display_name?: string;
}

export function parseLinuxUsers(json: string | null | undefined): ReportedAccount[] {
  if (!json) return [];
  try {
    const value = JSON.parse(json);
    return Array.isArray(value) ? value.filter((u) => u && typeof u.username === 'string') : [];
  } catch {
    return [];
  }
}

export class DeviceRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: AgentDeviceTable): Promise<void> {
    await this.db.insertInto('agent_device').values(row).execute();
  }

  get(householdId: string, systemId: string) {
    return this.db
      .selectFrom('agent_device')
      .selectAll()
      .where('household_id', '=', householdId)
      .where('system_id', '=', systemId)
      .executeTakeFirst();
  }
}
