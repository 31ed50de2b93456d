// The time rules: worked examples across daylight-saving changes, odd offsets, midnight, "24:00" and
// a leap day, then properties over arbitrary valid schedules, instants and zones (fast-check).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { evaluateTime } from './engine.js';
import { scheduleProblems } from './schedule.js';
import { type DaySchedule, openWeek, type TimeRulesInput, WEEKDAYS, type WeeklyDays } from './types.js';
import { addDays, isValidTimeZone, localDate, weekdayOf, zonedInstant } from './zone.js';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString();

function week(overrides: Partial<WeeklyDays> = {}, every?: DaySchedule): WeeklyDays {
  const days = openWeek();
  if (every) for (const d of WEEKDAYS) days[d] = every;
  return { ...days, ...overrides };
}

function rules(input: Partial<TimeRulesInput> & { now: number; timezone: string }): TimeRulesInput {
  return { days: openWeek(), adjustments: {}, used_seconds: 0, paused_until: null, ...input };
}

const dayLengthHours = (date: string, tz: string) =>
  (zonedInstant(addDays(date, 1), '00:00', tz) - zonedInstant(date, '00:00', tz)) / HOUR;

describe('wall clock to instant', () => {
  test('Europe/Berlin 2026-03-29: 02:00–03:00 does not exist and maps to the end of the gap; the day has 23 hours', () => {
    assert.equal(iso(zonedInstant('2026-03-29', '01:45', 'Europe/Berlin')), '2026-03-29T00:45:00.000Z');
    assert.equal(iso(zonedInstant('2026-03-29', '02:00', 'Europe/Berlin')), '2026-03-29T01:00:00.000Z');
    assert.equal(iso(zonedInstant('2026-03-29', '02:30', 'Europe/Berlin')), '2026-03-29T01:00:00.000Z');
    assert.equal(iso(zonedInstant('2026-03-29', '03:00', 'Europe/Berlin')), '2026-03-29T01:00:00.000Z');
    assert.equal(iso(zonedInstant('2026-03-29', '03:15', 'Europe/Berlin')), '2026-03-29T01:15:00.000Z');
    assert.equal(dayLengthHours('2026-03-29', 'Europe/Berlin'), 23);
  });

  test('Europe/Berlin 2026-10-25: 02:00–03:00 happens twice and maps to the first time; the day has 25 hours', () => {
    assert.equal(iso(zonedInstant('2026-10-25', '02:00', 'Europe/Berlin')), '2026-10-25T00:00:00.000Z');
    assert.equal(iso(zonedInstant('2026-10-25', '02:30', 'Europe/Berlin')), '2026-10-25T00:30:00.000Z');
    assert.equal(iso(zonedInstant('2026-10-25', '03:00', 'Europe/Berlin')), '2026-10-25T02:00:00.000Z');
    assert.equal(dayLengthHours('2026-10-25', 'Europe/Berlin'), 25);
    // The second 02:30 (CET) is still 25 October.
    assert.equal(localDate(at('2026-10-25T01:30:00Z'), 'Europe/Berlin'), '2026-10-25');
  });

  test('America/New_York 2026: 23 hours on 8 March, 25 hours on 1 November', () => {
    assert.equal(iso(zonedInstant('2026-03-08', '02:30', 'America/New_York')), '2026-03-08T07:00:00.000Z');
    assert.equal(dayLengthHours('2026-03-08', 'America/New_York'), 23);
    assert.equal(iso(zonedInstant('2026-11-01', '01:30', 'America/New_York')), '2026-11-01T05:30:00.000Z');
    assert.equal(dayLengthHours('2026-11-01', 'America/New_York'), 25);
  });

  test('Australia/Lord_Howe moves its clocks by 30 minutes: 23.5- and 24.5-hour days', () => {
    // 4 October 2026: 02:00 (+10:30) becomes 02:30 (+11).
    assert.equal(iso(zonedInstant('2026-10-04', '02:15', 'Australia/Lord_Howe')), '2026-10-03T15:30:00.000Z');
    assert.equal(dayLengthHours('2026-10-04', 'Australia/Lord_Howe'), 23.5);
    // 5 April 2026: 02:00 (+11) becomes 01:30 (+10:30); 01:45 happens twice, the first at +11.
    assert.equal(iso(zonedInstant('2026-04-05', '01:45', 'Australia/Lord_Howe')), '2026-04-04T14:45:00.000Z');
    assert.equal(dayLengthHours('2026-04-05', 'Australia/Lord_Howe'), 24.5);
  });

  test('Australia/Adelaide (+9:30, +10:30 in summer) springs forward on 4 October 2026', () => {
    assert.equal(iso(zonedInstant('2026-10-04', '02:30', 'Australia/Adelaide')), '2026-10-03T16:30:00.000Z');
    assert.equal(dayLengthHours('2026-10-04', 'Australia/Adelaide'), 23);
    assert.equal(dayLengthHours('2026-04-05', 'Australia/Adelaide'), 25);
  });

  test('Asia/Kathmandu (+5:45) and Asia/Kolkata (+5:30) days begin at odd UTC times', () => {
    assert.equal(iso(zonedInstant('2026-01-15', '00:00', 'Asia/Kathmandu')), '2026-01-14T18:15:00.000Z');
    assert.equal(iso(zonedInstant('2026-01-15', '24:00', 'Asia/Kathmandu')), '2026-01-15T18:15:00.000Z');
    assert.equal(localDate(at('2026-01-14T18:14:59.999Z'), 'Asia/Kathmandu'), '2026-01-14');
    assert.equal(localDate(at('2026-01-14T18:15:00Z'), 'Asia/Kathmandu'), '2026-01-15');
    assert.equal(iso(zonedInstant('2026-06-10', '09:00', 'Asia/Kolkata')), '2026-06-10T03:30:00.000Z');
  });

  test('leap days: 29 February 2028 is a Tuesday between the 28th and 1 March', () => {
    assert.equal(weekdayOf('2028-02-29'), 'tuesday');
    assert.equal(addDays('2028-02-28', 1), '2028-02-29');
    assert.equal(addDays('2028-02-29', 1), '2028-03-01');
    assert.equal(addDays('2027-02-28', 1), '2027-03-01');
    assert.equal(localDate(at('2028-02-29T23:30:00Z'), 'Europe/London'), '2028-02-29');
    assert.equal(localDate(at('2028-02-29T23:30:00Z'), 'Europe/Berlin'), '2028-03-01');
    assert.throws(() => zonedInstant('2027-02-29', '00:00', 'UTC'), /not a day of the calendar/);
  });

  test('time zone names: known IANA names pass, anything else does not', () => {
    for (const tz of [
      'UTC',
      'Europe/Berlin',
      'Australia/Lord_Howe',
      'America/Argentina/Buenos_Aires',
      'Etc/GMT+5',
    ])
      assert.equal(isValidTimeZone(tz), true, tz);
    for (const tz of ['', 'Mars/Olympus_Mons', '+02:00', 'Europe/Berlin\u0000', ' UTC'])
      assert.equal(isValidTimeZone(tz), false, JSON.stringify(tz));
  });

  test('malformed dates and times are refused in plain words', () => {
    assert.throws(() => zonedInstant('2026-1-5', '00:00', 'UTC'), /not a date written YYYY-MM-DD/);
    assert.throws(() => zonedInstant('2026-01-05', '24:15', 'UTC'), /not a time written HH:MM/);
    assert.throws(() => zonedInstant('2026-01-05', '7:00', 'UTC'), /not a time written HH:MM/);
  });
});

