// Checks a weekly schedule (or the days of it being changed) against DESIGN §10, for the server's
// 400 and the admin UI's inline hints alike: every problem, each with where it is and what to fix.
import { WEEKDAYS } from './types.js';

export interface ScheduleProblem {
  /** Where: "days/monday/windows/1/end". */
  path: string;
  /** What is wrong, in plain words: "must be after the start". */
  message: string;
}

const MAX_WINDOWS = 4;
const DAY_FIELDS = ['limit_minutes', 'windows'];
const WINDOW_FIELDS = ['start', 'end'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Minutes after midnight of an "HH:MM" on a 15-minute step, or a problem message. */
function readTime(v: unknown, isEnd: boolean): number | string {
  const m = typeof v === 'string' ? /^(\d{2}):(\d{2})$/.exec(v) : null;
  if (!m) return 'must be a time written HH:MM';
  const h = Number(m[1]);
  const mi = Number(m[2]);
  if (h === 24 && mi === 0) return isEnd ? 1440 : '24:00 can only end a window';
  if (h > 23 || mi > 59) return `must be a time of day from 00:00 to ${isEnd ? '24:00' : '23:45'}`;
  if (mi % 15 !== 0) return 'must be on a 15-minute step (:00, :15, :30 or :45)';
  return h * 60 + mi;
}

/** Every problem in `days` (a whole week or some of its days); empty when it can be saved. */
export function scheduleProblems(days: Partial<Record<string, unknown>>): ScheduleProblem[] {
  const problems: ScheduleProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  if (!isRecord(days)) {
    add('days', 'must be an object with a schedule per day of the week');
    return problems;
  }
  for (const [name, day] of Object.entries(days)) {
    const at = `days/${name}`;
    if (!(WEEKDAYS as readonly string[]).includes(name)) {
      add(at, 'is not a day of the week (monday to sunday, in lower case)');
      continue;
    }
    if (!isRecord(day)) {
      add(at, 'must be an object with limit_minutes and windows');
      continue;
    }
    for (const key of Object.keys(day)) {
      if (!DAY_FIELDS.includes(key)) add(`${at}/${key}`, 'is not part of a day (limit_minutes, windows)');
    }
    const limit = day.limit_minutes;
    if (
      limit !== null &&
      !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 0 && limit <= 1440)
    )
      add(
        `${at}/limit_minutes`,
        limit === undefined
          ? 'is missing (a whole number of minutes from 0 to 1440, or null for no limit)'
          : 'must be a whole number of minutes from 0 to 1440, or null for no limit',
      );
    const windows = day.windows;
    if (!Array.isArray(windows)) {
      add(
        `${at}/windows`,
        windows === undefined ? 'is missing (a list, empty for the whole day)' : 'must be a list of windows',
      );
      continue;
    }
    if (windows.length > MAX_WINDOWS)
      add(`${at}/windows`, `has ${windows.length} windows; a day can have at most ${MAX_WINDOWS}`);
    let previous: { start: number; end: number } | null = null;
    windows.forEach((w, i) => {
      const wat = `${at}/windows/${i}`;
      if (!isRecord(w)) {
        add(wat, 'must be an object with a start and an end');
        previous = null;
        return;
      }
      for (const key of Object.keys(w)) {
        if (!WINDOW_FIELDS.includes(key)) add(`${wat}/${key}`, 'is not part of a window (start, end)');
      }
      const start = readTime(w.start, false);
      const end = readTime(w.end, true);
      if (typeof start === 'string') add(`${wat}/start`, w.start === undefined ? 'is missing' : start);
      if (typeof end === 'string') add(`${wat}/end`, w.end === undefined ? 'is missing' : end);
      if (typeof start !== 'number' || typeof end !== 'number') {
        previous = null;
        return;
      }
      if (end <= start) add(`${wat}/end`, 'must be after the start');
      const before: { start: number; end: number } | null = previous;
      if (before) {
        if (start < before.start)
          add(`${wat}/start`, 'comes before the window before it; windows go in order');
        else if (start < before.end) add(`${wat}/start`, 'overlaps the window before it');
      }
      previous = { start, end };
    });
  }
  return problems;
}
