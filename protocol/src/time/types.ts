// The time rules' shapes (DESIGN §10), shared by the server, the agents and the admin UI. Pure data:
// this folder imports nothing, so an agent can enforce the same rules offline.

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** An allowed period of a day, wall-clock in the household's time zone: "HH:MM" in 15-minute steps; `end` may be "24:00". */
export interface TimeWindow {
  start: string;
  end: string;
}

export interface DaySchedule {
  /** 0–1440, or null for no daily limit. */
  limit_minutes: number | null;
  /** At most 4, sorted, not overlapping; empty allows the whole day. */
  windows: TimeWindow[];
}

export type WeeklyDays = Record<Weekday, DaySchedule>;

export type TimeState = 'ok' | 'sleep' | 'locked' | 'paused';

/** What the rules are given. */
export interface TimeRulesInput {
  /** IANA time zone of the household ("Europe/Berlin", "Asia/Kathmandu"). */
  timezone: string;
  /** The week; read-only once evaluated (the engine keeps each day's plan per `days` object). */
  readonly days: WeeklyDays;
  /** Minutes added (or taken, negative) per local date "YYYY-MM-DD". */
  adjustments: Record<string, number>;
  /** Seconds used so far on the local date of `now` (all devices together). */
  used_seconds: number;
  /** ISO instant the pause ends, "indefinite", or null when not paused. */
  paused_until: string | null;
  /** The instant asked about (ms since the epoch). */
  now: number;
}

/** What the rules answer (the figures of GET /api/user/<id>/usage). */
export interface TimeRulesResult {
  /** The local date of `now` in the household's zone, "YYYY-MM-DD". */
  date: string;
  state: TimeState;
  /** The day's limit in seconds, null when the day has no limit. */
  limit_seconds: number | null;
  /** The day's adjustments in seconds (may be negative). */
  adjustment_seconds: number;
  /** Seconds of use left today (never negative), null when the day has no limit. */
  remaining_seconds: number | null;
  /** Whether the child may use a device at `now`. */
  allowed_now: boolean;
  /** The next instant (ISO) the state changes if the child keeps using a device, or null if never. */
  next_change_at: string | null;
}

/** A day never edited: no limit, the whole day allowed. */
export function openDay(): DaySchedule {
  return { limit_minutes: null, windows: [] };
}

export function openWeek(): WeeklyDays {
  return Object.fromEntries(WEEKDAYS.map((d) => [d, openDay()])) as WeeklyDays;
}
