import { isAdmin, type SessionAuth } from '../../platform/access.js';
import { forbidden, notFound } from '../../platform/errors.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessRepository, GrantRow } from './repository.js';

/** What a parent needs to do something with a child (or with what belongs to one). */
export type ChildNeed = 'view' | 'manage';
/** What a parent needs to do something with a device. */
export type DeviceNeed = 'view' | 'sensitive' | 'admin';

const CHILD_READ_ONLY = 'You can see this child but not change their settings; ask the household owner.';
const ADMIN_ONLY = 'Only a household owner or admin can do this.';
const DEVICE_READ_ONLY = 'You need permission to manage a child who uses this device.';

/** A member's grant on one child: none, see it, or also change its policies. */
function levelOf(row: Pick<GrantRow, 'can_view' | 'can_manage_policies'>): ChildNeed | null {
  if (Number(row.can_manage_policies) === 1) return 'manage';
  return Number(row.can_view) === 1 ? 'view' : null;
}

const satisfies = (level: ChildNeed | null, need: ChildNeed) =>
  level === 'manage' || (level === 'view' && need === 'view');

/**
 * Object access, in one place and default-deny: which of these ids may this parent use, answered with
 * one query whatever the number of ids. Owners and admins may use everything of their household;
 * members what belongs to the children they were granted. Something of another household, or one the
 * parent may not see, answers exactly like a missing one (404); 403 only where they may see it but
 * not do this with it.
 */
export class AccessService {
  /**
   * A parent's grants on every child of their household, kept between the writes that change them:
   * a child added or removed drops it (the household's children tag), and so does any change to the
   * parent — role, permissions, removal (the parent tag), on every instance. Every child route asks
   * this first, so it must not cost a query each time.
   */
  private readonly grants: CacheSpace<ReadonlyMap<string, GrantRow>> | null;

  constructor(
    private readonly repo: AccessRepository,
    cache?: ReadCache,
  ) {
    this.grants = cache ? cache.space('child-grants') : null;
  }

  private async childGrantsOf(actor: SessionAuth, ids: readonly string[]): Promise<GrantRow[]> {
    if (!this.grants) return this.repo.childGrants(actor.householdId, actor.parentId, ids);
    const { householdId, parentId } = actor;
    const all = await this.grants.load(`${householdId}\u0000${parentId}`, async () => ({
      value: new Map((await this.repo.allChildGrants(householdId, parentId)).map((r) => [r.id, r])),
      tags: [cacheTags.children(householdId), cacheTags.parent(parentId)],
    }));
    return ids.flatMap((id) => {
      const row = all.get(id);
      return row ? [row] : [];
    });
  }

  /** Children among `ids` the parent may view, or manage. */
  async checkChildren(actor: SessionAuth, ids: readonly string[], need: ChildNeed): Promise<Set<string>> {
    const rows = await this.childGrantsOf(actor, ids);
    return this.allowed(actor, rows, need);
  }

  /** Throws 404 for a child the parent may not see, 403 for one they may see but not manage. */
  async requireChild(actor: SessionAuth, id: string, need: ChildNeed): Promise<void> {
    const [row] = await this.childGrantsOf(actor, [id]);
    if (!row) throw notFound('The child');
    this.requireLevel(actor, row, need, 'The child');
  }

  /** The children a member may see; null for owners and admins, who see every child. */
  async visibleChildIds(actor: SessionAuth): Promise<string[] | null> {
    return isAdmin(actor.role) ? null : this.repo.visibleChildIds(actor.parentId);
  }

  /**
   * Devices among `ids` the parent may use: a member sees a device mapped to a child they may see,
   * does sensitive things with one mapped to a child they manage, and never administers one.
   */
  async checkDevices(actor: SessionAuth, ids: readonly string[], need: DeviceNeed): Promise<Set<string>> {
    const rows = await this.repo.deviceGrants(actor.householdId, actor.parentId, ids);
    if (isAdmin(actor.role)) return new Set(rows.map((r) => r.id));
    if (need === 'admin') return new Set();
    return new Set(
      rows.filter((r) => satisfies(levelOf(r), need === 'view' ? 'view' : 'manage')).map((r) => r.id),
    );
  }

  /** Throws 404 for a device the parent may not see, 403 for what they may not do with one they see. */
  async requireDeviceAccess(actor: SessionAuth, systemId: string, need: DeviceNeed): Promise<void> {
    const [row] = await this.repo.deviceGrants(actor.householdId, actor.parentId, [systemId]);
    if (!row) throw notFound('The device');
    if (isAdmin(actor.role)) return;
    const level = levelOf(row);
    if (!level) throw notFound('The device');
    if (need === 'admin') throw forbidden(ADMIN_ONLY);
    if (need === 'sensitive' && level !== 'manage') throw forbidden(DEVICE_READ_ONLY);
  }