describe('evaluateTime', () => {
  test('a window across the spring-forward change lasts its real length: 01:00–04:00 is 2 hours', () => {
    const days = week({ sunday: { limit_minutes: 150, windows: [{ start: '01:00', end: '04:00' }] } });
    const tz = 'Europe/Berlin';
    const before = evaluateTime(rules({ timezone: tz, days, now: at('2026-03-28T23:30:00Z') }));
    assert.equal(before.date, '2026-03-29');
    assert.equal(before.state, 'sleep');
    assert.equal(before.next_change_at, '2026-03-29T00:00:00.000Z');
    const inside = evaluateTime(rules({ timezone: tz, days, now: at('2026-03-29T00:00:00Z') }));
    assert.equal(inside.state, 'ok');
    assert.equal(inside.remaining_seconds, 9000);
    // 150 minutes of limit, but the window ends at 04:00 CEST, two real hours after 01:00 CET.
    assert.equal(inside.next_change_at, '2026-03-29T02:00:00.000Z');
  });

  test('a window across the fall-back change lasts its real length: 01:00–04:00 is 4 hours', () => {
    const days = week({ sunday: { limit_minutes: null, windows: [{ start: '01:00', end: '04:00' }] } });
    const r = evaluateTime(rules({ timezone: 'Europe/Berlin', days, now: at('2026-10-24T23:00:00Z') }));
    assert.equal(r.state, 'ok');
    assert.equal(r.next_change_at, '2026-10-25T03:00:00.000Z');
    // The second 02:15 is still inside the window; a window ending at 02:30 ends at the first 02:30.
    const short = week({ sunday: { limit_minutes: null, windows: [{ start: '01:00', end: '02:30' }] } });
    const second = evaluateTime(
      rules({ timezone: 'Europe/Berlin', days: short, now: at('2026-10-25T01:15:00Z') }),
    );
    assert.equal(second.state, 'sleep');
    assert.equal(second.next_change_at, '2026-10-25T23:00:00.000Z');
  });

  test('a window inside the gap is empty: the child sleeps through that Sunday night in New York', () => {
    const days = week({}, { limit_minutes: null, windows: [{ start: '02:00', end: '02:45' }] });
    const r = evaluateTime(rules({ timezone: 'America/New_York', days, now: at('2026-03-08T06:30:00Z') }));
    assert.equal(r.state, 'sleep');
    // The next window is on Monday 9 March, 02:00 EDT.
    assert.equal(r.next_change_at, '2026-03-09T06:00:00.000Z');
  });

  test('a 23.5-hour Lord Howe day gives 23.5 hours to a whole-day window, and limits then count from midnight', () => {
    const tz = 'Australia/Lord_Howe';
    const days = week({ sunday: { limit_minutes: null, windows: [] } }, { limit_minutes: 0, windows: [] });
    const r = evaluateTime(rules({ timezone: tz, days, now: zonedInstant('2026-10-04', '00:00', tz) }));
    assert.equal(r.state, 'ok');
    assert.equal(r.limit_seconds, null);
    assert.equal(Date.parse(r.next_change_at ?? '') - zonedInstant('2026-10-04', '00:00', tz), 23.5 * HOUR);
  });

  test('on Lord Howe’s 24.5-hour day a 01:00–02:00 window lasts 90 minutes (01:30–02:00 runs twice)', () => {
    const tz = 'Australia/Lord_Howe';
    const days = week({ sunday: { limit_minutes: null, windows: [{ start: '01:00', end: '02:00' }] } });
    const r = evaluateTime(rules({ timezone: tz, days, now: zonedInstant('2026-04-05', '01:00', tz) }));
    assert.equal(r.state, 'ok');
    assert.equal(Date.parse(r.next_change_at ?? '') - zonedInstant('2026-04-05', '01:00', tz), 1.5 * HOUR);
  });

  test('an unknown time zone is refused, not guessed', () => {
    assert.throws(() => evaluateTime(rules({ timezone: 'Mars/Olympus_Mons', now: Date.now() })), RangeError);
  });

  test('the last minutes before midnight in Kathmandu run on into the new day’s own limit', () => {
    const days = week({}, { limit_minutes: 60, windows: [] });
    // 23:45 on Thursday 15 January: 15 minutes until midnight, then a fresh hour on Friday.
    const r = evaluateTime(rules({ timezone: 'Asia/Kathmandu', days, now: at('2026-01-15T18:00:00Z') }));
    assert.equal(r.date, '2026-01-15');
    assert.equal(r.state, 'ok');
    assert.equal(r.remaining_seconds, 3600);
    assert.equal(r.next_change_at, '2026-01-15T19:15:00.000Z');
  });

  test('a window end is exclusive: 17:30 in Kolkata is sleep until 09:00 the next morning', () => {
    const days = week({}, { limit_minutes: null, windows: [{ start: '09:00', end: '17:30' }] });
    const end = evaluateTime(rules({ timezone: 'Asia/Kolkata', days, now: at('2026-06-10T12:00:00Z') }));
    assert.equal(end.state, 'sleep');
    assert.equal(end.next_change_at, '2026-06-11T03:30:00.000Z');
    const last = evaluateTime(rules({ timezone: 'Asia/Kolkata', days, now: at('2026-06-10T11:59:59.999Z') }));
    assert.equal(last.state, 'ok');
    assert.equal(last.next_change_at, '2026-06-10T12:00:00.000Z');
  });

  test('"24:00" runs to midnight and on into a window starting at 00:00 the next day', () => {
    const days = week({
      saturday: { limit_minutes: null, windows: [{ start: '20:00', end: '24:00' }] },
      sunday: { limit_minutes: null, windows: [{ start: '00:00', end: '02:00' }] },
    });
    const r = evaluateTime(rules({ timezone: 'UTC', days, now: at('2026-11-28T23:00:00Z') }));
    assert.equal(r.state, 'ok');
    assert.equal(r.next_change_at, '2026-11-29T02:00:00.000Z');
    // When Sunday has no time left, midnight is the change.
    const locked = { ...days, sunday: { limit_minutes: 0, windows: [{ start: '00:00', end: '02:00' }] } };
    const r2 = evaluateTime(rules({ timezone: 'UTC', days: locked, now: at('2026-11-28T23:00:00Z') }));
    assert.equal(r2.next_change_at, '2026-11-29T00:00:00.000Z');
    const after = evaluateTime(rules({ timezone: 'UTC', days: locked, now: at('2026-11-29T00:00:00Z') }));
    assert.equal(after.date, '2026-11-29');
    assert.equal(after.state, 'locked');
  });

  test('at local midnight the date is the new day; a millisecond before it is the old one', () => {
    const midnight = zonedInstant('2026-07-01', '00:00', 'America/New_York');
    assert.equal(evaluateTime(rules({ timezone: 'America/New_York', now: midnight })).date, '2026-07-01');
    assert.equal(evaluateTime(rules({ timezone: 'America/New_York', now: midnight - 1 })).date, '2026-06-30');
  });

  test('29 February 2028 takes Tuesday’s limit and that date’s adjustment', () => {
    const days = week({ tuesday: { limit_minutes: 30, windows: [] } });
    const r = evaluateTime(
      rules({
        timezone: 'UTC',
        days,
        adjustments: { '2028-02-29': 15, '2028-03-01': 60 },
        used_seconds: 600,
        now: at('2028-02-29T10:00:00Z'),
      }),
    );
    assert.deepEqual(r, {
      date: '2028-02-29',
      state: 'ok',
      limit_seconds: 1800,
      adjustment_seconds: 900,
      remaining_seconds: 2100,
      allowed_now: true,
      next_change_at: '2028-02-29T10:35:00.000Z',
    });
  });

  test('used up: locked until the window ends (then sleep), or until midnight brings new time', () => {
    const days = week({}, { limit_minutes: 30, windows: [{ start: '08:00', end: '20:00' }] });
    const r = evaluateTime(
      rules({ timezone: 'UTC', days, used_seconds: 1800, now: at('2026-11-25T12:00:00Z') }),
    );
    assert.equal(r.state, 'locked');
    assert.equal(r.remaining_seconds, 0);
    assert.equal(r.allowed_now, false);
    assert.equal(r.next_change_at, '2026-11-25T20:00:00.000Z');
    const allDay = week({}, { limit_minutes: 30, windows: [] });
    const r2 = evaluateTime(
      rules({ timezone: 'UTC', days: allDay, used_seconds: 4000, now: at('2026-11-25T12:00:00Z') }),
    );
    assert.equal(r2.state, 'locked');
    assert.equal(r2.next_change_at, '2026-11-26T00:00:00.000Z');
  });

  test('a negative adjustment takes time away and never makes remaining negative', () => {
    const days = week({}, { limit_minutes: 30, windows: [] });
    const now = at('2026-11-25T12:00:00Z');
    const r = evaluateTime(rules({ timezone: 'UTC', days, adjustments: { '2026-11-25': -45 }, now }));
    assert.equal(r.adjustment_seconds, -2700);
    assert.equal(r.remaining_seconds, 0);
    assert.equal(r.state, 'locked');
  });

  test('an adjustment on a day without a limit is reported but changes nothing', () => {
    const r = evaluateTime(
      rules({ timezone: 'UTC', adjustments: { '2026-11-25': 30 }, now: at('2026-11-25T12:00:00Z') }),
    );
    assert.equal(r.adjustment_seconds, 1800);
    assert.equal(r.limit_seconds, null);
    assert.equal(r.remaining_seconds, null);
    assert.equal(r.state, 'ok');
    assert.equal(r.next_change_at, null);
  });

  test('nothing ever changes → next_change_at is null; a later adjustment is found a month ahead', () => {
    const noLimit = evaluateTime(rules({ timezone: 'Asia/Kathmandu', now: at('2026-11-25T12:00:00Z') }));
    assert.equal(noLimit.next_change_at, null);
    const days = week({}, { limit_minutes: 0, windows: [] });
    const never = evaluateTime(rules({ timezone: 'UTC', days, now: at('2026-11-25T12:00:00Z') }));
    assert.equal(never.state, 'locked');
    assert.equal(never.next_change_at, null);
    const later = evaluateTime(
      rules({ timezone: 'UTC', days, adjustments: { '2026-12-24': 60 }, now: at('2026-11-25T12:00:00Z') }),
    );
    assert.equal(later.next_change_at, '2026-12-24T00:00:00.000Z');
  });

  test('sleep after the last window of the day waits for the next day’s first window', () => {
    const days = week(
      { tuesday: { limit_minutes: 60, windows: [{ start: '16:00', end: '18:00' }] } },
      {
        limit_minutes: 60,
        windows: [
          { start: '07:00', end: '07:30' },
          { start: '15:00', end: '19:00' },
        ],
      },
    );
    // Monday 23 November 2026, 21:00 UTC: Tuesday's only window starts at 16:00.
    const r = evaluateTime(rules({ timezone: 'UTC', days, now: at('2026-11-23T21:00:00Z') }));
    assert.equal(r.state, 'sleep');
    assert.equal(r.next_change_at, '2026-11-24T16:00:00.000Z');
  });

  test('pause beats everything: indefinite has no end, a timed pause ends at its instant, a past one is over', () => {
    const days = week({}, { limit_minutes: 0, windows: [{ start: '08:00', end: '09:00' }] });
    const now = at('2026-11-25T12:00:00Z');
    const indefinite = evaluateTime(rules({ timezone: 'UTC', days, paused_until: 'indefinite', now }));
    assert.equal(indefinite.state, 'paused');
    assert.equal(indefinite.allowed_now, false);
    assert.equal(indefinite.next_change_at, null);
    const timed = evaluateTime(
      rules({ timezone: 'UTC', days, paused_until: '2026-11-25T12:30:00.000Z', now }),
    );
    assert.equal(timed.state, 'paused');
    assert.equal(timed.next_change_at, '2026-11-25T12:30:00.000Z');
    const over = evaluateTime(
      rules({ timezone: 'UTC', days, paused_until: '2026-11-25T12:00:00.000Z', now }),
    );
    assert.equal(over.state, 'sleep');
    const unreadable = evaluateTime(rules({ timezone: 'UTC', paused_until: 'soon', now }));
    assert.equal(unreadable.state, 'paused');
  });
});

