import type { Kysely } from 'kysely';
import type { AgentDeviceTable, Database } from '../../platform/db/schema.js';
export interface ReportedAccount {
  username: string;
  display_name?: string;
}
export declare function parseLinuxUsers(json: string | null | undefined): ReportedAccount[];
export declare class DeviceRepository {
  private readonly db;
  constructor(db: Kysely<Database>);
  insert(row: AgentDeviceTable): Promise<void>;
  get(
    householdId: string,
    systemId: string,
  ): Promise<
    | {
        hostname: string;
        created_at: string;
        household_id: string;
        updated_at: string;
        last_seen_at: string | null;
        system_id: string;
        display_name: string | null;
        platform: string;
        status: 'pending' | 'approved' | 'rejected' | 'unenrolled';
        agent_version: string | null;
        linux_users: string;
        secure_token_hash: string | null;
      }
    | undefined
  >;
}
