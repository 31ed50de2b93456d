import type { Kysely } from 'kysely';
import type { Database, SessionTable } from '../../platform/db/schema.js';
export declare class SessionRepository {
  private readonly db;
  constructor(db: Kysely<Database>);
  insert(row: SessionTable): Promise<void>;
  find(id: string): Promise<
    | {
        username: string;
        role: 'owner' | 'admin' | 'member';
        household_name: string;
        csrf_token: string;
        last_seen_at: string;
        session_id: string;
        parent_id: string;
        household_id: string;
      }
    | undefined
  >;
  touch(id: string, at: string): Promise<void>;
  delete(id: string): Promise<void>;
  deleteForParent(parentId: string, exceptSessionId?: string): Promise<void>;
  deleteIdleBefore(cutoff: string): Promise<number>;
}
