import type { DashboardView } from '@hearth/protocol';
import type { SessionAuth } from '../../platform/access.js';
import type { AlertService } from '../alerts/service.js';
import type { DeviceService } from '../devices/service.js';
import type { UserService } from '../users/service.js';

/** How many approval requests wait for this parent (the approvals feature supplies it). */

export type PendingApprovalCounter = (actor: SessionAuth) => Promise<number>;

export class DashboardService {
  constructor(
    private readonly users: UserService,
    private readonly devices: DeviceService,
    private readonly alerts: AlertService,
    private readonly pendingApprovals: PendingApprovalCounter = async () => 0,
  ) {}

  /**
   * A fixed number of reads whatever the size of the household: a child's use today comes from one
   * grouped read for all children, and whether a child is online from the devices list, which holds
   * every device mapped to a child the parent sees.
   */
  async view(actor: SessionAuth): Promise<DashboardView> {
    const [children, devices, recent, unread, approvals, usedToday] = await Promise.all([
      this.users.list(actor),
      this.devices.list(actor, false),
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
