import { type LoadOptions, median, roundRatios, type TurnMeasurement } from './load.js';
import type { Machine } from './machine.js';

/** A route's figures and the share of the machine's CPU other processes took meanwhile (null: unknown). */
export type RouteResult = TurnMeasurement & { otherCpu: number | null };

export interface UsersVsBare {
  bare: RouteResult;
  users: RouteResult;
  healthz: RouteResult;
  /** GET /api/dashboard of the same household, measured against GET /api/users. */
  dashboard: RouteResult;
  /** What the measured dashboard holds, in words. */
  dashboardShows: string;
  /** How the Hearth server ran: compiled `server/dist` or sources through tsx. */
  server: string;
  revision: string;
  options: LoadOptions;
  machine: Machine;
  date: Date;
}

export const TARGET_RATIO = 0.5;
/** The dashboard's target, against GET /api/users in the same run (issue 13). */
export const DASHBOARD_TARGET_RATIO = 0.4;
/** Above this much CPU used by other processes the run is flagged: the servers shared their cores. */
export const BUSY_MACHINE = 0.1;

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ms = (value: number) => value.toFixed(2);
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** The markdown block printed after a run and written to bench/results/users-vs-bare.md. */
export function formatUsersVsBare(run: UsersVsBare): string {
  const ratio = run.users.requestsPerSecond / run.bare.requestsPerSecond;
  const verdict = ratio >= TARGET_RATIO ? 'target met' : 'below target';
  const rounds = roundRatios(run.users, run.bare);
  const dashboardRatio = run.dashboard.requestsPerSecond / run.users.requestsPerSecond;
  const dashboardRounds = roundRatios(run.dashboard, run.users);
  const dashboardVerdict = dashboardRatio >= DASHBOARD_TARGET_RATIO ? 'target met' : 'below target';
  const row = (r: RouteResult) =>
    `| ${r.label} | ${whole.format(r.requestsPerSecond)} | ${ms(r.latencyP50)} | ${ms(r.latencyP99)} | ` +
    `${whole.format(r.requests)} | ${r.otherCpu === null ? 'n/a' : percent(r.otherCpu)} |`;
  const { machine, options } = run;
  const others = [run.bare, run.users, run.healthz, run.dashboard].map((r) => r.otherCpu);
  const busy = others.some((o) => o !== null && o > BUSY_MACHINE)
    ? `**Other processes took more than ${percent(BUSY_MACHINE)} of the CPU during a run: these figures are unreliable; run again on a quiet machine.**`
    : others.includes(null)
      ? 'CPU taken by other processes could not be measured here (it needs Linux /proc).'
      : `Other processes took at most ${percent(BUSY_MACHINE)} of the CPU during each run.`;
  return [
    '| route | requests/s (mean) | latency p50 (ms) | latency p99 (ms) | requests | other CPU |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row(run.bare),
    row(run.users),
    row(run.healthz),
    row(run.dashboard),
    '',
    `GET /api/users / bare route: **${percent(ratio)}** (target ≥ ${percent(TARGET_RATIO)}: ${verdict}).`,
    `Round by round: ${rounds.map(percent).join(', ')} (median ${percent(median(rounds))}).`,
    '',
    `GET /api/dashboard / GET /api/users: **${percent(dashboardRatio)}** ` +
      `(target ≥ ${percent(DASHBOARD_TARGET_RATIO)}: ${dashboardVerdict}).`,
    `Round by round: ${dashboardRounds.map(percent).join(', ')} (median ${percent(median(dashboardRounds))}).`,
    '',
    busy,
    '',
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB memory, ` +
      `Node ${machine.node}, ${machine.platform}`,
    `- Date: ${run.date.toISOString().slice(0, 16).replace('T', ' ')} UTC; code: ${run.revision}`,
    `- Load: autocannon in the benchmark process (sharing the machine with the servers), ` +
      `${options.connections} connections; a ${options.warmup} s warm-up per route, then ${options.rounds} rounds ` +
      `in which the routes take turns for ${options.duration} s each (requests/s: mean of the rounds)`,
    `- Hearth: ${run.server}, SQLite in a temporary directory, log level silent, no worker; ` +
      `signed in as the household owner, 5 children; the dashboard shows ${run.dashboardShows}`,
    '',
  ].join('\n');
}
