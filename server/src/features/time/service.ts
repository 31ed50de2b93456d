import {
  evaluateTime,
  type HouseholdView,
  isValidTimeZone,
  localDate,
  type ModifyTimeBody,
  type ModifyTimeView,
  openWeek,
  type PauseBody,
  type ScheduleSyncView,
  type ScheduleView,
  type SetTimePolicyArgs,
  scheduleProblems,
  type TimeRulesResult,
  type TimeStatusMessage,
  type UpdateHouseholdBody,
  type UpdateScheduleBody,
  type UsageView,
  WEEKDAYS,
  type Weekday,
  type WeeklyDays,
  weekdayOf,
} from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentChannel } from '../../agent-channel/channel.js';
import {
  hearsPolicies,
  isConsole,
  type MappingRow,
  policySupported,
  syncStatusItems,
} from '../../agent-channel/policy-sync.js';
import type { AuthenticatedDevice, CommandResult } from '../../agent-channel/types.js';
import type { SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import { invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import { FreshCache } from '../../platform/fresh-cache.js';
import { cacheTags, type ReadCache } from '../../platform/read-cache.js';
import { KeptAnswer } from '../../platform/route-kit.js';
import type { AccessService } from '../access/service.js';
import type { DeviceService } from '../devices/service.js';
import type { ChildRow, TimeRepository } from './repository.js';

export const TIME_POLICY_COMMAND = 'set_time_policy';
/** How long a usage snapshot's reads are reused (see TimeService.kept). */
const USAGE_FRESH_MS = 1000;
/**
 * How long one answer of the usage route is given again to the parents asking for the same child,
 * never past its `next_change_at` (so its state is always the state at that instant): the figures
 * are the kept snapshot's anyway, and only the projected `next_change_at` of a running limit can be
 * this much early.
 */
const USAGE_ANSWER_MS = 200;

/** The server's own zone: the default of a new household. */
export function serverTimeZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && isValidTimeZone(zone) ? zone : 'UTC';
}

/** A stored weekly schedule (JSON), each day missing or unreadable read as open. */
export function parseDays(text: string | null | undefined): WeeklyDays {
  const week = openWeek();
  if (!text) return week;
  try {
    const stored = JSON.parse(text) as Partial<WeeklyDays>;
    for (const day of WEEKDAYS) if (stored[day]) week[day] = stored[day];
  } catch {
    // A row that does not parse reads as the open week.
  }
  return week;
}

/** A pause that ended reads as no pause. */
export function effectivePause(pausedUntil: string | null, now: number): string | null {
  if (!pausedUntil) return null;
  if (pausedUntil === 'indefinite') return pausedUntil;
  const end = Date.parse(pausedUntil);
  return Number.isFinite(end) && end > now ? pausedUntil : null;
}

/** A real calendar date "YYYY-MM-DD". */
function isCalendarDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const d = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === date;
}

const minutesOf = (seconds: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...seconds].map(([date, s]) => [date, Math.round(s / 60)]));

/** What today looks like for one child: the engine's answer and the figures it was given. */
interface Today {
  child: ChildRow;
  days: WeeklyDays;
  date: string;
  adjustments: Map<string, number>;
  pausedUntil: string | null;
  mappings: MappingRow[];
  usage: Map<string, number>;
  used: number;
  result: TimeRulesResult;
  /** The last answer made from this snapshot, given again until `until` (see USAGE_ANSWER_MS). */
  answer?: { kept: KeptAnswer<UsageView>; until: number };
}

/** The consoles' side of the time policy (DESIGN §13), wired in once the console service exists. */
export interface ConsoleTimeHooks {
  /** The sync details of a child's consoles, by device. */
  detailsOfChild(
    managedUserId: string,
  ): Promise<
    Map<string, { last_sync_at: string | null; stale: boolean; notes: string[]; error: string | null }>
  >;
  /** The child's week changed: its consoles are written at the worker's next run. */
  weekChanged(managedUserId: string): Promise<void>;
}

