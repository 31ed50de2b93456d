import type { DashboardView, DeviceView } from '@hearth/protocol';
import type { SessionAuth } from '../../platform/access.js';
import type { AccessService } from '../access/service.js';
import type { AlertService } from '../alerts/service.js';
import type { DeviceRow } from '../devices/repository.js';
import type { DeviceService } from '../devices/service.js';
import type { UserService } from '../users/service.js';
import type { DashboardRepository, ShownDeviceRow } from './repository.js';

/** How long kept device rows serve without a full read, as the read cache's entries. */
const KEEP_DEVICES_MS = 60_000;
const KEEP_DEVICES_HOUSEHOLDS = 10_000;

/** How many approval requests wait for this parent (the approvals feature supplies it). */

export type PendingApprovalCounter = (actor: SessionAuth) => Promise<number>;

export class DashboardService {
  /** Per instance: a household's device rows as last read, checked against presence on each visit. */
  private readonly keptDevices = new Map<string, { readAt: number; rows: Map<string, ShownDeviceRow> }>();

  constructor(
    private readonly repo: DashboardRepository,
    private readonly access: AccessService,
    private readonly users: UserService,
    private readonly devices: DeviceService,
    private readonly alerts: AlertService,
    private readonly pendingApprovals: PendingApprovalCounter = async () => 0,
  ) {}

  /**
   * The devices the parent sees. Owners and admins get them through the prepared reads: the whole
   * rows once, then on each visit only the narrow presence read, as long as every device's
   * `updated_at` (set by every other write to a device) is what the kept rows hold. A new, removed or
   * changed device, or a copy older than a minute, reads the rows again.
   */
  private async devicesFor(actor: SessionAuth): Promise<DeviceView[]> {
    if ((await this.access.visibleDeviceIds(actor)) !== null) return this.devices.list(actor, false);
    const household = actor.householdId;
    const kept = this.keptDevices.get(household);
    if (kept && Date.now() - kept.readAt < KEEP_DEVICES_MS) {
      const presence = await this.repo.presenceOf(household);
      const rows: ShownDeviceRow[] = [];
      for (const live of presence) {
        const row = kept.rows.get(live.system_id);
        if (row?.updated_at !== live.updated_at) break;
        rows.push({ ...row, ...live });
      }
      if (rows.length === presence.length && rows.length === kept.rows.size)
        return rows.map((row) => this.deviceView(row));
    }
    const readAt = Date.now();
    const rows = await this.repo.devicesOf(household);
    this.keptDevices.delete(household);
    if (this.keptDevices.size >= KEEP_DEVICES_HOUSEHOLDS) {
      const oldest = this.keptDevices.keys().next().value;
      if (oldest !== undefined) this.keptDevices.delete(oldest);
    }
    this.keptDevices.set(household, { readAt, rows: new Map(rows.map((r) => [r.system_id, r])) });
    return rows.map((row) => this.deviceView(row));
  }

  // The view reads only the columns the dashboard's reads select (ShownDeviceRow).
  private deviceView(row: ShownDeviceRow): DeviceView {
    return this.devices.view(row as DeviceRow);
  }

  /**
   * A fixed number of reads whatever the size of the household: a child's use today comes from one
   * grouped read for all children, and whether a child is online from the devices list, which holds
   * every device mapped to a child the parent sees.
   */
  async view(actor: SessionAuth): Promise<DashboardView> {
    const [children, devices, recent, unread, approvals, usedToday] = await Promise.all([
      this.users.list(actor),
      this.devicesFor(actor),
      this.alerts.list(actor, { limit: 10 }),
      this.alerts.unreadCount(actor),
      this.pendingApprovals(actor),
      this.users.usedToday(actor),
    ]);
    const online = new Set<string>();
    let pendingDevices = 0;
    for (const d of devices) {
      if (d.online) online.add(d.system_id);
      if (d.status === 'pending') pendingDevices++;
    }
    return {
      household: { id: actor.householdId, name: actor.householdName },
      counts: {
        pending_devices: pendingDevices,
        pending_approvals: approvals,
        unread_alerts: unread,
      },
      users: children.map((child) => ({
        id: child.id,
        name: child.name,
        online: child.mappings.some((m) => online.has(m.system_id)),
        used_seconds_today: usedToday.get(child.id) ?? 0,
        // Allowances arrive with weekly schedules; until a child has one there is no limit.
        remaining_seconds: null,
      })),
      devices,
      recent_alerts: recent.items,
    };
  }
}