// ---- properties ----

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/Los_Angeles',
  'America/St_Johns',
  'America/Santiago',
  'America/Havana',
  'Africa/Casablanca',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Tehran',
  'Australia/Adelaide',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
];
const FROM = Date.UTC(2020, 0, 1);
const TO = Date.UTC(2035, 11, 31);
// HEARTH_PROPERTY_RUNS raises the count for a long hunt; CI keeps the few-second default.
const RUNS = { numRuns: Number(process.env.HEARTH_PROPERTY_RUNS) || 300 };

// An independent reading of the wall clock, through a different Intl path than the engine's.
const walls = new Map<string, Intl.DateTimeFormat>();
function wall(t: number, tz: string): { date: string; minutes: number } {
  let f = walls.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    walls.set(tz, f);
  }
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(f.format(t));
  assert.ok(m, `unexpected wall clock ${f.format(t)}`);
  const ms = ((t % 1000) + 1000) % 1000;
  return { date: m[1] ?? '', minutes: Number(m[2]) * 60 + Number(m[3]) + (Number(m[4]) + ms / 1000) / 60 };
}
const offsetOf = (t: number, tz: string) => {
  const w = wall(t, tz);
  return Date.parse(`${w.date}T00:00:00Z`) + w.minutes * 60_000 - t;
};