/** A child's week as a console's vendor gets it. */
export interface ConsoleWeek {
  version: number;
  timezone: string;
  date: string;
  days: WeeklyDays;
  today: Weekday;
  today_extra_minutes: number;
}

/** Today's use per child of a household (the dashboard's one grouped read). */
export type HouseholdUsageReader = (householdId: string, date: string) => Promise<Map<string, number>>;

/**
 * Weekly schedules, adjustments and the pause of each child (DESIGN §10), today's figures from the
 * shared rules engine, and delivery of `set_time_policy` to every mapped account with its sync state.
 */
export class TimeService {
  constructor(
    private readonly repo: TimeRepository,
    private readonly access: AccessService,
    private readonly devices: DeviceService,
    private readonly channel: AgentChannel,
    private readonly cache: ReadCache,
    private readonly householdUsage: HouseholdUsageReader,
    private readonly events: EventPublisher,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Per instance: each child's last state seen on a usage report and whether the limit was reached,
   * so a report that crosses the limit or moves the state raises one live event (bounded; the oldest go).
   */
  private readonly lastSeen = new Map<string, { state: string; exhausted: boolean }>();

  /**
   * Per instance: what `GET /api/user/<id>/usage` read for each child, reused for up to
   * USAGE_FRESH_MS (the engine runs again at each answer's own instant). Any live event and any
   * read-cache invalidation, here or on another instance, empties it, and a usage report of the
   * child heard here drops the child's; what changes with neither — a report heard by another
   * instance, a device going on or off line — can show up to that long late.
   */
  private readonly kept = new FreshCache<Today>(USAGE_FRESH_MS);

  /** Set by the console service: consoles have no agent, the worker writes their limits. */
  consoles: ConsoleTimeHooks | null = null;

  /** A live event, or the read cache dropped something: the kept usage reads may be stale. */
  forgetKept(): void {
    this.kept.clear();
  }

  // ——— household ———

  async updateHousehold(actor: SessionAuth, body: UpdateHouseholdBody): Promise<HouseholdView> {
    const before = await this.repo.household(actor.householdId);
    if (!before) throw notFound('The household');
    const changes: { name?: string; timezone?: string } = {};
    if (body.name !== undefined) changes.name = body.name.trim();
    if (body.timezone !== undefined) {
      const zone = body.timezone.trim();
      if (!isValidTimeZone(zone))
        throw invalidRequest(
          `"${zone}" is not a time zone Hearth knows; use a name such as Europe/Berlin or America/New_York.`,
          [{ path: 'body/timezone', message: 'is not a known IANA time zone' }],
        );
      changes.timezone = zone;
    }
    await this.repo.updateHousehold(actor.householdId, changes);
    // Sessions carry the household's name and zone; the dashboard its children's figures.
    const parents = await this.repo.parentIds(actor.householdId);
    await this.cache.invalidate(
      cacheTags.children(actor.householdId),
      ...parents.map((p) => cacheTags.parent(p.id)),
    );
    if (changes.timezone && changes.timezone !== before.timezone) {
      // Every child's days are now read in another zone: each device hears it.
      for (const child of await this.repo.childIds(actor.householdId))
        await this.changed(child.id, actor.householdId, actor.parentId);
    }
    return {
      id: before.id,
      name: changes.name ?? before.name,
      timezone: changes.timezone ?? before.timezone,
    };
  }

  // ——— schedule ———

  async schedule(actor: SessionAuth, managedUserId: string): Promise<ScheduleView> {
    await this.access.requireChild(actor, managedUserId, 'view');
    return this.scheduleView(await this.loadChild(managedUserId));
  }

  async updateSchedule(actor: SessionAuth, body: UpdateScheduleBody): Promise<ScheduleView> {
    await this.access.requireChild(actor, body.managed_user_id, 'manage');
    const child = await this.loadChild(body.managed_user_id);
    const days = parseDays(child.days);
    for (const day of WEEKDAYS) {
      const given = body.days[day];
      if (given) days[day] = { limit_minutes: given.limit_minutes, windows: given.windows };
    }
    const problems = scheduleProblems(body.days);
    if (problems.length) {
      const first = problems[0];
      throw invalidRequest(
        `The schedule was not saved: ${first ? `${first.path} ${first.message}` : 'check the days'}.`,
        problems.map((p) => ({ path: `body/${p.path.replace(/^\//, '')}`, message: p.message })),
      );
    }
    await this.changed(body.managed_user_id, child.household_id, actor.parentId, JSON.stringify(days));
    return this.scheduleView(await this.loadChild(body.managed_user_id));
  }

  private scheduleView(child: ChildRow): ScheduleView {
    return {
      managed_user_id: child.id,
      version: Number(child.version ?? 0),
      timezone: child.timezone,
      days: parseDays(child.days),
    };
  }

  // ——— adjustments ———

  async modifyTime(actor: SessionAuth, body: ModifyTimeBody): Promise<ModifyTimeView> {
    await this.access.requireChild(actor, body.managed_user_id, 'manage');
    if (body.minutes === 0)
      throw invalidRequest('minutes must not be 0: add (1 to 720) or take away (-1 to -720) some time.', [
        { path: 'body/minutes', message: 'must not be 0' },
      ]);
    const child = await this.loadChild(body.managed_user_id);
    const today = localDate(Date.now(), child.timezone);
    const date = body.date ?? today;
    if (!isCalendarDate(date))
      throw invalidRequest(`date "${date}" is not a calendar date (YYYY-MM-DD).`, [
        { path: 'body/date', message: 'is not a calendar date' },
      ]);
    if (date < today)
      throw invalidRequest(`date ${date} has passed; adjust today (${today}) or a later day.`, [
        { path: 'body/date', message: 'must be today or later' },
      ]);
    await this.adjust(child, date, body.minutes, { note: body.note?.trim() || null, by: actor.parentId });
    const now = await this.today(body.managed_user_id, Date.now());
    return {
      managed_user_id: body.managed_user_id,
      date,
      adjustment_minutes: Math.round((now.adjustments.get(date) ?? 0) / 60),
      remaining_seconds: now.result.remaining_seconds,
    };
  }

  /**
   * An approved `time_extension` request: the minutes the parent approved, for today in the
   * household's zone, pushed like any change.
   */
  async addApprovedTime(
    managedUserId: string,
    minutes: number,
    requestId: string,
    parentId: string,
  ): Promise<void> {
    const child = await this.loadChild(managedUserId);
    await this.adjust(child, localDate(Date.now(), child.timezone), minutes, {
      by: parentId,
      sourceRequestId: requestId,
    });
  }

  private async adjust(
    child: ChildRow,
    date: string,
    minutes: number,
    meta: { note?: string | null; by: string; sourceRequestId?: string },
  ): Promise<void> {
    await this.repo.insertAdjustment({
      id: newId(),
      managed_user_id: child.id,
      date,
      seconds: minutes * 60,
      source_request_id: meta.sourceRequestId ?? null,
      created_at: nowIso(),
      note: meta.note ?? null,
      created_by: meta.by,
    });
    await this.changed(child.id, child.household_id, meta.by);
  }

  // ——— pause ———

  async pause(actor: SessionAuth, managedUserId: string, body: PauseBody): Promise<UsageView> {
    await this.access.requireChild(actor, managedUserId, 'manage');
    const child = await this.loadChild(managedUserId);
    const until = body.minutes ? new Date(Date.now() + body.minutes * 60_000).toISOString() : 'indefinite';
    await this.repo.setPause(managedUserId, until, nowIso());
    await this.changed(managedUserId, child.household_id, actor.parentId);
    return this.usageView(await this.today(managedUserId, Date.now()));
  }

  async resume(actor: SessionAuth, managedUserId: string): Promise<UsageView> {
    await this.access.requireChild(actor, managedUserId, 'manage');
    const child = await this.loadChild(managedUserId);
    await this.repo.setPause(managedUserId, null, nowIso());
    await this.changed(managedUserId, child.household_id, actor.parentId);
    return this.usageView(await this.today(managedUserId, Date.now()));
  }

  // ——— usage ———

  async usage(actor: SessionAuth, managedUserId: string): Promise<UsageView | KeptAnswer<UsageView>> {
    await this.access.requireChild(actor, managedUserId, 'view');
    const now = Date.now();
    const kept = this.kept.get(managedUserId, now);
    if (kept && localDate(now, kept.value.child.timezone) === kept.value.date) {
      const answer = kept.value.answer;
      if (answer && now < answer.until) return answer.kept;
      const view = this.usageView(this.reevaluate(kept.value, now));
      const next = view.next_change_at === null ? Number.POSITIVE_INFINITY : Date.parse(view.next_change_at);
      const reused = new KeptAnswer(view);
      kept.value.answer = { kept: reused, until: Math.min(now + USAGE_ANSWER_MS, next) };
      return reused;
    }
    return this.usageView(await this.kept.load(managedUserId, () => this.today(managedUserId, now), now));
  }

  /** The engine's answer for the same figures at another instant of the same day. */
  private reevaluate(t: Today, now: number): Today {
    const pausedUntil = effectivePause(t.child.paused_until, now);
    const result = evaluateTime({
      timezone: t.child.timezone,
      days: t.days,
      adjustments: minutesOf(t.adjustments),
      used_seconds: t.used,
      paused_until: pausedUntil,
      now,
    });
    return { ...t, pausedUntil, result };
  }

  private usageView(t: Today): UsageView {
    return {
      managed_user_id: t.child.id,
      date: t.date,
      timezone: t.child.timezone,
      state: t.result.state,
      used_seconds: t.used,
      limit_seconds: t.result.limit_seconds,
      adjustment_seconds: t.result.adjustment_seconds,
      remaining_seconds: t.result.remaining_seconds,
      allowed_now: t.result.allowed_now,
      next_change_at: t.result.next_change_at,
      paused_until: t.pausedUntil,
      devices: t.mappings
        .filter((m) => m.status === 'approved')
        .map((m) => ({
          system_id: m.system_id,
          hostname: m.display_name ?? m.hostname,
          platform: m.platform,
          linux_username: m.linux_username,
          used_seconds: t.usage.get(`${m.system_id}\u0000${m.linux_username}`) ?? 0,
          online: this.channel.isOnline(m),
        })),
    };
  }

  /** Everything the engine needs for one child at `now`, and its answer. */
  private async today(managedUserId: string, now: number): Promise<Today> {
    const child = await this.loadChild(managedUserId);
    const date = localDate(now, child.timezone);
    const [adjustments, mappings, rows] = await Promise.all([
      this.repo.adjustmentsFrom(managedUserId, date),
      this.repo.mappingsOf(managedUserId),
      this.repo.usageOn(managedUserId, date),
    ]);
    const usage = new Map<string, number>();
    let used = 0;
    for (const r of rows) {
      usage.set(`${r.system_id}\u0000${r.linux_username}`, Number(r.seconds_used));
      used += Number(r.seconds_used);
    }
    const days = parseDays(child.days);
    const pausedUntil = effectivePause(child.paused_until, now);
    const result = evaluateTime({
      timezone: child.timezone,
      days,
      adjustments: minutesOf(adjustments),
      used_seconds: used,
      paused_until: pausedUntil,
      now,
    });
    return { child, days, date, adjustments, pausedUntil, mappings, usage, used, result };
  }

  /**
   * Each child's use today and what is left, for the dashboard: a fixed number of reads for the
   * whole household (children with their schedules and pauses, adjustments, use), whatever its size.
   */
  async householdToday(
    actor: SessionAuth,
  ): Promise<Map<string, { used_seconds: number; remaining_seconds: number | null }>> {
    const now = Date.now();
    const timezone = actor.householdTimezone;
    const date = localDate(now, timezone);
    const [children, adjustments, used] = await Promise.all([
      this.repo.childrenOfHousehold(actor.householdId),
      this.repo.adjustmentsOfHousehold(actor.householdId, date),
      this.householdUsage(actor.householdId, date),
    ]);
    const out = new Map<string, { used_seconds: number; remaining_seconds: number | null }>();
    for (const c of children) {
      const usedSeconds = used.get(c.id) ?? 0;
      const adjustment = adjustments.get(c.id);
      const result = evaluateTime({
        timezone,
        days: parseDays(c.days),
        adjustments: adjustment ? { [date]: Math.round(adjustment / 60) } : {},
        used_seconds: usedSeconds,
        paused_until: effectivePause(c.paused_until, now),
        now,
      });
      out.set(c.id, { used_seconds: usedSeconds, remaining_seconds: result.remaining_seconds });
    }
    return out;
  }

  // ——— delivery ———

  async syncStatus(actor: SessionAuth, managedUserId: string): Promise<ScheduleSyncView> {
    await this.access.requireChild(actor, managedUserId, 'view');
    const child = await this.loadChild(managedUserId);
    const version = Number(child.version ?? 0);
    const [mappings, rows] = await Promise.all([
      this.repo.mappingsOf(managedUserId),
      this.repo.sync.syncOf(managedUserId),
    ]);
    const items = syncStatusItems(version, mappings, rows, true);
    if (this.consoles && items.some(isConsole)) {
      const details = await this.consoles.detailsOfChild(managedUserId);
      for (const item of items) {
        const d = isConsole(item) ? details.get(item.system_id) : undefined;
        if (!d) continue;
        item.last_sync_at = d.last_sync_at;
        item.stale = d.stale;
        item.notes = d.notes;
        if (item.status !== 'synced' && d.error) item.error = d.error;
      }
    }
    return { managed_user_id: managedUserId, version, items };
  }

  /**
   * The child's week for a console (DESIGN §13): the schedule, its version, today's weekday and
   * today's adjustment in minutes; a pause makes today's limit 0.
   */
  async consoleWeek(managedUserId: string, now = Date.now()): Promise<ConsoleWeek> {
    const child = await this.loadChild(managedUserId);
    const date = localDate(now, child.timezone);
    const adjustments = await this.repo.adjustmentsFrom(managedUserId, date);
    const paused = effectivePause(child.paused_until, now) !== null;
    return {
      version: Number(child.version ?? 0),
      timezone: child.timezone,
      date,
      days: parseDays(child.days),
      today: weekdayOf(date),
      today_extra_minutes: paused ? -1440 : Math.round((adjustments.get(date) ?? 0) / 60),
    };
  }

  /** A console's playtime of today grew: the child's devices hear the new total. */
  async consoleUsageGrew(managedUserId: string, systemId: string): Promise<void> {
    await this.usageGrew(managedUserId, systemId);
  }

  /**
   * Something a device must hear of changed (the schedule when `days` is given, an adjustment, the
   * pause, the zone): the version rises and every mapped account on an approved device gets the
   * policy now, or queued until it connects (a newer push replaces a queued one).
   */
  private async changed(managedUserId: string, householdId: string, by: string | null, days?: string) {
    const version = await this.repo.bumpVersion(managedUserId, householdId, {
      days,
      emptyDays: JSON.stringify(openWeek()),
      at: nowIso(),
      by,
    });
    const t = await this.push(managedUserId, version);
    this.announce(householdId, t, 'changed');
    if (this.consoles && t.mappings.some(isConsole)) await this.consoles.weekChanged(managedUserId);
  }

  /** A `time_state` live event for the child's dashboards (and this instance's memory of it). */
  private announce(householdId: string, t: Today, cause: 'changed' | 'limit_reached' | 'state'): void {
    this.remember(t);
    this.events.publish(householdId, 'time_state', {
      managed_user_id: t.child.id,
      state: t.result.state,
      allowed_now: t.result.allowed_now,
      used_seconds: t.used,
      remaining_seconds: t.result.remaining_seconds,
      cause,
    });
  }

  /** Remembers the child's state; answers what it was before (undefined: not seen here yet). */
  private remember(t: Today): { state: string; exhausted: boolean } | undefined {
    const before = this.lastSeen.get(t.child.id);
    this.lastSeen.delete(t.child.id);
    if (this.lastSeen.size >= 10_000) {
      const oldest = this.lastSeen.keys().next().value;
      if (oldest !== undefined) this.lastSeen.delete(oldest);
    }
    this.lastSeen.set(t.child.id, { state: t.result.state, exhausted: t.result.remaining_seconds === 0 });
    return before;
  }

  /**
   * An account was mapped to the child: its device gets the child's current policy (queued while it
   * is offline or still waits for a parent's approval, then sent once it is approved and connects) —
   * a child never edited too (version 0, the open week), since the account may still hold the rules
   * of a child it was mapped to before.
   */
  async mappingAdded(managedUserId: string): Promise<void> {
    const child = await this.repo.child(managedUserId);
    if (!child) return;
    const version = Number(child.version ?? 0);
    const synced = new Set(
      (await this.repo.sync.syncOf(managedUserId))
        .filter((r) => Number(r.version) >= version)
        .map((r) => r.mapping_id),
    );
    await this.push(managedUserId, version, (m) => !synced.has(m.id));
  }

  /**
   * An account no longer belongs to any child (unlinked, or its child removed): its device drops the
   * time rules it held — the open week at version 0 without a pause, what a child never edited has.
   */
  async release(
    device: {
      system_id: string;
      household_id: string;
      platform: string | null;
      agent_version: string | null;
    },
    linuxUsername: string,
  ): Promise<void> {
    if (!policySupported(device)) return;
    const household = await this.repo.household(device.household_id);
    const args: SetTimePolicyArgs = {
      managed_user_id: null,
      linux_username: linuxUsername,
      version: 0,
      timezone: household?.timezone ?? 'UTC',
      days: openWeek(),
      adjustments: {},
      paused_until: null,
    };
    await this.devices.command(
      device.system_id,
      TIME_POLICY_COMMAND,
      { ...args },
      { coalesceKey: `${TIME_POLICY_COMMAND}:${linuxUsername}` },
    );
  }

  /**
   * Sends `version` to the child's mapped accounts on approved devices, and queues it for devices
   * that wait for approval (their queue is sent once they are approved); `only` narrows the mappings.
   */
  private async push(
    managedUserId: string,
    version: number,
    only: (m: MappingRow) => boolean = () => true,
  ): Promise<Today> {
    const t = await this.today(managedUserId, Date.now());
    const adjustments = minutesOf(t.adjustments);
    await Promise.all(
      t.mappings
        // A console has no agent: the console sync writes its vendor's limits (DESIGN §13).
        .filter((m) => hearsPolicies(m) && !isConsole(m) && only(m))
        .map(async (m) => {
          if (!(await this.repo.sync.beginPush(m, managedUserId, version))) return;
          const args: SetTimePolicyArgs = {
            managed_user_id: managedUserId,
            linux_username: m.linux_username,
            version,
            timezone: t.child.timezone,
            days: t.days,
            adjustments,
            paused_until: t.pausedUntil,
          };
          const outcome = await this.devices.command(
            m.system_id,
            TIME_POLICY_COMMAND,
            { ...args },
            {
              coalesceKey: `${TIME_POLICY_COMMAND}:${m.linux_username}`,
            },
          );
          if (!outcome.delivered) return;
          await this.recordAnswer(
            m.id,
            version,
            outcome.error !== undefined
              ? { status: 'error', error: outcome.error }
              : { status: 'ok', data: outcome.data },
          );
        }),
    );
    return t;
  }

  /** A queued push reached the device and was answered (the channel's onAnswered hook). */
  async onAnswered(
    systemId: string,
    command: string,
    args: Record<string, unknown>,
    result: CommandResult,
  ): Promise<void> {
    if (command !== TIME_POLICY_COMMAND) return;
    if (typeof args.linux_username !== 'string' || typeof args.version !== 'number') return;
    const mapping = await this.repo.mappingOf(systemId, args.linux_username);
    if (!mapping) return;
    await this.recordAnswer(mapping.id, args.version, result);
  }

  private async recordAnswer(mappingId: string, version: number, result: CommandResult): Promise<void> {
    const at = nowIso();
    if (result.status === 'ok') {
      const data = result.data as { applied_version?: unknown } | undefined;
      const applied = typeof data?.applied_version === 'number' ? data.applied_version : null;
      if (applied === version)
        return this.repo.sync.recordAnswer(mappingId, version, {
          status: 'synced',
          applied_version: applied,
          error: null,
          at,
        });
      return this.repo.sync.recordAnswer(mappingId, version, {
        status: 'failed',
        applied_version: applied,
        error:
          applied === null
            ? 'The agent did not say which version it applied.'
            : `The agent applied version ${applied}, not ${version}.`,
        at,
      });
    }
    if (result.status === 'error') {
      const error =
        typeof result.error === 'string' ? result.error : JSON.stringify(result.error ?? 'failed');
      return this.repo.sync.recordAnswer(mappingId, version, {
        status: 'failed',
        applied_version: null,
        error: error.slice(0, 500),
        at,
      });
    }
    // Not answered (offline, timed out): the push waits in the queue, still pending.
  }

  // ——— cross-device totals ———

  /**
   * A device reported use: the child's other online devices hear the total of all devices
   * (`time_status`), so each enforces the same remaining time.
   */
  async onUsageRecorded(device: AuthenticatedDevice, linuxUsername: string): Promise<void> {
    const mapping = await this.repo.mappingOf(device.systemId, linuxUsername);
    if (!mapping) return;
    await this.usageGrew(mapping.managed_user_id, device.systemId);
  }

  /** Use of a child grew on one device: live events as the state moves, the total to the other devices. */
  private async usageGrew(managedUserId: string, fromSystemId: string): Promise<void> {
    this.kept.drop(managedUserId);
    const t = await this.today(managedUserId, Date.now());
    const before = this.remember(t);
    const exhausted = t.result.remaining_seconds === 0;
    if (before && exhausted && !before.exhausted) this.announce(t.child.household_id, t, 'limit_reached');
    else if (before && before.state !== t.result.state) this.announce(t.child.household_id, t, 'state');
    const others = t.mappings.filter(
      (m) =>
        m.system_id !== fromSystemId && m.status === 'approved' && !isConsole(m) && this.channel.isOnline(m),
    );
    await Promise.all(
      others.map((m) => {
        const message: TimeStatusMessage = {
          type: 'time_status',
          linux_username: m.linux_username,
          date: t.date,
          used_seconds: t.used,
          remaining_seconds: t.result.remaining_seconds,
        };
        return this.channel
          .push(m.system_id, { ...message })
          .catch((err) => this.log.warn({ err, system_id: m.system_id }, 'could not send time_status'));
      }),
    );
  }

  private async loadChild(managedUserId: string): Promise<ChildRow> {
    const child = await this.repo.child(managedUserId);
    if (!child) throw notFound('The child');
    return child;
  }
}
