import type {
  AddMappingBody,
  CreateUserBody,
  DeletedView,
  ManagedUserView,
  MappingView,
  OverlayBody,
  RenameUserBody,
  ValidationView,
} from '@hearth/protocol';

import type { SessionAuth } from '../../platform/access.js';
import { creationIso, nowIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import type { ManagedUserTable } from '../../platform/db/schema.js';
import { conflict, notFound } from '../../platform/errors.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessService, ChildNeed } from '../access/service.js';
import { type DeviceRepository, parseLinuxUsers } from '../devices/repository.js';
import type { UserRepository } from './repository.js';

function cleanNote(note: string | null | undefined): string | null | undefined {
  if (note === undefined || note === null) return note;
  const trimmed = note.trim();
  return trimmed === '' ? null : trimmed;
}

type MappingSummary = ManagedUserView['mappings'][number];

/** An account that a child no longer owns: its device must stop enforcing that child's rules. */
export interface ReleasedAccount {
  id: string;
  system_id: string;
  linux_username: string;
  managed_user_id: string;
}

/** A mapping as the children list shows it: the device by the name a parent gave it. */
function mappingSummary(m: {
  id: string;
  system_id: string;
  linux_username: string;
  hostname: string | null;
  display_name: string | null;
  platform: string | null;
  status: string | null;
}): MappingSummary {
  return {
    id: m.id,
    system_id: m.system_id,
    hostname: m.hostname,
    display_name: m.display_name ?? m.hostname,
    device_status: m.status,
    platform: m.platform,
    linux_username: m.linux_username,
  };
}

export class UserService {
  /** Every child of a household with mappings, as owners and admins see it (read-only: never mutate). */
  private readonly cachedChildren: CacheSpace<ManagedUserView[]>;

  constructor(
    private readonly users: UserRepository,
    private readonly devices: DeviceRepository,
    private readonly access: AccessService,
    private readonly cache: ReadCache,
    /** Tells the devices of unlinked accounts to stop enforcing the child's rules (see services.ts). */
    private readonly release: (accounts: ReleasedAccount[]) => Promise<void> = async () => {},
    /** Tells the newly mapped account's device the child's policies (see services.ts). */
    private readonly mapped: (managedUserId: string) => Promise<void> = async () => {},
  ) {
    this.cachedChildren = cache.space('children');
  }

  /** The child's row once the parent may use it (see AccessService.requireChild for the answers). */
  private async loadChild(actor: SessionAuth, id: string, need: ChildNeed): Promise<ManagedUserTable> {
    await this.access.requireChild(actor, id, need);
    const child = await this.users.get(actor.householdId, id);
    if (!child) throw notFound('The child');
    return child;
  }

  async list(actor: SessionAuth): Promise<ManagedUserView[]> {
    const visible = await this.access.visibleChildIds(actor);
    if (visible === null) {
      const household = actor.householdId;
      return this.cachedChildren.load(household, async () => ({
        value: await this.readHouseholdChildren(household),
        tags: [cacheTags.children(household)],
      }));
    }
    const rows = await this.users.list(actor.householdId, visible);
    const mappings = await this.users.mappingsOf(rows.map((r) => r.id));
    const byUser = new Map<string, ManagedUserView['mappings']>();
    for (const m of mappings) {
      const list = byUser.get(m.managed_user_id) ?? [];
      byUser.set(m.managed_user_id, list);
      list.push(mappingSummary(m));
    }
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      overlay_age_tier: r.overlay_age_tier,
      overlay_parent_note: r.overlay_parent_note,
      mappings: byUser.get(r.id) ?? [],
    }));
  }

  private async readHouseholdChildren(householdId: string): Promise<ManagedUserView[]> {
    const views: ManagedUserView[] = [];
    for (const row of await this.users.childrenWithMappings(householdId)) {
      let view = views[views.length - 1];
      if (view?.id !== row.id) {
        view = {
          id: row.id,
          name: row.name,
          overlay_age_tier: row.overlay_age_tier,
          overlay_parent_note: row.overlay_parent_note,
          mappings: [],
        };
        views.push(view);
      }
      if (row.mapping_id && row.system_id && row.linux_username) {
        view.mappings.push(
          mappingSummary({
            ...row,
            id: row.mapping_id,
            system_id: row.system_id,
            linux_username: row.linux_username,
            status: row.device_status,
          }),
        );
      }
    }
    return views;
  }

  async get(actor: SessionAuth, id: string): Promise<ManagedUserView> {
    const child = await this.loadChild(actor, id, 'view');
    const mappings = await this.users.mappingsOf([id]);
    return {
      id: child.id,
      name: child.name,
      overlay_age_tier: child.overlay_age_tier,
      overlay_parent_note: child.overlay_parent_note,
      mappings: mappings.map(mappingSummary),
    };
  }

  async create(actor: SessionAuth, input: CreateUserBody): Promise<ManagedUserView> {
    const at = creationIso();
    const row: ManagedUserTable = {
      id: newId(),
      household_id: actor.householdId,
      name: input.name.trim(),
      overlay_age_tier: input.overlay_age_tier ?? null,
      overlay_parent_note: cleanNote(input.overlay_parent_note) ?? null,
      created_at: at,
      updated_at: at,
      paused_until: null,
    };
    await this.users.insert(row);
    await this.cache.invalidate(cacheTags.children(actor.householdId));
    return {
      id: row.id,
      name: row.name,
      overlay_age_tier: row.overlay_age_tier,
      overlay_parent_note: row.overlay_parent_note,
      mappings: [],
    };
  }

  async updateOverlay(actor: SessionAuth, id: string, body: OverlayBody) {
    const child = await this.loadChild(actor, id, 'manage');
    const changes: Partial<Pick<ManagedUserTable, 'overlay_age_tier' | 'overlay_parent_note'>> = {};
    if (body.overlay_age_tier !== undefined) changes.overlay_age_tier = body.overlay_age_tier;
    const note = cleanNote(body.overlay_parent_note);
    if (note !== undefined) changes.overlay_parent_note = note;
    if (Object.keys(changes).length) {
      await this.users.updateOverlay(id, { ...changes, updated_at: nowIso() });
      await this.cache.invalidate(cacheTags.children(actor.householdId));
    }
    const next = { ...child, ...changes };
    return {
      id: next.id,
      overlay_age_tier: next.overlay_age_tier,
      overlay_parent_note: next.overlay_parent_note,
    };
  }

  async addMapping(actor: SessionAuth, userId: string, body: AddMappingBody): Promise<MappingView> {
    await this.access.requireChild(actor, userId, 'manage');
    const device = await this.devices.get(actor.householdId, body.system_id);
    if (!device) throw notFound('The device');
    // Mapping gives the rights of a device's sensitive routes (approve, clear the clock lock), so it
    // needs them: owner or admin, or managing a child already mapped to the device. So only an owner
    // or admin maps a device no child uses yet (new or pending) or one only other children use.
    await this.access.requireLoadedDevice(actor, device, 'sensitive');
    const linuxUsername = body.linux_username.trim();
    const existing = await this.users.findMapping(device.system_id, linuxUsername);
    if (existing) {
      throw conflict(
        existing.managed_user_id === userId
          ? 'This account on this device is already mapped to the child.'
          : 'This account on this device is already mapped to another child.',
      );
    }
    const row = {
      id: newId(),
      household_id: actor.householdId,
      managed_user_id: userId,
      system_id: device.system_id,
      linux_username: linuxUsername,
      created_at: creationIso(),
    };
    try {
      await this.users.insertMapping(row);
    } catch (err) {
      // A concurrent request won the unique (device, account) slot.
      if (await this.users.findMapping(device.system_id, linuxUsername))
        throw conflict('This account on this device is already mapped.');
      throw err;
    }
    // The household's list shows the mapping; the device's accounts now belong to a child.
    await this.cache.invalidate(cacheTags.children(actor.householdId), cacheTags.device(device.system_id));
    await this.mapped(userId);
    return {
      id: row.id,
      system_id: row.system_id,
      linux_username: row.linux_username,
      managed_user_id: userId,
    };
  }

  /** Renames a child (owners and admins: the route says so). */
  async rename(actor: SessionAuth, id: string, body: RenameUserBody): Promise<ManagedUserView> {
    await this.loadChild(actor, id, 'manage');
    await this.users.rename(id, body.name.trim(), nowIso());
    await this.cache.invalidate(cacheTags.children(actor.householdId));
    return this.get(actor, id);
  }

  /**
   * Removes a child with everything that was theirs: mappings (and with them sign-up settings,
   * grants and requests), permissions, app rules, time adjustments, online accounts. The alerts stay
   * as history, no longer naming the child (the alert's managed_user_id becomes null).
   */
  async remove(actor: SessionAuth, id: string): Promise<DeletedView> {
    await this.loadChild(actor, id, 'manage');
    const devices = await this.users.removeChild(actor.householdId, id);
    await this.cache.invalidate(
      cacheTags.children(actor.householdId),
      ...devices.map((d) => cacheTags.device(d.system_id)),
      ...devices.map((d) => cacheTags.mapping(d.id)),
    );
    await this.release(devices);
    return { id, deleted: true };
  }

  /** Unlinks an account from its child: the same right as linking it (manage the child). */
  async removeMapping(actor: SessionAuth, mappingId: string): Promise<DeletedView> {
    await this.access.requireMapping(actor, mappingId, 'manage');
    const removed = await this.users.removeMapping(actor.householdId, mappingId);
    if (!removed) throw notFound('The mapping');
    await this.cache.invalidate(
      cacheTags.children(actor.householdId),
      cacheTags.device(removed.system_id),
      cacheTags.mapping(mappingId),
    );
    await this.release([removed]);
    return { id: mappingId, deleted: true };
  }

  async validate(actor: SessionAuth, userId: string): Promise<ValidationView> {
    await this.access.requireChild(actor, userId, 'view');
    const mappings = await this.users.mappingsOf([userId]);
    const items = mappings.map((m) => {
      const problems: string[] = [];
      if (m.status !== 'approved') problems.push('device_not_approved');
      if (!parseLinuxUsers(m.linux_users).some((u) => u.username === m.linux_username))
        problems.push('account_not_reported');
      return {
        id: m.id,
        system_id: m.system_id,
        linux_username: m.linux_username,
        valid: problems.length === 0,
        problems,
      };
    });
    return { user_id: userId, valid: items.every((i) => i.valid), mappings: items };
  }
}