// The instants at which each zone changes its offset, 2020–2035, to draw instants near them.
const changes = new Map<string, number[]>();
function changesOf(tz: string): number[] {
  let list = changes.get(tz);
  if (list) return list;
  list = [];
  const step = 7 * 24 * HOUR;
  for (let t = FROM; t < TO; t += step) {
    if (offsetOf(t, tz) === offsetOf(t + step, tz)) continue;
    let lo = t;
    let hi = t + step;
    while (hi - lo > 1000) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetOf(mid, tz) === offsetOf(lo, tz)) lo = mid;
      else hi = mid;
    }
    list.push(hi);
  }
  changes.set(tz, list);
  return list;
}

const slotTime = (slot: number) =>
  `${String(Math.floor(slot / 4)).padStart(2, '0')}:${String((slot % 4) * 15).padStart(2, '0')}`;

const dayArb: fc.Arbitrary<DaySchedule> = fc
  .record({
    limit_minutes: fc.oneof(
      fc.constant(null),
      fc.constantFrom(0, 15, 30, 60, 120, 1440),
      fc.integer({ min: 0, max: 1440 }),
    ),
    bounds: fc.array(fc.integer({ min: 0, max: 96 }), { maxLength: 8 }),
  })
  .map(({ limit_minutes, bounds }) => {
    const sorted = [...bounds].sort((a, b) => a - b);
    const windows = [];
    for (let i = 0; i + 1 < sorted.length; i += 2)
      windows.push({ start: slotTime(sorted[i] ?? 0), end: slotTime(sorted[i + 1] ?? 0) });
    return { limit_minutes, windows };
  })
  .filter((day) => scheduleProblems({ monday: day }).length === 0);

