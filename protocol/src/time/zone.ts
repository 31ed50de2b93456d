// Calendar dates and wall clocks in an IANA time zone, with nothing but the runtime's Intl. The one
// rule for wall-clock times (docs/time-rules.md): a time that does not exist (the spring-forward
// gap) is the first instant after the gap; a time that happens twice (fall back) is its first
// occurrence. Both keep the mapping monotonic, so sorted windows stay sorted as instants.
import { WEEKDAYS, type Weekday } from './types.js';

const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2})$/;

const formatters = new Map<string, Intl.DateTimeFormat>();
// Intl is the slow part (a few µs a call) and the answers never change within a process, so the
// wall clock → instant answers and each zone's current day are kept: a usage report then costs
// a few map look-ups instead of dozens of Intl calls.
const MAX_CACHED = 50_000;
const instants = new Map<string, number>();
// Calendar arithmetic on "YYYY-MM-DD" strings is pure too, and the same few dates come back on
// every evaluation (today and the week after it), so their answers are kept as well.
const dayNumbers = new Map<string, number>();
const shifted = new Map<string, string>();
const weekdays = new Map<string, Weekday>();

function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= MAX_CACHED) map.clear();
  map.set(key, value);
  return value;
}
const lastDay = new Map<string, { date: string; start: number; end: number }>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** Milliseconds of a UTC calendar time; unlike Date.UTC, years 0–99 are not moved to 1900. */
function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}

/** The wall clock at `t` in `timezone`, as the milliseconds of the same calendar time in UTC. */
function wallClock(t: number, timezone: string): number {
  let y = 0;
  let mo = 1;
  let d = 1;
  let h = 0;
  let mi = 0;
  let s = 0;
  for (const part of formatter(timezone).formatToParts(t)) {
    const v = Number(part.value);
    if (part.type === 'year') y = v;
    else if (part.type === 'month') mo = v;
    else if (part.type === 'day') d = v;
    else if (part.type === 'hour') h = v === 24 ? 0 : v;
    else if (part.type === 'minute') mi = v;
    else if (part.type === 'second') s = v;
  }
  const ms = ((t % 1000) + 1000) % 1000;
  return utcMs(y, mo, d, h, mi, s) + ms;
}

/** The zone's offset from UTC at instant `t`, in milliseconds (east positive). */
export function offsetAt(t: number, timezone: string): number {
  return wallClock(t, timezone) - t;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function formatDate(utc: number): string {
  const d = new Date(utc);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function parseDate(date: string): number {
  const known = dayNumbers.get(date);
  return known ?? remember(dayNumbers, date, readDate(date));
}

function readDate(date: string): number {
  const m = DATE_RE.exec(date);
  if (!m) throw new RangeError(`"${date}" is not a date written YYYY-MM-DD`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = utcMs(y, mo, d);
  if (formatDate(utc) !== date) throw new RangeError(`"${date}" is not a day of the calendar`);
  return utc;
}

/** Whether `tz` names a time zone this runtime knows ("Europe/Berlin", "UTC"); offsets such as "+02:00" are refused. */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The calendar date ("YYYY-MM-DD") of instant `now` on the household's wall clocks. */
export function localDate(now: number, timezone: string): string {
  const day = lastDay.get(timezone);
  if (day && now >= day.start && now < day.end) return day.date;
  const date = formatDate(wallClock(now, timezone));
  const start = zonedInstant(date, '00:00', timezone);
  const end = zonedInstant(addDays(date, 1), '00:00', timezone);
  if (start <= now && now < end) lastDay.set(timezone, { date, start, end });
  return date;
}

/** The date `days` days after (or before, negative) `date`. */
export function addDays(date: string, days: number): string {
  const key = `${date} ${days}`;
  const known = shifted.get(key);
  return known ?? remember(shifted, key, formatDate(parseDate(date) + days * DAY_MS));
}

/** The day of the week of a calendar date. */
export function weekdayOf(date: string): Weekday {
  const known = weekdays.get(date);
  if (known) return known;
  const sundayFirst = new Date(parseDate(date)).getUTCDay();
  return remember(weekdays, date, WEEKDAYS[(sundayFirst + 6) % 7] as Weekday);
}

/**
 * The instant at which the household's clocks show `time` ("HH:MM", "24:00" = the next midnight) on
 * `date`. A time skipped by a spring-forward change maps to the first instant after the gap; a time
 * shown twice by a fall-back change maps to its first occurrence.
 */
export function zonedInstant(date: string, time: string, timezone: string): number {
  const key = `${timezone} ${date} ${time}`;
  const known = instants.get(key);
  if (known !== undefined) return known;
  return remember(instants, key, findInstant(date, time, timezone));
}

function findInstant(date: string, time: string, timezone: string): number {
  const m = TIME_RE.exec(time);
  const h = Number(m?.[1]);
  const mi = Number(m?.[2]);
  if (!m || h > 24 || mi > 59 || (h === 24 && mi !== 0))
    throw new RangeError(`"${time}" is not a time written HH:MM from 00:00 to 24:00`);
  const wall = parseDate(date) + (h * 60 + mi) * 60_000;
  // Offsets a day either side cover any single change near `wall`; probing each candidate once more
  // also catches two changes close together.
  const before = offsetAt(wall - DAY_MS, timezone);
  const after = offsetAt(wall + DAY_MS, timezone);
  const offsets = new Set([
    before,
    after,
    offsetAt(wall - before, timezone),
    offsetAt(wall - after, timezone),
  ]);
  let first = Number.POSITIVE_INFINITY;
  for (const o of offsets) {
    const t = wall - o;
    if (t < first && offsetAt(t, timezone) === o) first = t;
  }
  if (first !== Number.POSITIVE_INFINITY) return first;
  // In a gap: the first instant whose wall clock has passed `wall` is the end of the gap.
  let lo = wall - Math.max(...offsets);
  let hi = wall - Math.min(...offsets);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallClock(mid, timezone) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}
