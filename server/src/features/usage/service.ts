import { STATS_TOP_APPS, type StatsView } from '@hearth/protocol';
import type { SessionAuth } from '../../platform/access.js';
import type { AccessService } from '../access/service.js';
import { iconUrl } from '../inventory/service.js';
import type { UsageRepository } from './repository.js';

const DAY_MS = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

const formats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) of an instant in an IANA zone; UTC when the zone is unknown. */
export function localDate(at: Date, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      });
    } catch {
      return at.toISOString().slice(0, 10);
    }
    // Making a formatter costs far more than using one; a household has one zone.
    if (formats.size >= 500) formats.clear();
    formats.set(timeZone, format);
  }
  // en-CA writes YYYY-MM-DD (formatToParts costs several times more); the parts only if ICU ever differs.
  const text = format.format(at);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The `count` calendar days ending with `last`, oldest first (calendar arithmetic: no DST involved). */
export function daysEnding(last: string, count: number): string[] {
  const end = Date.parse(`${last}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(end - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

type ScheduleDays = Partial<Record<(typeof WEEKDAYS)[number], { limit_minutes?: unknown }>>;

function parseDays(json: string | null | undefined): ScheduleDays {
  if (!json) return {};
  try {
    const days = JSON.parse(json) as unknown;
    return days && typeof days === 'object' ? (days as ScheduleDays) : {};
  } catch {
    return {};
  }
}

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
    const dates = daysEnding(localDate(now, setting?.timezone ?? 'UTC'), count);
    const from = dates[0] ?? '';
    const to = dates[dates.length - 1] ?? '';
    const [perDay, devices, top] = await Promise.all([
      this.repo.perDay(managedUserId, from, to),
      this.repo.perDevice(managedUserId, from, to),
      this.repo.topApps(managedUserId, from, to, STATS_TOP_APPS),
    ]);
    const schedule = parseDays(setting?.days);
    const limitOf = (date: string): number | null => {
      const weekday = WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()] ?? 'sunday';
      const minutes = schedule[weekday]?.limit_minutes;
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
