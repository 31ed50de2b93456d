// scheduleProblems: every rule of DESIGN §10's weekly schedule, each with its path and plain words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scheduleProblems } from './schedule.js';
import { openWeek } from './types.js';

const problemsOf = (days: unknown) => scheduleProblems(days as Record<string, unknown>);

test('a week never edited, and a full valid week, have no problems', () => {
  assert.deepEqual(problemsOf(openWeek()), []);
  const day = {
    limit_minutes: 90,
    windows: [
      { start: '00:00', end: '07:15' },
      { start: '07:15', end: '08:00' },
      { start: '15:30', end: '19:45' },
      { start: '21:00', end: '24:00' },
    ],
  };
  assert.deepEqual(problemsOf({ monday: day, sunday: { limit_minutes: 0, windows: [] } }), []);
  assert.deepEqual(problemsOf({ friday: { limit_minutes: 1440, windows: [] } }), []);
});

test('an unknown weekday is named', () => {
  assert.deepEqual(problemsOf({ Monday: { limit_minutes: null, windows: [] }, funday: {} }), [
    { path: 'days/Monday', message: 'is not a day of the week (monday to sunday, in lower case)' },
    { path: 'days/funday', message: 'is not a day of the week (monday to sunday, in lower case)' },
  ]);
});

test('limit_minutes must be a whole number from 0 to 1440 or null', () => {
  for (const limit of [-1, 1441, 30.5, '60', true, undefined]) {
    const problems = problemsOf({ tuesday: { limit_minutes: limit, windows: [] } });
    assert.equal(problems.length, 1, String(limit));
    assert.equal(problems[0]?.path, 'days/tuesday/limit_minutes');
    assert.match(problems[0]?.message ?? '', /whole number of minutes from 0 to 1440, or null/);
  }
});

test('more than 4 windows is refused', () => {
  const windows = ['08', '10', '12', '14', '16'].map((h) => ({ start: `${h}:00`, end: `${h}:30` }));
  assert.deepEqual(problemsOf({ monday: { limit_minutes: null, windows } }), [
    { path: 'days/monday/windows', message: 'has 5 windows; a day can have at most 4' },
  ]);
});

test('times must be HH:MM on a 15-minute step; 24:00 only ends a window', () => {
  const windows = [
    { start: '8:00', end: '09:00' },
    { start: '09:10', end: '10:00' },
    { start: '11:00', end: '25:00' },
    { start: '24:00', end: '24:00' },
  ];
  assert.deepEqual(problemsOf({ monday: { limit_minutes: null, windows } }), [
    { path: 'days/monday/windows/0/start', message: 'must be a time written HH:MM' },
    { path: 'days/monday/windows/1/start', message: 'must be on a 15-minute step (:00, :15, :30 or :45)' },
    { path: 'days/monday/windows/2/end', message: 'must be a time of day from 00:00 to 24:00' },
    { path: 'days/monday/windows/3/start', message: '24:00 can only end a window' },
  ]);
});

test('end must be after start; windows must be in order and must not overlap', () => {
  const windows = [
    { start: '10:00', end: '10:00' },
    { start: '12:00', end: '14:00' },
    { start: '13:00', end: '15:00' },
    { start: '08:00', end: '09:00' },
  ];
  assert.deepEqual(problemsOf({ saturday: { limit_minutes: null, windows } }), [
    { path: 'days/saturday/windows/0/end', message: 'must be after the start' },
    { path: 'days/saturday/windows/2/start', message: 'overlaps the window before it' },
    {
      path: 'days/saturday/windows/3/start',
      message: 'comes before the window before it; windows go in order',
    },
  ]);
});

test('wrong shapes are named instead of thrown', () => {
  assert.deepEqual(problemsOf(null), [
    { path: 'days', message: 'must be an object with a schedule per day of the week' },
  ]);
  assert.deepEqual(problemsOf({ monday: 'all day' }), [
    { path: 'days/monday', message: 'must be an object with limit_minutes and windows' },
  ]);
  assert.deepEqual(
    problemsOf({ monday: { limit_minutes: null, windows: [{ start: '08:00' }, 'x'], extra: 1 } }),
    [
      { path: 'days/monday/extra', message: 'is not part of a day (limit_minutes, windows)' },
      { path: 'days/monday/windows/0/end', message: 'is missing' },
      { path: 'days/monday/windows/1', message: 'must be an object with a start and an end' },
    ],
  );
  assert.deepEqual(problemsOf({ monday: { limit_minutes: null } }), [
    { path: 'days/monday/windows', message: 'is missing (a list, empty for the whole day)' },
  ]);
});
