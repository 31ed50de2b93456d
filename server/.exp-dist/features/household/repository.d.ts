import type { ParentRole } from '@hearth/protocol';
import type { Kysely } from 'kysely';
import type { Database, ParentTable } from '../../platform/db/schema.js';
export interface PermissionRow {
  parent_id: string;
  managed_user_id: string;
  can_view: boolean;
  can_manage_policies: boolean;
}
export declare class HouseholdRepository {
  private readonly db;
  constructor(db: Kysely<Database>);
  createHousehold(row: {
    id: string;
    name: string;
    enrollment_token: string;
    created_at: string;
  }): Promise<void>;
  getHousehold(id: string): Promise<
    | {
        id: string;
        name: string;
        enrollment_token: string;
        created_at: string;
      }
    | undefined
  >;
  firstHousehold(): Promise<
    | {
        id: string;
        name: string;
        enrollment_token: string;
        created_at: string;
      }
    | undefined
  >;
  countParents(): Promise<number>;
  insertParent(row: ParentTable): Promise<void>;
  findParentByUsernameKey(usernameKey: string): Promise<
    | {
        household_id: string;
        username: string;
        id: string;
        password_hash: string;
        role: 'owner' | 'admin' | 'member';
        household_name: string;
      }
    | undefined
  >;
  usernameTaken(usernameKey: string): Promise<
    | {
        id: string;
      }
    | undefined
  >;
  listParents(householdId: string): Promise<
    {
      username: string;
      id: string;
      created_at: string;
      role: 'owner' | 'admin' | 'member';
    }[]
  >;
  getParent(
    householdId: string,
    parentId: string,
  ): Promise<
    | {
        username: string;
        id: string;
        created_at: string;
        role: 'owner' | 'admin' | 'member';
      }
    | undefined
  >;
  countOwners(householdId: string): Promise<number>;
  updateParent(
    parentId: string,
    changes: {
      role?: ParentRole;
      password_hash?: string;
      updated_at: string;
    },
  ): Promise<void>;
  permissionsOf(parentIds: string[]): Promise<PermissionRow[]>;
  replacePermissions(parentId: string, rows: Omit<PermissionRow, 'parent_id'>[]): Promise<void>;
}
