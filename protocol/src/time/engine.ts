// The time rules (DESIGN §10): one pure function the server uses for every figure it shows and the
// agents use to enforce offline. docs/time-rules.md explains the choices; in short:
//
// - `date` is the household-local date of `now`; its weekday picks the day's schedule.
// - Windows are wall-clock periods on that date in the household zone, turned into instants with
//   zonedInstant (a skipped time → the first instant after the gap, a repeated time → its first
//   occurrence, "24:00" → the next local midnight). A window is measured in real elapsed time, so on
//   a 23-hour day 00:00–24:00 lasts 23 hours. No windows = the whole day. Outside every window the
//   child is in the sleep period.
// - limit_seconds = limit_minutes × 60 (null: no limit). adjustment_seconds = the date's adjustment
//   × 60, reported even on a day without a limit, where it changes nothing (remaining stays null).
//   remaining_seconds = max(0, limit + adjustment − used), exact (not rounded).
// - state: paused (paused_until "indefinite", an instant after now, or unreadable — fails closed)
//   > sleep (outside every window) > locked (a limit and nothing remaining) > ok.
// - next_change_at: the first instant after now at which the state differs, assuming the child keeps
//   using a device whenever allowed (usage grows only while `ok`, and starts again from 0 at each
//   local midnight). Paused → the pause's end (null when indefinite). Otherwise the days from today
//   up to a full week after it (further, up to a year, when a later date has an adjustment) are
//   walked window by window; null when nothing changes in that span, i.e. never.
import type { DaySchedule, TimeRulesInput, TimeRulesResult, TimeState } from './types.js';
import { openDay } from './types.js';
import { addDays, localDate, weekdayOf, zonedInstant } from './zone.js';

const LOOKAHEAD_DAYS = 7;
const MAX_LOOKAHEAD_DAYS = 366;

interface DayPlan {
  start: number;
  end: number;
  /** Allowed periods as [from, to) instants, sorted, merged, non-empty. */
  periods: [number, number][];
  /** Seconds of use the day allows, Infinity without a limit. */
  budget: number;
}

// A day's plan depends only on the week, the zone, the date and its adjustment. Callers that
// evaluate the same week again and again (the server's kept snapshot, an agent's enforcement loop)
// pass the same `days` object, so the plans of the last week evaluated are kept (a single entry, so
// that callers with a new object each time pay nothing to keep a cache they never hit again).
let plansOf: object | null = null;
let plans = new Map<string, DayPlan>();
const MAX_PLANS = 1_000;

function dayPlan(date: string, input: TimeRulesInput): DayPlan {
  if (plansOf !== input.days) {
    plansOf = input.days;
    plans = new Map();
  }
  const key = `${input.timezone} ${date} ${input.adjustments[date] ?? 0}`;
  const known = plans.get(key);
  if (known) return known;
  if (plans.size >= MAX_PLANS) plans.clear();
  const plan = makePlan(date, input);
  plans.set(key, plan);
  return plan;
}

function makePlan(date: string, input: TimeRulesInput): DayPlan {
  const tz = input.timezone;
  const schedule: DaySchedule = input.days[weekdayOf(date)] ?? openDay();
  const start = zonedInstant(date, '00:00', tz);
  const end = zonedInstant(addDays(date, 1), '00:00', tz);
  const raw: [number, number][] = schedule.windows.length
    ? schedule.windows.map((w) => [zonedInstant(date, w.start, tz), zonedInstant(date, w.end, tz)])
    : [[start, end]];
  const periods: [number, number][] = [];
  for (const [from, to] of raw.filter(([a, b]) => b > a).sort((a, b) => a[0] - b[0])) {
    const last = periods[periods.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else periods.push([from, to]);
  }
  const budget =
    schedule.limit_minutes === null
      ? Number.POSITIVE_INFINITY
      : (schedule.limit_minutes + (input.adjustments[date] ?? 0)) * 60;
  return { start, end, periods, budget };
}

/** The state at `t` within a day plan, and the instant it holds until (at most the day's end). */
function segment(plan: DayPlan, t: number, used: number): { state: TimeState; until: number } {
  for (const [from, to] of plan.periods) {
    if (t < from) return { state: 'sleep', until: from };
    if (t < to) {
      const left = plan.budget - used;
      if (left <= 0) return { state: 'locked', until: to };
      // At least a millisecond ahead, so a sliver of a second left still moves the walk on.
      return { state: 'ok', until: Math.min(to, Math.max(Math.floor(t) + 1, Math.ceil(t + left * 1000))) };
    }
  }
  return { state: 'sleep', until: plan.end };
}

function pauseEnd(pausedUntil: string | null): number | null {
  if (pausedUntil === null) return null;
  if (pausedUntil === 'indefinite') return Number.POSITIVE_INFINITY;
  const t = Date.parse(pausedUntil);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}

export function evaluateTime(input: TimeRulesInput): TimeRulesResult {
  const { now, timezone } = input;
  const date = localDate(now, timezone);
  const schedule: DaySchedule = input.days[weekdayOf(date)] ?? openDay();
  const used = Math.max(0, input.used_seconds || 0);
  const limit_seconds = schedule.limit_minutes === null ? null : schedule.limit_minutes * 60;
  const adjustment_seconds = (input.adjustments[date] ?? 0) * 60;
  const remaining_seconds =
    limit_seconds === null ? null : Math.max(0, limit_seconds + adjustment_seconds - used);

  const plan = dayPlan(date, input);
  const pausedUntil = pauseEnd(input.paused_until);
  let state: TimeState;
  let next: number | null;
  if (pausedUntil !== null && pausedUntil > now) {
    state = 'paused';
    next = Number.isFinite(pausedUntil) ? pausedUntil : null;
  } else {
    state = segment(plan, now, used).state;
    next = nextChange(input, date, plan, state, used);
  }
  return {
    date,
    state,
    limit_seconds,
    adjustment_seconds,
    remaining_seconds,
    allowed_now: state === 'ok',
    next_change_at: next === null ? null : new Date(next).toISOString(),
  };
}

function nextChange(
  input: TimeRulesInput,
  today: string,
  todayPlan: DayPlan,
  state: TimeState,
  usedToday: number,
): number | null {
  let lastDay = addDays(today, LOOKAHEAD_DAYS);
  const farthest = addDays(today, MAX_LOOKAHEAD_DAYS);
  for (const date of Object.keys(input.adjustments)) {
    if (date > lastDay && date <= farthest) lastDay = date;
  }
  let date = today;
  let plan = todayPlan;
  let t = input.now;
  let used = usedToday;
  for (;;) {
    while (t < plan.end) {
      const s = segment(plan, t, used);
      if (s.state !== state) return t;
      if (s.state === 'ok') used += (s.until - t) / 1000;
      t = s.until;
    }
    if (date >= lastDay) return null;
    date = addDays(date, 1);
    plan = dayPlan(date, input);
    t = Math.max(t, plan.start);
    used = 0;
  }
}
