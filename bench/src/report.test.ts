import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatUsersVsBare, type RouteResult, type UsersVsBare } from './report.js';

const measured = (label: string, requestsPerSecond: number, otherCpu: number | null = 0.02): RouteResult => ({
  label,
  requestsPerSecond,
  latencyP50: 1.234,
  latencyP99: 9.876,
  requests: requestsPerSecond * 10,
  perRound: [requestsPerSecond * 0.9, requestsPerSecond, requestsPerSecond * 1.1],
  otherCpu,
});

const run = (usersPerSecond: number, otherCpu: number | null = 0.02): UsersVsBare => ({
  bare: measured('bare', 20_000),
  users: measured('users', usersPerSecond, otherCpu),
  healthz: measured('healthz', 30_000),
  dashboard: measured('dashboard', 6_000),
  dashboardShows: '5 children, 12 devices, 10 recent alerts',
  server: 'compiled server/dist',
  revision: 'abc1234',
  options: { duration: 4, warmup: 2, connections: 50, rounds: 3 },
  machine: { cpu: 'Test CPU', cores: 2, memoryGiB: 24, node: 'v20.19.0', platform: 'Linux 6 x64' },
  date: new Date('2025-01-02T03:04:05Z'),
});

test('reports each route as a table row with rounded rates and millisecond latencies', () => {
  const text = formatUsersVsBare(run(12_345.6));
  assert.match(text, /^\| bare \| 20,000 \| 1\.23 \| 9\.88 \| 200,000 \| 2\.0 % \|$/m);
  assert.match(text, /^\| users \| 12,346 \| 1\.23 \| 9\.88 \| 123,456 \| 2\.0 % \|$/m);
  assert.match(text, /^\| healthz \| 30,000 \|/m);
  assert.match(text, /2025-01-02 03:04 UTC; code: abc1234/);
  assert.match(text, /Test CPU, 2 cores, 24\.0 GiB memory, Node v20\.19\.0/);
});

test('says whether /api/users reaches half of the bare route', () => {
  assert.match(formatUsersVsBare(run(12_000)), /\*\*60\.0 %\*\* \(target ≥ 50\.0 %: target met\)/);
  assert.match(formatUsersVsBare(run(4_000)), /\*\*20\.0 %\*\* \(target ≥ 50\.0 %: below target\)/);
});

test('shows the ratio of each round, the routes having taken turns', () => {
  const text = formatUsersVsBare({
    ...run(12_000),
    users: { ...measured('users', 12_000), perRound: [10_000, 12_000, 14_000] },
    bare: { ...measured('bare', 20_000), perRound: [20_000, 20_000, 20_000] },
  });
  assert.match(text, /Round by round: 50\.0 %, 60\.0 %, 70\.0 % \(median 60\.0 %\)/);
  assert.match(text, /3 rounds in which the routes take turns for 4 s each/);
});

test('flags a run made while other work kept the machine busy', () => {
  assert.doesNotMatch(formatUsersVsBare(run(12_000, 0.02)), /unreliable/);
  const busy = formatUsersVsBare(run(12_000, 0.4));
  assert.match(busy, /^\| users \| 12,000 \|.*\| 40\.0 % \|$/m);
  assert.match(busy, /these figures are unreliable/);
  assert.match(formatUsersVsBare(run(12_000, null)), /\| n\/a \|[\s\S]*could not be measured/);
});

test('says whether the dashboard reaches 40 % of /api/users, round by round', () => {
  const text = formatUsersVsBare({
    ...run(12_000),
    users: { ...measured('users', 12_000), perRound: [10_000, 12_000, 14_000] },
    dashboard: { ...measured('dashboard', 6_000), perRound: [5_000, 3_600, 7_000] },
  });
  assert.match(text, /^\| dashboard \| 6,000 \|/m);
  assert.match(
    text,
    /GET \/api\/dashboard \/ GET \/api\/users: \*\*50\.0 %\*\* \(target ≥ 40\.0 %: target met\)/,
  );
  assert.match(text, /Round by round: 50\.0 %, 30\.0 %, 50\.0 % \(median 50\.0 %\)/);
  assert.match(text, /the dashboard shows 5 children, 12 devices, 10 recent alerts/);
  assert.match(
    formatUsersVsBare({ ...run(12_000), dashboard: measured('dashboard', 3_000) }),
    /\*\*25\.0 %\*\* \(target ≥ 40\.0 %: below target\)/,
  );
});
