// The Routine editor's model: a day as 96 quarter-hour cells (allowed or not) and its daily limit, turned
// into DESIGN §10's windows and back. Pure functions, so the page and its tests share them.
import {
  type DaySchedule,
  scheduleProblems,
  WEEKDAYS,
  type Weekday,
  type WeeklyDays,
} from '@hearth/protocol';

export const CELLS_PER_DAY = 96;
export const CELLS_PER_HOUR = 4;
export const MAX_WINDOWS = 4;
export const MAX_LIMIT_MINUTES = 1440;

export interface EditDay {
  /** One entry per quarter hour from 00:00: true when the child may use a device then. */
  cells: boolean[];
  /** Minutes a day, or null for no limit. */
  limit: number | null;
}

export type EditWeek = Record<Weekday, EditDay>;

export const DAY_LABELS: Record<Weekday, string> = {
  monday: 'Monday',
  tuesday: 'Tuesday',
  wednesday: 'Wednesday',
  thursday: 'Thursday',
  friday: 'Friday',
  saturday: 'Saturday',
  sunday: 'Sunday',
};

export const DAY_SHORT: Record<Weekday, string> = {
  monday: 'Mon',
  tuesday: 'Tue',
  wednesday: 'Wed',
  thursday: 'Thu',
  friday: 'Fri',
  saturday: 'Sat',
  sunday: 'Sun',
};

const pad = (n: number) => String(n).padStart(2, '0');

/** "07:15" for cell 29; cell 96 (the end of the day) is "24:00". */
export function cellTime(cell: number): string {
  return `${pad(Math.floor(cell / CELLS_PER_HOUR))}:${pad((cell % CELLS_PER_HOUR) * 15)}`;
}

function cellOf(time: string): number {
  const [h, m] = time.split(':').map(Number);
  return Math.round(((h ?? 0) * 60 + (m ?? 0)) / 15);
}

/** A day as the editor shows it: no windows is the whole day; no windows and a limit of 0 is nothing. */
export function toEditDay(day: DaySchedule): EditDay {
  if (!day.windows.length) {
    const none = day.limit_minutes === 0;
    return { cells: Array(CELLS_PER_DAY).fill(!none), limit: day.limit_minutes };
  }
  const cells: boolean[] = Array(CELLS_PER_DAY).fill(false);
  for (const w of day.windows) {
    for (let c = cellOf(w.start); c < Math.min(cellOf(w.end), CELLS_PER_DAY); c++) cells[c] = true;
  }
  return { cells, limit: day.limit_minutes };
}

export function toEditWeek(days: WeeklyDays): EditWeek {
  return Object.fromEntries(WEEKDAYS.map((d) => [d, toEditDay(days[d])])) as EditWeek;
}

/** The painted runs of a day as windows, sorted. */
export function windowsOf(cells: boolean[]): { start: string; end: string }[] {
  const windows: { start: string; end: string }[] = [];
  let start = -1;
  for (let c = 0; c <= CELLS_PER_DAY; c++) {
    const on = c < CELLS_PER_DAY && cells[c];
    if (on && start < 0) start = c;
    if (!on && start >= 0) {
      windows.push({ start: cellTime(start), end: cellTime(c) });
      start = -1;
    }
  }
  return windows;
}

export function allowedMinutes(cells: boolean[]): number {
  return cells.filter(Boolean).length * 15;
}

/**
 * Why a day cannot be saved as painted, in words, or null: too many periods said the painter's way,
 * anything else as the shared rules (`scheduleProblems`, which the server applies too) say it.
 */
export function dayProblem(day: Weekday, edit: EditDay): string | null {
  const count = windowsOf(edit.cells).length;
  if (count > MAX_WINDOWS) {
    return `${DAY_LABELS[day]} has ${count} separate periods of allowed time; Hearth allows at most ${MAX_WINDOWS} a day. Join some of them or clear one.`;
  }
  const [first] = scheduleProblems({ [day]: toDaySchedule(edit) });
  return first ? problemText(day, first.path, first.message) : null;
}

const FIELD_LABELS: Record<string, string> = {
  limit_minutes: 'daily limit',
  windows: 'allowed times',
  start: 'allowed times',
  end: 'allowed times',
};

/** "Monday’s daily limit must be a whole number …." from a rule's (or the server's) path and phrase. */
export function problemText(day: Weekday, path: string, message: string): string {
  const field = [...path.split('/')].reverse().find((part) => part in FIELD_LABELS);
  const what = field ? `${DAY_LABELS[day]}’s ${FIELD_LABELS[field]}` : DAY_LABELS[day];
  return `${what}: ${message.replace(/\.$/, '')}.`;
}

/** The day as DESIGN §10 stores it (check `dayProblem` first). */
export function toDaySchedule(edit: EditDay): DaySchedule {
  const painted = edit.cells.filter(Boolean).length;
  if (painted === 0) return { limit_minutes: 0, windows: [] };
  if (painted === CELLS_PER_DAY) return { limit_minutes: edit.limit, windows: [] };
  return { limit_minutes: edit.limit, windows: windowsOf(edit.cells) };
}

export function sameDay(a: EditDay, b: EditDay): boolean {
  return a.limit === b.limit && a.cells.every((v, i) => v === b.cells[i]);
}

function range(from: string, to: string): [number, number] {
  return [cellOf(from), cellOf(to)];
}

function daywith(spans: [number, number][], limit: number | null): EditDay {
  const cells: boolean[] = Array(CELLS_PER_DAY).fill(false);
  for (const [a, b] of spans) for (let c = a; c < b; c++) cells[c] = true;
  return { cells, limit };
}

export const PRESETS = [
  {
    id: 'school-night',
    label: 'School night',
    description: '7:00–8:00 and 15:00–20:00, 2 hours a day',
    day: () => daywith([range('07:00', '08:00'), range('15:00', '20:00')], 120),
  },
  {
    id: 'weekend',
    label: 'Weekend',
    description: '8:00–21:00, 4 hours a day',
    day: () => daywith([range('08:00', '21:00')], 240),
  },
  {
    id: 'all-day',
    label: 'All day',
    description: 'Any time, no daily limit',
    day: () => daywith([[0, CELLS_PER_DAY]], null),
  },
  {
    id: 'none',
    label: 'No screen time',
    description: 'Nothing allowed this day',
    day: () => daywith([], null),
  },
] as const;

/** "7:00–8:00, 15:00–20:00 · 2 h a day" for the week's overview. */
export function daySummary(edit: EditDay): string {
  const windows = windowsOf(edit.cells);
  if (!windows.length) return 'No screen time';
  const times =
    windows.length === 1 && windows[0]?.start === '00:00' && windows[0]?.end === '24:00'
      ? 'Any time'
      : windows.map((w) => `${w.start}–${w.end}`).join(', ');
  return `${times} · ${edit.limit === null ? 'no daily limit' : `${limitText(edit.limit)} a day`}`;
}

export function limitText(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

/** The weekday a server detail's path names (`/days/monday/windows/4`), if any. */
export function dayOfPath(path: string): Weekday | null {
  const found = path.split('/').find((part) => (WEEKDAYS as readonly string[]).includes(part));
  return (found as Weekday | undefined) ?? null;
}
