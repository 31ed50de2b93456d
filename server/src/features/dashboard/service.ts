import type { DashboardView } from '@hearth/protocol';
import type { SessionAuth } from '../../platform/access.js';
import { FreshCache } from '../../platform/fresh-cache.js';
import { cacheTags } from '../../platform/read-cache.js';
import type { AccessService } from '../access/service.js';
import type { AlertService } from '../alerts/service.js';
import type { DeviceService } from '../devices/service.js';
import type { UserService } from '../users/service.js';

/**
 * How long an owner's or admin's dashboard of a household is answered again as assembled. Every
 * change that comes with a live event or a cache invalidation drops it at once; what changes without
 * either (a connected agent's last-seen time, the running total of today's use) shows at most this
 * late — both are themselves written only every so often by the agents' reports.
 */
export const DASHBOARD_FRESH_MS = 1_000;

/** Tags whose invalidation names the household it concerns, and those that may concern any. */
const HOUSEHOLD_TAGS = [cacheTags.children(''), cacheTags.alerts(''), cacheTags.approvals('')];
const ANY_HOUSEHOLD_TAGS = [cacheTags.device(''), cacheTags.mapping(''), cacheTags.allAlerts()];

/** How many approval requests wait for this parent (the approvals feature supplies it). */
export type PendingApprovalCounter = (actor: SessionAuth) => Promise<number>;

/** Each child's use today and what is left, from the rules engine (the time feature supplies it). */
export type TodayReader = (
  actor: SessionAuth,
) => Promise<Map<string, { used_seconds: number; remaining_seconds: number | null }>>;

export class DashboardService {
  /** Per instance: each household's dashboard as owners and admins see it. */
  private readonly assembled = new FreshCache<DashboardView>(DASHBOARD_FRESH_MS);

  constructor(
    private readonly access: AccessService,
    private readonly users: UserService,
    private readonly devices: DeviceService,
    private readonly alerts: AlertService,
    private readonly pendingApprovals: PendingApprovalCounter = async () => 0,
    private readonly today: TodayReader = async () => new Map(),
  ) {}

  /** A live event of the household was published (heard on every instance): its dashboard changed. */
  eventHeard(householdId: string): void {
    this.assembled.drop(householdId);
  }

  /** The read cache dropped these tags (`null`: everything), here or on another instance. */
  cacheDropped(tags: readonly string[] | null): void {
    if (tags === null) {
      this.assembled.clear();
      return;
    }
    for (const tag of tags) {
      const prefix = HOUSEHOLD_TAGS.find((p) => tag.startsWith(p));
      if (prefix) this.assembled.drop(tag.slice(prefix.length));
      else if (ANY_HOUSEHOLD_TAGS.some((p) => tag.startsWith(p))) this.assembled.clear();
    }
  }

  /**
   * The dashboard. Owners and admins of a household share one assembled view for up to
   * DASHBOARD_FRESH_MS (see there); members' are read for them each time.
   */
  async view(actor: SessionAuth): Promise<DashboardView> {
    if ((await this.access.visibleChildIds(actor)) !== null) return this.read(actor);
    const household = { id: actor.householdId, name: actor.householdName };
    const kept = this.assembled.get(actor.householdId);
    if (kept) return { ...kept.value, household };
    return this.assembled.load(actor.householdId, () => this.read(actor));
  }

  /**
   * A fixed number of reads whatever the size of the household: a child's use today and what is left
   * come from three set-based reads for all children (the time feature's householdToday), and whether a child is online from the devices list, which holds
   * every device mapped to a child the parent sees.
   */
  private async read(actor: SessionAuth): Promise<DashboardView> {
    const [children, devices, recent, unread, approvals, today] = await Promise.all([
      this.users.list(actor),
      this.devices.list(actor, false),
      this.alerts.list(actor, { limit: 10 }),
      this.alerts.unreadCount(actor),
      this.pendingApprovals(actor),
      this.today(actor),
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
        used_seconds_today: today.get(child.id)?.used_seconds ?? 0,
        remaining_seconds: today.get(child.id)?.remaining_seconds ?? null,
      })),
      devices,
      recent_alerts: recent.items,
    };
  }
}