  /**
   * `requireDeviceAccess` for a device row its caller has already read: owners and admins of its
   * household need no further read, which keeps a parent's device clicks at one query.
   */
  async requireLoadedDevice(
    actor: SessionAuth,
    device: { system_id: string; household_id: string },
    need: DeviceNeed,
  ): Promise<void> {
    if (device.household_id !== actor.householdId) throw notFound('The device');
    if (isAdmin(actor.role)) return;
    await this.requireDeviceAccess(actor, device.system_id, need);
  }

  /** The devices a member may see; null for owners and admins, who see every device. */
  async visibleDeviceIds(actor: SessionAuth): Promise<string[] | null> {
    return isAdmin(actor.role) ? null : this.repo.visibleDeviceIds(actor.parentId);
  }

  /**
   * Accounts among `usernames` on a device whose screen the parent may control: any for owners and
   * admins, those mapped to a child they manage for members (a shared device has several children).
   */
  async checkAccounts(
    actor: SessionAuth,
    systemId: string,
    usernames: readonly string[],
  ): Promise<Set<string>> {
    if (isAdmin(actor.role)) return new Set(usernames);
    return new Set(await this.repo.managedAccounts(systemId, actor.parentId, usernames));
  }

  /**
   * The accounts of a device whose data the parent may read: null (all) for owners and admins, those
   * mapped to a child they may see for members — not a sibling's on a shared device, nor unmapped ones.
   */
  async visibleAccounts(actor: SessionAuth, systemId: string): Promise<Set<string> | null> {
    return isAdmin(actor.role) ? null : new Set(await this.repo.visibleAccounts(systemId, actor.parentId));
  }

  /** Device mappings among `ids` whose child the parent may view, or manage. */
  async checkMappings(actor: SessionAuth, ids: readonly string[], need: ChildNeed): Promise<Set<string>> {
    const rows = await this.repo.mappingGrants(actor.householdId, actor.parentId, ids);
    return this.allowed(actor, rows, need);
  }

  /** Throws 404 for a missing mapping or one of a child the parent may not see, 403 as for the child. */
  async requireMapping(actor: SessionAuth, mappingId: string, need: ChildNeed): Promise<void> {
    const [row] = await this.repo.mappingGrants(actor.householdId, actor.parentId, [mappingId]);
    if (!row) throw notFound('The mapping');
    this.requireLevel(actor, row, need, 'The mapping');
  }

  /** Approval requests among `ids` the parent may decide: those of a child they manage. */
  async checkApprovals(actor: SessionAuth, ids: readonly string[]): Promise<Set<string>> {
    const rows = await this.repo.approvalGrants(actor.householdId, actor.parentId, ids);
    return this.allowed(actor, rows, 'manage');
  }

  /**
   * Throws unless the parent may decide the request: 404 for a missing one or, for members, one of no
   * child or of a child they may not see; 403 for a child they may see but not manage.
   */
  async requireApproval(actor: SessionAuth, id: string): Promise<void> {
    const [row] = await this.repo.approvalGrants(actor.householdId, actor.parentId, [id]);
    if (!row) throw notFound('The request');
    if (isAdmin(actor.role)) return;
    if (!row.managed_user_id) throw notFound('The request');
    this.requireLevel(actor, row, 'manage', 'The request');
  }

  /** Alerts among `ids` the parent may see: members only those of a child they may see. */
  async checkAlerts(actor: SessionAuth, ids: readonly string[]): Promise<Set<string>> {
    const rows = await this.repo.alertGrants(actor.householdId, actor.parentId, ids);
    return this.allowed(actor, rows, 'view');
  }

  private allowed(actor: SessionAuth, rows: GrantRow[], need: ChildNeed): Set<string> {
    if (isAdmin(actor.role)) return new Set(rows.map((r) => r.id));
    return new Set(rows.filter((r) => satisfies(levelOf(r), need)).map((r) => r.id));
  }

  /**
   * `what` names the object asked for: one of a child the parent may not see answers exactly as a
   * missing one, word for word, so the answer never tells whether it exists.
   */
  private requireLevel(actor: SessionAuth, row: GrantRow, need: ChildNeed, what: string): void {
    if (isAdmin(actor.role)) return;
    const level = levelOf(row);
    if (!level) throw notFound(what);
    if (need === 'manage' && level !== 'manage') throw forbidden(CHILD_READ_ONLY);
  }
}
