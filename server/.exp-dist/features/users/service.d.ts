import type {
  AddMappingBody,
  CreateUserBody,
  ManagedUserView,
  MappingView,
  OverlayBody,
  StatsView,
  UsageView,
  ValidationView,
} from '@hearth/protocol';
import type { Kysely } from 'kysely';
import { type SessionAuth } from '../../platform/access.js';
import type { Database, ManagedUserTable } from '../../platform/db/schema.js';
export type ChildNeed = 'view' | 'manage';
export declare class UserService {
  private readonly users;
  private readonly devices;
  constructor(db: Kysely<Database>);
  /**
   * The child if the parent may see it (404 otherwise, exactly like a missing child) and 403 when a
   * member may see it but not change its policies.
   */
  requireChild(actor: SessionAuth, id: string, need: ChildNeed): Promise<ManagedUserTable>;
  list(actor: SessionAuth): Promise<ManagedUserView[]>;
  get(actor: SessionAuth, id: string): Promise<ManagedUserView>;
  create(actor: SessionAuth, input: CreateUserBody): Promise<ManagedUserView>;
  updateOverlay(
    actor: SessionAuth,
    id: string,
    body: OverlayBody,
  ): Promise<{
    id: string;
    overlay_age_tier: 'under8' | 'eight12' | 'teen' | null;
    overlay_parent_note: string | null;
  }>;
  addMapping(actor: SessionAuth, userId: string, body: AddMappingBody): Promise<MappingView>;
  validate(actor: SessionAuth, userId: string): Promise<ValidationView>;
  usage(actor: SessionAuth, userId: string): Promise<UsageView>;
  stats(actor: SessionAuth, userId: string, days: number): Promise<StatsView>;
}
