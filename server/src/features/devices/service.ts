import {
  type AgeTier,
  type ApproveDeviceBody,
  type CommandOutcome,
  DEFAULT_AGE_TIER,
  type DeviceView,
  type OverlayControlBody,
  type RenameDeviceBody,
  type ShowOverlayArgs,
} from '@hearth/protocol';

import type { AgentChannel } from '../../agent-channel/channel.js';
import { type CommandQueue, type QueuePolicy, queuePolicyFor } from '../../agent-channel/queue.js';
import type { BearerDevice, SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { sha256Hex } from '../../platform/crypto.js';
import { conflict, forbidden, invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessService, DeviceNeed } from '../access/service.js';
import {
  type DeviceRepository,
  type DeviceRow,
  type DeviceTokenRepository,
  parseLinuxUsers,
  parseOverlays,
} from './repository.js';

export class DeviceService {
  /** Devices by token; any change to what `resolveBearer` reads invalidates the device's tag. */
  private readonly cachedBearers: CacheSpace<BearerDevice | null>;

  constructor(
    private readonly devices: DeviceRepository,
    private readonly tokens: DeviceTokenRepository,
    private readonly access: AccessService,
    private readonly channel: AgentChannel,
    private readonly queue: CommandQueue,
    private readonly events: EventPublisher,
    private readonly cache: ReadCache,
  ) {
    this.cachedBearers = cache.space('bearer');
  }

  /** `lastUsageAt`: when the device's usage last grew (DeviceRepository.lastUsageAt), if known. */
  view(row: DeviceRow, lastUsageAt: string | null = null): DeviceView {
    return {
      system_id: row.system_id,
      hostname: row.hostname,
      display_name: row.display_name ?? row.hostname,
      platform: row.platform,
      status: row.status,
      agent_version: row.agent_version,
      linux_users: parseLinuxUsers(row.linux_users),
      online: this.channel.isOnline(row),
      last_seen_at: row.last_seen_at,
      created_at: row.created_at,
      last_inventory_at: row.installed_apps_reported_at ?? null,
      last_usage_at: lastUsageAt,
      overlays: parseOverlays(row.overlay_state),
      overlays_reported_at: row.overlay_state_at ?? null,
    };
  }

  /**
   * The device's row once the parent may do `need` with it (AccessService.requireLoadedDevice gives
   * the answers; docs/architecture.md "One access module" the rule).
   */
  async loadDevice(actor: SessionAuth, systemId: string, need: DeviceNeed): Promise<DeviceRow> {
    const device = await this.devices.get(actor.householdId, systemId);
    if (!device) throw notFound('The device');
    await this.access.requireLoadedDevice(actor, device, need);
    return device;
  }

  async list(actor: SessionAuth, pendingOnly: boolean): Promise<DeviceView[]> {
    const rows = await this.devices.list(actor.householdId, {
      status: pendingOnly ? 'pending' : undefined,
      onlyIds: await this.access.visibleDeviceIds(actor),
    });
    const usage = await this.devices.lastUsageAt(rows.map((r) => r.system_id));
    return rows.map((r) => this.view(r, usage.get(r.system_id) ?? null));
  }

  async get(actor: SessionAuth, systemId: string): Promise<DeviceView> {
    const row = await this.loadDevice(actor, systemId, 'view');
    return this.view(row, (await this.devices.lastUsageAt([systemId])).get(systemId) ?? null);
  }

  async approve(actor: SessionAuth, systemId: string, body: ApproveDeviceBody) {
    await this.loadDevice(actor, systemId, 'sensitive');
    const at = nowIso();
    const changes = {
      status: 'approved' as const,
      decided_at: at,
      updated_at: at,
      ...(body.display_name ? { display_name: body.display_name.trim() } : {}),
    };
    if (!(await this.devices.transition(systemId, ['pending'], changes)))
      throw conflict('This device is not waiting for a decision.');
    await this.cache.invalidate(cacheTags.device(systemId));
    await this.channel.notifyDecision(systemId, 'approved');
    this.events.publish(actor.householdId, 'device_status', { system_id: systemId, status: 'approved' });
    return { system_id: systemId, status: 'approved' };
  }

  async reject(actor: SessionAuth, systemId: string) {
    await this.loadDevice(actor, systemId, 'sensitive');
    const at = nowIso();
    if (
      !(await this.devices.transition(systemId, ['pending'], {
        status: 'rejected',
        secure_token_hash: null,
        decided_at: at,
        updated_at: at,
      }))
    ) {
      throw conflict('This device is not waiting for a decision.');
    }
    await this.cache.invalidate(cacheTags.device(systemId));
    await this.channel.notifyDecision(systemId, 'rejected');
    this.events.publish(actor.householdId, 'device_status', { system_id: systemId, status: 'rejected' });
    return { system_id: systemId, status: 'rejected' };
  }

  async unenroll(actor: SessionAuth, systemId: string) {
    await this.loadDevice(actor, systemId, 'admin');
    const at = nowIso();
    // The token hash stays so the agent can still hear its unenroll command once; every bearer route
    // requires an approved device, so the token is revoked.
    if (
      !(await this.devices.transition(systemId, ['approved'], {
        status: 'unenrolled',
        decided_at: at,
        updated_at: at,
        // Hearth Space is no longer the server's to report once the device has left.
        overlay_state: null,
        overlay_state_at: null,
      }))
    ) {
      throw conflict('Only an approved device can be unenrolled.');
    }
    // The token stops working at once, on every instance.
    await this.cache.invalidate(cacheTags.device(systemId));
    await this.queue.enqueue(systemId, 'unenroll', {});
    await this.channel.notifyDecision(systemId, 'unenrolled');
    this.events.publish(actor.householdId, 'device_status', { system_id: systemId, status: 'unenrolled' });
    return { system_id: systemId, status: 'unenrolled' };
  }

  /**
   * Renames a device: the name parents see everywhere and the `device_name` of Hearth Space. The same
   * right as approving it (a sensitive device route: owner, admin, or managing a child who uses it).
   */
  async rename(actor: SessionAuth, systemId: string, body: RenameDeviceBody): Promise<DeviceView> {
    const device = await this.loadDevice(actor, systemId, 'sensitive');
    const displayName = body.display_name.trim();
    await this.devices.update(systemId, { display_name: displayName, updated_at: nowIso() });
    // The children list carries the mapped devices' names.
    await this.cache.invalidate(cacheTags.device(systemId), cacheTags.children(actor.householdId));
    this.events.publish(actor.householdId, 'device_status', { system_id: systemId });
    return this.view(
      { ...device, display_name: displayName },
      (await this.devices.lastUsageAt([systemId])).get(systemId) ?? null,
    );
  }

  /**
   * Removes a rejected or unenrolled device and everything that hangs on it (mappings with their
   * grants and requests, the command queue, usage, installed apps, app-rule sync), in one
   * transaction. Alerts and online accounts stay as history without the device. Owners and admins only.
   */
  async remove(actor: SessionAuth, systemId: string): Promise<{ system_id: string; deleted: boolean }> {
    const device = await this.loadDevice(actor, systemId, 'admin');
    const outcome = await this.devices.removeDecided(actor.householdId, systemId);
    if (outcome === 'enrolled') {
      throw conflict(
        device.status === 'pending'
          ? 'This device is waiting for a decision; reject it first, then remove it.'
          : 'This device is still enrolled; unenrol it first, then remove it.',
      );
    }
    if (outcome === 'missing') throw notFound('The device');
    await this.cache.invalidate(
      cacheTags.device(systemId),
      cacheTags.children(actor.householdId),
      ...outcome.mappingIds.map((id) => cacheTags.mapping(id)),
    );
    this.events.publish(actor.householdId, 'device_status', { system_id: systemId });
    return { system_id: systemId, deleted: true };
  }

  /** Delivers a command now if the device is online anywhere, else keeps it in the device's queue. */
  async command(
    systemId: string,
    command: string,
    args: Record<string, unknown>,
    policy: QueuePolicy = queuePolicyFor(command),
  ): Promise<CommandOutcome & { data?: unknown; error?: unknown }> {
    const result = await this.channel.rpc(systemId, command, args);
    if (result.status === 'ok') return { delivered: true, queued: false, data: result.data };
    if (result.status === 'error') return { delivered: true, queued: false, error: result.error ?? 'failed' };
    await this.queue.enqueue(systemId, command, args, policy);
    return { delivered: false, queued: true };
  }

  async overlay(actor: SessionAuth, systemId: string, body: OverlayControlBody): Promise<CommandOutcome> {
    const device = await this.loadDevice(actor, systemId, 'sensitive');
    if (device.status !== 'approved') throw conflict('The device is not approved.');
    // On a shared device a member may pause only the accounts of children they manage.
    if (!(await this.access.checkAccounts(actor, systemId, [body.linux_username])).has(body.linux_username))
      throw forbidden('You can pause only the accounts of children you manage.');
    if (body.action === 'dismiss') {
      const { delivered, queued } = await this.command(systemId, 'dismiss_overlay', {
        linux_username: body.linux_username,
      });
      return { delivered, queued };
    }
    if (!body.reason)
      throw invalidRequest('Say why the screen is paused: reason is required to show Hearth Space.', [
        { path: 'body/reason', message: 'is required' },
      ]);
    if (body.context && body.reason !== 'locked')
      throw invalidRequest(
        'A context goes only with the locked reason (paused: a parent paused the child).',
        [{ path: 'body/context', message: 'is allowed only when reason is locked' }],
      );
    const mapping = (await this.devices.mappingsOfDevice(systemId)).find(
      (m) => m.linux_username === body.linux_username,
    );
    const args: ShowOverlayArgs = {
      reason: body.reason,
      linux_username: body.linux_username,
      age_tier: (mapping?.overlay_age_tier as AgeTier | null | undefined) ?? DEFAULT_AGE_TIER,
      parent_note: mapping?.overlay_parent_note ?? null,
      device_name: device.display_name ?? device.hostname,
      ...(body.context ? { context: body.context } : {}),
    };
    const { delivered, queued } = await this.command(systemId, 'show_overlay', { ...args });
    return { delivered, queued };
  }

  async clearClockTamper(actor: SessionAuth, systemId: string): Promise<CommandOutcome> {
    const device = await this.loadDevice(actor, systemId, 'sensitive');
    if (device.status !== 'approved') throw conflict('The device is not approved.');
    const { delivered, queued } = await this.command(systemId, 'clear_clock_tamper', {});
    return { delivered, queued };
  }

  /** Bearer authentication: only an approved device's current token counts. */
  async resolveBearer(token: string): Promise<BearerDevice | null> {
    // Kept by the token itself, so a cached device costs no hashing; the database knows only its hash.
    return this.cachedBearers.load(token, async () => {
      const row = await this.tokens.byHash(sha256Hex(token));
      // Unknown and revoked tokens are not kept: only approved devices are.
      if (row?.status !== 'approved') return { value: null, tags: null };
      const device: BearerDevice = {
        systemId: row.system_id,
        householdId: row.household_id,
        platform: row.platform,
        agentVersion: row.agent_version,
        linuxUsers: parseLinuxUsers(row.linux_users).map((u) => u.username),
      };
      return { value: device, tags: [cacheTags.device(row.system_id)] };
    });
  }

  /** What an agent may cache about its own accounts: which child each is, and their Hearth Space card. */
  async agentAccounts(device: BearerDevice) {
    const row = await this.devices.bySystemId(device.systemId);
    const mappings = await this.devices.mappingsOfDevice(device.systemId);
    return {
      system_id: device.systemId,
      display_name: row?.display_name ?? row?.hostname ?? '',
      accounts: mappings.map((m) => ({
        linux_username: m.linux_username,
        managed_user_id: m.managed_user_id,
        managed_user_name: m.managed_user_name,
        overlay_age_tier: m.overlay_age_tier ?? DEFAULT_AGE_TIER,
        overlay_parent_note: m.overlay_parent_note,
      })),
    };
  }
}
