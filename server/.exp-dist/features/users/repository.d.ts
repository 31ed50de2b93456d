import type { Kysely } from 'kysely';
import type { Database, DeviceMappingTable, ManagedUserTable } from '../../platform/db/schema.js';
export declare class UserRepository {
  private readonly db;
  constructor(db: Kysely<Database>);
  insert(row: ManagedUserTable): Promise<void>;
  get(
    householdId: string,
    id: string,
  ): Promise<
    | {
        id: string;
        name: string;
        created_at: string;
        household_id: string;
        updated_at: string;
        overlay_age_tier: 'under8' | 'eight12' | 'teen' | null;
        overlay_parent_note: string | null;
      }
    | undefined
  >;
  /** Children of the household, newest first; `onlyIds` narrows to the ones a member may see. */
  list(
    householdId: string,
    onlyIds?: string[],
  ): Promise<
    {
      id: string;
      name: string;
      created_at: string;
      overlay_age_tier: 'under8' | 'eight12' | 'teen' | null;
      overlay_parent_note: string | null;
    }[]
  >;
  existingIds(householdId: string, ids: string[]): Promise<Set<string>>;
  updateOverlay(
    id: string,
    changes: Partial<Pick<ManagedUserTable, 'overlay_age_tier' | 'overlay_parent_note'>> & {
      updated_at: string;
    },
  ): Promise<void>;
  /** Permission of one member parent on one child, if any. */
  permission(
    parentId: string,
    managedUserId: string,
  ): Promise<
    | {
        can_view: number;
        can_manage_policies: number;
      }
    | undefined
  >;
  viewableIds(parentId: string): Promise<string[]>;
  mappingsOf(userIds: string[]): Promise<
    {
      system_id: string;
      hostname: string | null;
      platform: string | null;
      status: 'pending' | 'approved' | 'rejected' | 'unenrolled' | null;
      linux_users: string | null;
      id: string;
      created_at: string;
      managed_user_id: string;
      linux_username: string;
    }[]
  >;
  findMapping(
    systemId: string,
    linuxUsername: string,
  ): Promise<
    | {
        id: string;
        managed_user_id: string;
      }
    | undefined
  >;
  insertMapping(row: DeviceMappingTable): Promise<void>;
  usageOn(
    pairs: {
      system_id: string;
      linux_username: string;
    }[],
    fromDate: string,
    toDate: string,
  ): Promise<
    {
      date: string;
      system_id: string;
      linux_username: string;
      seconds_used: number;
    }[]
  >;
}
