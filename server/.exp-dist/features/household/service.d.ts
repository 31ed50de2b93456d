import type { CreateParentBody, ParentView, UpdateParentBody } from '@hearth/protocol';
import type { Kysely } from 'kysely';
import { type SessionAuth } from '../../platform/access.js';
import type { Database } from '../../platform/db/schema.js';
export declare class HouseholdService {
  private readonly db;
  private readonly repo;
  constructor(db: Kysely<Database>);
  listParents(actor: SessionAuth): Promise<ParentView[]>;
  getParent(actor: SessionAuth, id: string): Promise<ParentView>;
  /** Owners and admins hold every permission on every child; members hold what was granted. */
  private withChildren;
  /** Every child must belong to the household; managing policies implies seeing the child. */
  private checkChildren;
  private static guardOwnerRole;
  createParent(actor: SessionAuth, body: CreateParentBody): Promise<ParentView>;
  updateParent(actor: SessionAuth, id: string, body: UpdateParentBody): Promise<ParentView>;
}