const weekArb: fc.Arbitrary<WeeklyDays> = fc.record(
  Object.fromEntries(WEEKDAYS.map((d) => [d, dayArb])) as Record<(typeof WEEKDAYS)[number], typeof dayArb>,
);

const instantArb = (tz: string) =>
  fc.oneof(
    fc.integer({ min: FROM, max: TO }),
    fc.integer({ min: FROM / 900_000, max: TO / 900_000 }).map((q) => q * 900_000),
    fc.tuple(fc.nat(), fc.integer({ min: -30 * HOUR, max: 30 * HOUR })).map(([i, d]) => {
      const list = changesOf(tz);
      return list.length ? (list[i % list.length] ?? FROM) + Math.round(d / 900_000) * 900_000 : FROM + d;
    }),
  );

const inputArb: fc.Arbitrary<TimeRulesInput> = fc
  .constantFrom(...ZONES)
  .chain((timezone) =>
    fc.record({
      timezone: fc.constant(timezone),
      now: instantArb(timezone),
      days: weekArb,
      used_seconds: fc.oneof(fc.integer({ min: 0, max: 90_000 }), fc.constantFrom(0, 900, 1800, 3600, 7200)),
      adjustments: fc.array(
        fc.tuple(
          fc.integer({ min: -1, max: 10 }),
          fc.integer({ min: -720, max: 720 }).filter((m) => m !== 0),
        ),
        { maxLength: 3 },
      ),
      pause: fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constant('indefinite') },
        { weight: 2, arbitrary: fc.integer({ min: -2 * 24 * HOUR, max: 2 * 24 * HOUR }) },
      ),
    }),
  )
  .map(({ timezone, now, days, used_seconds, adjustments, pause }) => {
    const today = localDate(now, timezone);
    return {
      timezone,
      now,
      days,
      used_seconds,
      adjustments: Object.fromEntries(adjustments.map(([k, m]) => [addDays(today, k), m])),
      paused_until: typeof pause === 'number' ? iso(now + pause) : pause,
    };
  });

