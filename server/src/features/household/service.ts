import type {
  ChildPermission,
  CreateParentBody,
  DeletedView,
  ParentRole,
  ParentView,
  UpdateParentBody,
} from '@hearth/protocol';
import { isAdmin, type SessionAuth } from '../../platform/access.js';
import { creationIso, nowIso } from '../../platform/clock.js';
import { hashPassword, newId } from '../../platform/crypto.js';
import { conflict, forbidden, notFound } from '../../platform/errors.js';
import { cacheTags, type ReadCache } from '../../platform/read-cache.js';
import { usernameKey } from '../auth/service.js';
import type { UserRepository } from '../users/repository.js';
import type { HouseholdRepository } from './repository.js';

export class HouseholdService {
  constructor(
    private readonly repo: HouseholdRepository,
    private readonly users: UserRepository,
    private readonly cache: ReadCache,
  ) {}

  async listParents(actor: SessionAuth): Promise<ParentView[]> {
    const parents = await this.repo.listParents(actor.householdId);
    return this.withChildren(actor.householdId, parents);
  }

  async getParent(actor: SessionAuth, id: string): Promise<ParentView> {
    const parent = await this.repo.getParent(actor.householdId, id);
    if (!parent) throw notFound('The parent');
    const [view] = await this.withChildren(actor.householdId, [parent]);
    if (!view) throw notFound('The parent');
    return view;
  }

  /** Owners and admins hold every permission on every child; members hold what was granted. */
  private async withChildren(
    householdId: string,
    parents: { id: string; username: string; role: ParentRole; created_at: string }[],
  ): Promise<ParentView[]> {
    const perms = await this.repo.permissionsOf(parents.filter((p) => !isAdmin(p.role)).map((p) => p.id));
    const allChildren = parents.some((p) => isAdmin(p.role)) ? await this.users.list(householdId) : [];
    return parents.map((p) => ({
      id: p.id,
      username: p.username,
      role: p.role,
      created_at: p.created_at,
      children: isAdmin(p.role)
        ? allChildren.map((c) => ({ managed_user_id: c.id, can_view: true, can_manage_policies: true }))
        : perms
            .filter((r) => r.parent_id === p.id)
            .map((r) => ({
              managed_user_id: r.managed_user_id,
              can_view: r.can_view,
              can_manage_policies: r.can_manage_policies,
            })),
    }));
  }

  /** Every child must belong to the household; managing policies implies seeing the child. */
  private async grantableChildren(
    householdId: string,
    children: ChildPermission[],
  ): Promise<ChildPermission[]> {
    const byId = new Map<string, ChildPermission>();
    for (const c of children) byId.set(c.managed_user_id, c);
    const known = await this.users.existingIds(householdId, [...byId.keys()]);
    for (const id of byId.keys()) if (!known.has(id)) throw notFound(`The child ${id}`);
    return [...byId.values()]
      .map((c) => ({ ...c, can_view: c.can_view || c.can_manage_policies }))
      .filter((c) => c.can_view || c.can_manage_policies);
  }

  private static guardOwnerRole(actor: SessionAuth, role: ParentRole | undefined): void {
    if (role === 'owner' && actor.role !== 'owner')
      throw forbidden('Only an owner can make someone an owner.');
  }

  async createParent(actor: SessionAuth, body: CreateParentBody): Promise<ParentView> {
    HouseholdService.guardOwnerRole(actor, body.role);
    const children = await this.grantableChildren(actor.householdId, body.children ?? []);
    const passwordHash = await hashPassword(body.password);
    const at = creationIso();
    const id = newId();
    await this.repo.transaction(async (repo) => {
      if (await repo.usernameTaken(usernameKey(body.username)))
        throw conflict('That username is already taken.');
      await repo.insertParent({
        id,
        household_id: actor.householdId,
        username: body.username.trim(),
        username_key: usernameKey(body.username),
        password_hash: passwordHash,
        role: body.role,
        created_at: at,
        updated_at: at,
      });
      await repo.replacePermissions(id, body.role === 'member' ? children : []);
    });
    return this.getParent(actor, id);
  }

  /**
   * Removes a parent: their sessions and permissions go with them (foreign keys). Not yourself (another
   * owner or admin removes you, so a household is never left without someone to run it), an owner only
   * by an owner, and never the last owner.
   */
  async removeParent(actor: SessionAuth, id: string): Promise<DeletedView> {
    const target = await this.repo.getParent(actor.householdId, id);
    if (!target) throw notFound('The parent');
    if (target.id === actor.parentId)
      throw conflict('You cannot remove yourself; ask another owner or admin to do it.');
    if (target.role === 'owner' && actor.role !== 'owner')
      throw forbidden('Only an owner can remove an owner.');
    await this.repo.transaction(async (repo) => {
      if (target.role === 'owner' && (await repo.countOwners(actor.householdId)) <= 1)
        throw conflict('This is the last owner of the household; make someone else an owner first.');
      await repo.deleteParent(actor.householdId, id);
    });
    // Their cached sessions end on every instance.
    await this.cache.invalidate(cacheTags.parent(id));
    return { id, deleted: true };
  }

  async updateParent(actor: SessionAuth, id: string, body: UpdateParentBody): Promise<ParentView> {
    const target = await this.repo.getParent(actor.householdId, id);
    if (!target) throw notFound('The parent');
    if (target.role === 'owner' && actor.role !== 'owner')
      throw forbidden('Only an owner can change an owner.');
    HouseholdService.guardOwnerRole(actor, body.role);
    const children = body.children
      ? await this.grantableChildren(actor.householdId, body.children)
      : undefined;
    const passwordHash = body.password ? await hashPassword(body.password) : undefined;
    const username = body.username?.trim();
    await this.repo.transaction(async (repo) => {
      if (username && username !== target.username) {
        const taken = await repo.usernameTaken(usernameKey(username));
        if (taken && taken.id !== id) throw conflict('That username is already taken.');
      }
      const role = body.role ?? target.role;
      if (target.role === 'owner' && role !== 'owner' && (await repo.countOwners(actor.householdId)) <= 1) {
        throw conflict('This is the last owner of the household; make someone else an owner first.');
      }
      await repo.updateParent(id, {
        ...(body.role ? { role: body.role } : {}),
        ...(passwordHash ? { password_hash: passwordHash } : {}),
        ...(username ? { username, username_key: usernameKey(username) } : {}),
        updated_at: nowIso(),
      });
      if (role !== 'member') await repo.replacePermissions(id, []);
      else if (children) await repo.replacePermissions(id, children);
      // A new password signs the parent out everywhere else.
      if (passwordHash) await repo.deleteOtherSessions(id, actor.sessionId);
    });
    // Their sessions carry the role, and a new password ended all but the actor's.
    await this.cache.invalidate(cacheTags.parent(id));
    return this.getParent(actor, id);
  }
}
