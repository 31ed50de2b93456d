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

  async view(actor: SessionAuth): Promise<DashboardView> {
    const [children, devices, recent, unread, approvals] = await Promise.all([
      this.users.list(actor),
      this.devices.list(actor, false),
      this.alerts.list(actor, { limit: 10 }),
      this.alerts.unreadCount(actor),
      this.pendingApprovals(actor),
    ]);
    const users = await Promise.all(
      children.map(async (child) => {
        const usage = await this.users.usage(actor, child.id);
        return {
          id: child.id,
          name: child.name,
          online: usage.online,
          used_seconds_today: usage.used_seconds_today,
          remaining_seconds: usage.remaining_seconds,
        };
      }),
    );
    return {
      household: { id: actor.householdId, name: actor.householdName },
      counts: {
        pending_devices: devices.filter((d) => d.status === 'pending').length,
        pending_approvals: approvals,
        unread_alerts: unread,
      },
      users,
      devices,
      recent_alerts: recent.items,
    };
  }
}