/** The day's usage at `t` if the child kept using a device whenever allowed since `now`. */
function usedAt(input: TimeRulesInput, nowDate: string, wasOk: boolean, t: number): number {
  const date = localDate(t, input.timezone);
  if (date === nowDate) return wasOk ? input.used_seconds + (t - input.now) / 1000 : input.used_seconds;
  return wasOk ? (t - zonedInstant(date, '00:00', input.timezone)) / 1000 : 0;
}

describe('evaluateTime properties', () => {
  test('figures stay in range and agree with each other', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = evaluateTime(input);
        assert.equal(r.date, wall(input.now, input.timezone).date);
        assert.equal(r.allowed_now, r.state === 'ok');
        assert.equal(r.remaining_seconds === null, r.limit_seconds === null);
        if (r.limit_seconds !== null && r.remaining_seconds !== null) {
          assert.ok(r.remaining_seconds >= 0);
          assert.ok(r.remaining_seconds <= Math.max(0, r.limit_seconds + r.adjustment_seconds));
        }
        if (r.state === 'locked') assert.equal(r.remaining_seconds, 0);
        const paused =
          input.paused_until === 'indefinite' ||
          (input.paused_until !== null && Date.parse(input.paused_until) > input.now);
        assert.equal(r.state === 'paused', paused);
        if (r.next_change_at !== null) assert.ok(Date.parse(r.next_change_at) > input.now);
      }),
      RUNS,
    );
  });

  test('the state holds until next_change_at and differs from that instant on', () => {
    fc.assert(
      fc.property(inputArb, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (input, u) => {
        const r = evaluateTime(input);
        const wasOk = r.state === 'ok';
        const stateAt = (t: number) =>
          evaluateTime({ ...input, now: t, used_seconds: usedAt(input, r.date, wasOk, t) }).state;
        if (r.next_change_at === null) {
          // Never changes: any instant of the next ten days agrees.
          const t = input.now + Math.floor(u * 10 * 24 * HOUR);
          assert.equal(stateAt(t), r.state, `still ${r.state} at ${iso(t)}`);
          return;
        }
        const change = Date.parse(r.next_change_at);
        assert.equal(stateAt(change - 1), r.state, 'same state a millisecond before the change');
        const between = input.now + Math.floor(u * (change - input.now));
        assert.equal(stateAt(between), r.state, `same state at ${iso(between)}`);
        // The engine reports only real changes, never a bare midnight, so this is stricter than
        // "a different state or a different day".
        assert.notEqual(stateAt(change), r.state, `state changes at ${r.next_change_at}`);
      }),
      RUNS,
    );
  });

  test('away from clock changes, sleep is exactly "the wall clock is outside every window"', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const { timezone: tz, now } = input;
        if (offsetOf(now - 26 * HOUR, tz) !== offsetOf(now + 26 * HOUR, tz)) return;
        const r = evaluateTime({ ...input, paused_until: null });
        const w = wall(now, tz);
        const { windows, limit_minutes } = input.days[weekdayOf(w.date)];
        const toMin = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3));
        const inside =
          !windows.length || windows.some((x) => toMin(x.start) <= w.minutes && w.minutes < toMin(x.end));
        const budget =
          limit_minutes === null
            ? Number.POSITIVE_INFINITY
            : (limit_minutes + (input.adjustments[w.date] ?? 0)) * 60;
        const expected = !inside ? 'sleep' : budget - input.used_seconds <= 0 ? 'locked' : 'ok';
        assert.equal(r.state, expected);
      }),
      RUNS,
    );
  });

  test('more use never leaves more time', () => {
    fc.assert(
      fc.property(inputArb, fc.integer({ min: 0, max: 90_000 }), (input, more) => {
        const a = evaluateTime(input).remaining_seconds;
        const b = evaluateTime({ ...input, used_seconds: input.used_seconds + more }).remaining_seconds;
        if (a === null) assert.equal(b, null);
        else assert.ok(b !== null && b <= a);
      }),
      RUNS,
    );
  });
});

