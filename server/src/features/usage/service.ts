import { addDays, localDate, STATS_TOP_APPS, type StatsView, weekdayOf } from '@hearth/protocol';
import type { SessionAuth } from '../../platform/access.js';
import type { AccessService } from '../access/service.js';
import { iconUrl } from '../inventory/service.js';
import { parseDays } from '../time/service.js';
import type { UsageRepository } from './repository.js';

/** Usage statistics of a child (DESIGN §10), read set-based: a handful of queries whatever the range. */
export class UsageService {
  constructor(
    private readonly repo: UsageRepository,
    private readonly access: AccessService,
  ) {}

  async stats(
    actor: SessionAuth,
    managedUserId: string,
    count: number,
    now = new Date(),
  ): Promise<StatsView> {
    await this.access.requireChild(actor, managedUserId, 'view');
    const setting = await this.repo.scheduleOf(actor.householdId, managedUserId);
    const last = localDate(now.getTime(), setting?.timezone ?? 'UTC');
    const dates = Array.from({ length: count }, (_, i) => addDays(last, i - count + 1));
    const from = dates[0] ?? '';
    const to = dates[dates.length - 1] ?? '';
    const [perDay, devices, top] = await Promise.all([
      this.repo.perDay(managedUserId, from, to),
      this.repo.perDevice(managedUserId, from, to),
      this.repo.topApps(managedUserId, from, to, STATS_TOP_APPS),
    ]);
    const schedule = parseDays(setting?.days);
    const limitOf = (date: string): number | null => {
      const minutes = schedule[weekdayOf(date)].limit_minutes;
      return typeof minutes === 'number' ? minutes * 60 : null;
    };

    return {
      managed_user_id: managedUserId,
      days: dates.map((date) => ({
        date,
        used_seconds: perDay.get(date) ?? 0,
        limit_seconds: limitOf(date),
      })),
      apps: top.map((a) => ({
        identifier: a.identifier,
        match_type: a.match_type,
        application_name: a.application_name,
        icon_url: iconUrl(a.icon_hash),
        seconds: a.seconds,
      })),
      devices: devices
        .map((d) => ({
          system_id: d.system_id,
          hostname: d.display_name ?? d.hostname,
          platform: d.platform,
          seconds: d.seconds,
        }))
        .sort(
          (x, y) =>
            y.seconds - x.seconds ||
            (x.hostname ?? '').localeCompare(y.hostname ?? '') ||
            x.system_id.localeCompare(y.system_id),
        ),
    };
  }
}