describe('zonedInstant properties', () => {
  const argsArb = fc.record({
    timezone: fc.constantFrom(...ZONES),
    date: fc
      .integer({ min: FROM / (24 * HOUR), max: TO / (24 * HOUR) })
      .map((d) => iso(d * 24 * HOUR).slice(0, 10)),
    slot: fc.integer({ min: 0, max: 95 }),
  });

  test('an existing wall time maps to its first occurrence on that date; a skipped one to the end of the gap', () => {
    fc.assert(
      fc.property(argsArb, ({ timezone: tz, date, slot }) => {
        const t = zonedInstant(date, slotTime(slot), tz);
        assert.equal(localDate(t, tz), date);
        const dayStart = zonedInstant(date, '00:00', tz);
        assert.equal(localDate(dayStart - 1, tz), addDays(date, -1), 'the day before ends just before');
        const w = wall(t, tz);
        if (w.date === date && w.minutes === slot * 15) {
          // It exists: no earlier instant shows the same wall time (the first occurrence).
          for (const back of [30, 60, 120]) {
            const e = wall(t - back * 60_000, tz);
            assert.ok(
              !(e.date === date && e.minutes === slot * 15),
              `an earlier ${slotTime(slot)} ${back} min before`,
            );
          }
        } else {
          // Skipped: the clock jumps over it at t.
          const e = wall(t - 1, tz);
          assert.ok(e.date < date || e.minutes < slot * 15, 'before t the clock was earlier');
          assert.ok(w.date > date || w.minutes > slot * 15, 'at t the clock is later');
        }
      }),
      RUNS,
    );
  });

  test('with the biased instants, the drawn transitions are real offset changes', () => {
    for (const tz of ['Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago']) {
      const list = changesOf(tz);
      assert.ok(list.length >= 20, `${tz} changes ${list.length} times 2020–2035`);
      for (const t of list.slice(0, 4)) assert.notEqual(offsetOf(t - 1000, tz), offsetOf(t, tz));
    }
  });
});
