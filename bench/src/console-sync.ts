// Issue 18's console benchmark: one cycle of the real worker (in the compiled server's process) for 500
// linked households, 250 on the Xbox simulator and 250 on the Nintendo simulator, each with one console
// for its one child. The cycles: every child's week changed, nothing changed, after a restart of the
// server (no access token in memory), and nothing changed again in the restarted server. Provider calls
// are counted by the simulators (`/_sim/state`), the cycle's time is the worker's own record of the
// 'sync-consoles' run. `npm run bench:consoles`.
import { loadavg } from 'node:os';
import { localDate } from '@hearth/protocol';
import { type SimState, startNintendoSimulator, startXboxSimulator } from '@hearth/simulators';
import { openDatabase } from '../../server/src/platform/db/database.js';
import { type Hearth, provenance, run, startHearth, writeResult } from './hearth-fixture.js';
import { cpuSnapshot, otherCpuShare } from './machine.js';

/** Half link an Xbox family account, half a Nintendo one. */
const HOUSEHOLDS = Number(process.env.BENCH_HOUSEHOLDS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const CYCLE_DEADLINE_MS = 180_000;
const POLL_MS = 200;
/** In server/src/features/consoles/service.ts: links synced side by side in one run, and the time after
 * which a run starts no more links (the rest wait for the next run, and this benchmark fails). */
const SYNC_PARALLEL = 16;
const SYNC_BUDGET_S = 20;

type Provider = 'xbox' | 'nintendo';

interface Session {
  cookie: string;
  'x-csrftoken': string;
  'content-type': string;
}

interface Home {
  index: number;
  provider: Provider;
  consoleId: string;
  playerId: string;
  session: Session;
  timezone: string;
  childId: string;
}

interface TaskRow {
  name: string;
  last_run_at: string | null;
  last_duration_ms: number | null;
  last_error: string | null;
  last_result: string | null;
  runs: number;
}

const WEEK = {
  monday: { limit_minutes: 60, windows: [] },
  tuesday: { limit_minutes: 75, windows: [] },
  wednesday: { limit_minutes: 90, windows: [] },
  thursday: { limit_minutes: 45, windows: [] },
  friday: { limit_minutes: 120, windows: [{ start: '07:00', end: '20:30' }] },
  saturday: {
    limit_minutes: 240,
    windows: [
      { start: '08:00', end: '12:00' },
      { start: '14:00', end: '21:00' },
    ],
  },
  sunday: { limit_minutes: null, windows: [] },
};
/** Cycle 1's change: Monday goes from 60 to 30 minutes for every child. */
const CHANGED_MONDAY = { monday: { limit_minutes: 30, windows: [] } };

const pad = (n: number) => String(n).padStart(6, '0');
const xboxChild = (k: number) => `2${pad(k)}`;
const xboxConsole = (k: number) => `g:9${pad(k)}`;
const switchId = (k: number) => `SW-${pad(k)}`;
const switchPlayer = (k: number) => `pl-${pad(k)}`;
/** Today's minutes each household's child played (set in the simulators before cycle 1). */
const playedMinutes = (i: number) => 15 + (i % 90);

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** A Hearth call; fails loudly unless it answers `expect`. */
async function call<T>(
  hearth: Hearth,
  session: Session | null,
  method: string,
  url: string,
  body: unknown,
  expect: number,
  headers: Record<string, string> = {},
): Promise<{ body: T; cookie: string }> {
  const res = await fetch(`${hearth.baseUrl}${url}`, {
    method,
    headers: { ...(session ?? { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${url}: ${res.status} (expected ${expect}) ${text}`);
  return { body: JSON.parse(text) as T, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
}

/**
 * One household as a parent makes it: sign-up, a child with a week, the vendor account linked through
 * the sign-in page, and the child's console imported. Sign-up allows 5 an hour from one address, so
 * each household comes from its own address of the benchmarking range 198.18.0.0/15, told to Hearth in
 * X-Forwarded-For (HEARTH_TRUST_PROXY=1); the connection is loopback all the same.
 */
async function seedHome(hearth: Hearth, i: number): Promise<Home> {
  const provider: Provider = i % 2 === 0 ? 'xbox' : 'nintendo';
  const k = Math.floor(i / 2);
  const signup = await call<{ household: { timezone: string }; csrf_token: string }>(
    hearth,
    null,
    'POST',
    '/api/signup',
    { username: `bench-owner-${i}`, password: `bench-password-${pad(i)}`, household_name: `Home ${i}` },
    201,
    { 'x-forwarded-for': `198.18.${i >> 8}.${i & 255}` },
  );
  const session: Session = {
    cookie: signup.cookie,
    'x-csrftoken': signup.body.csrf_token,
    'content-type': 'application/json',
  };
  const child = await call<{ id: string }>(
    hearth,
    session,
    'POST',
    '/api/user/create',
    { name: `Kid ${i}` },
    201,
  );
  await call(
    hearth,
    session,
    'POST',
    '/weekly-schedule/update',
    { managed_user_id: child.body.id, days: WEEK },
    200,
  );
  const start = await call<{ url: string; state: string }>(
    hearth,
    session,
    'GET',
    `/api/${provider}/login-url`,
    undefined,
    200,
  );
  const page = await fetch(start.body.url, { headers: { accept: 'application/json' } });
  if (page.status !== 200) throw new Error(`sign-in page: ${page.status} ${await page.text()}`);
  const { redirect_url } = (await page.json()) as { redirect_url: string };
  await call(
    hearth,
    session,
    'POST',
    `/api/${provider}/authenticate`,
    { redirect_url, state: start.body.state },
    200,
  );
  const consoleId = provider === 'xbox' ? xboxConsole(k) : switchId(k);
  const playerId = provider === 'xbox' ? xboxChild(k) : switchPlayer(k);
  await call(
    hearth,
    session,
    'POST',
    `/api/${provider}/import-device`,
    { console_id: consoleId, label: `Console ${i}`, player_id: playerId, managed_user_id: child.body.id },
    201,
  );
  return {
    index: i,
    provider,
    consoleId,
    playerId,
    session,
    timezone: signup.body.household.timezone,
    childId: child.body.id,
  };
}

async function syncTask(hearth: Hearth): Promise<TaskRow | null> {
  const { body } = await call<{ tasks: TaskRow[] }>(
    hearth,
    hearth.owner,
    'GET',
    '/api/task-status',
    undefined,
    200,
  );
  return body.tasks.find((t) => t.name === 'sync-consoles') ?? null;
}

const accountsOf = (result: string | null) =>
  Number(/synced (\d+) console accounts/.exec(result ?? '')?.[1] ?? -1);

/**
 * Waits for the worker's next 'sync-consoles' run after `runsBefore` that synced `accounts` links. Runs
 * that found nothing due (started before the links were made due) are passed over; a run that synced
 * some but not all of them means the cycle was split across two runs, and the figures would not be one
 * cycle's.
 */
async function waitForRun(hearth: Hearth, runsBefore: number, accounts: number): Promise<TaskRow> {
  const deadline = Date.now() + CYCLE_DEADLINE_MS;
  let seen = runsBefore;
  while (Date.now() < deadline) {
    const task = await syncTask(hearth);
    if (task && task.runs > seen) {
      seen = task.runs;
      const n = accountsOf(task.last_result);
      if (task.last_error) throw new Error(`sync-consoles failed: ${task.last_error}`);
      if (n === accounts) return task;
      if (n !== 0)
        throw new Error(
          `a sync-consoles run synced ${n} of ${accounts} accounts ("${task.last_result}"): the cycle was split`,
        );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`no sync-consoles run of ${accounts} accounts within ${CYCLE_DEADLINE_MS / 1000} s`);
}

/** Waits for the next 'sync-consoles' run, whatever it found (the worker's 15 s period has just begun). */
async function waitForAnyRun(hearth: Hearth): Promise<TaskRow> {
  const before = (await syncTask(hearth))?.runs ?? 0;
  const deadline = Date.now() + CYCLE_DEADLINE_MS;
  while (Date.now() < deadline) {
    const task = await syncTask(hearth);
    if (task && task.runs > before) return task;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS / 4));
  }
  throw new Error('the worker ran no sync-consoles task');
}

type RouteCounts = Record<string, number>;

function callsBetween(before: SimState, after: SimState): RouteCounts {
  const out: RouteCounts = {};
  for (const [route, n] of Object.entries(after.calls)) {
    const d = n - (before.calls[route] ?? 0);
    if (d) out[route] = d;
  }
  return out;
}

type Kind = 'limit write' | 'playtime read' | 'token' | 'other';

function kindOf(route: string): Kind {
  if (route.startsWith('PATCH ') || route.includes('updatePlayTimer')) return 'limit write';
  if (route.includes('deviceScreenTimeUsage') || route.includes('fetchDailySummaries'))
    return 'playtime read';
  if (route.includes('/login/') || route.includes('/accounts/')) return 'token';
  return 'other';
}

/** Calls a cycle should make, by kind. */
type Expected = Partial<Record<Kind, number>>;

interface Cycle {
  label: string;
  expect: Expected;
  durationMs: number;
  result: string;
  /** Wall time from the trigger to the worker's record of the run (includes waiting for its tick). */
  windowMs: number;
  serverCpuMs: number | null;
  /** The benchmark process: the simulators answering, and the polling of /api/task-status. */
  benchCpuMs: number;
  otherCpu: number | null;
  calls: RouteCounts;
  tokens: { xbox: SimState['tokens']; nintendo: SimState['tokens'] };
  /** How the cycle was started, and how long that took. */
  trigger: string;
}

const sum = (calls: RouteCounts, kind?: Kind) =>
  Object.entries(calls)
    .filter(([route]) => !kind || kindOf(route) === kind)
    .reduce((n, [, v]) => n + v, 0);

const tokenDelta = (a: SimState['tokens'], b: SimState['tokens']) => ({
  issued: b.issued - a.issued,
  refreshed: b.refreshed - a.refreshed,
  rotated: b.rotated - a.rotated,
});

async function main(): Promise<void> {
  if (HOUSEHOLDS % 2 !== 0) throw new Error('BENCH_HOUSEHOLDS must be even (half Xbox, half Nintendo)');
  const perVendor = HOUSEHOLDS / 2;
  const [xbox, nintendo] = await Promise.all([startXboxSimulator(), startNintendoSimulator()]);
  let hearth: Hearth | null = null;
  let db: ReturnType<typeof openDatabase> | null = null;
  try {
    await xbox.control.family({
      parent: { id: '1000000001', name: 'Bench Parent' },
      children: Array.from({ length: perVendor }, (_, k) => ({
        id: xboxChild(k),
        name: `Child ${k}`,
        devices: [{ id: xboxConsole(k), name: `Xbox ${k}` }],
      })),
    });
    await nintendo.control.family({
      account: { id: 'na-bench-parent', nickname: 'Bench' },
      devices: Array.from({ length: perVendor }, (_, k) => ({
        id: switchId(k),
        label: `Switch ${k}`,
        players: [{ id: switchPlayer(k), nickname: `Player ${k}` }],
      })),
    });

    hearth = await startHearth(
      'consoles',
      {
        HEARTH_OPEN_SIGNUP: 'true',
        HEARTH_TRUST_PROXY: '1',
        HEARTH_XBOX_AUTH_BASE: xbox.authBase,
        HEARTH_XBOX_API_BASE: xbox.apiBase,
        HEARTH_NINTENDO_AUTH_BASE: nintendo.authBase,
        HEARTH_NINTENDO_API_BASE: nintendo.apiBase,
      },
      { worker: true },
    );
    const h = hearth;
    db = openDatabase({ databaseUrl: null, dataDir: h.dataDir });
    const k = db.kysely;

    // ——— seeding, through the routes ———
    const seedStart = Date.now();
    const homes: Home[] = new Array(HOUSEHOLDS);
    let done = 0;
    console.log(`seeding ${HOUSEHOLDS} households, ${CONCURRENCY} at a time…`);
    await eachLimited(
      Array.from({ length: HOUSEHOLDS }, (_, i) => i),
      CONCURRENCY,
      async (i) => {
        homes[i] = await seedHome(h, i);
        done++;
        if (done % 50 === 0 || done === HOUSEHOLDS)
          console.log(
            `  ${done} / ${HOUSEHOLDS} households (${((Date.now() - seedStart) / 1000).toFixed(1)} s)`,
          );
      },
    );
    const seedMs = Date.now() - seedStart;
    const seedCalls = {
      xbox: (await xbox.control.state()).total_calls,
      nintendo: (await nintendo.control.state()).total_calls,
    };

    // An import syncs its console in the background; the next worker run comes long after those few calls.
    await waitForAnyRun(h);
    // A console its import's sync left out: when and how its link was synced instead.
    const unsyncedAfterImport = await k
      .selectFrom('console_device as c')
      .innerJoin('console_link as l', (j) =>
        j.onRef('l.household_id', '=', 'c.household_id').onRef('l.provider', '=', 'c.provider'),
      )
      .select([
        'c.provider',
        'c.imported_at',
        'l.linked_at',
        'l.last_attempt_at',
        'l.last_sync_at',
        'l.next_sync_at',
      ])
      .where('c.last_sync_at', 'is', null)
      .execute();
    for (const u of unsyncedAfterImport)
      console.log(
        `  not synced after its import: ${u.provider} console imported ${u.imported_at}; link made ${u.linked_at}, ` +
          `its last sync started ${u.last_attempt_at}, next ${u.next_sync_at}`,
      );

    const makeAllDue = async () => {
      const r = await k
        .updateTable('console_link')
        .set({ next_sync_at: new Date(0).toISOString() })
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== HOUSEHOLDS)
        throw new Error(`made ${r.numUpdatedRows} links due, expected ${HOUSEHOLDS}`);
    };

    /** `prepare` runs before the counters are read (a restart: the server's CPU is the new process's). */
    const measure = async (
      label: string,
      expect: Expected,
      trigger: () => Promise<string>,
      prepare: () => Promise<string> = async () => '',
    ): Promise<Cycle> => {
      const prepared = await prepare();
      const runsBefore = (await syncTask(h))?.runs ?? 0;
      const [xb, nb] = await Promise.all([xbox.control.state(), nintendo.control.state()]);
      const mark = Date.now();
      const how = await trigger();
      // CPU from the trigger's end (the owners' schedule changes are not the worker's) to the recorded
      // run; the benchmark process (the simulators) is ours too: "other" is the rest of the machine.
      const serverBefore = cpuSnapshot([h.pid]);
      const oursBefore = cpuSnapshot([h.pid, process.pid]);
      const benchBefore = process.cpuUsage();
      const task = await waitForRun(h, runsBefore, HOUSEHOLDS);
      const windowMs = Date.now() - mark;
      const serverAfter = cpuSnapshot([h.pid]);
      const oursAfter = cpuSnapshot([h.pid, process.pid]);
      const bench = process.cpuUsage(benchBefore);
      const [xa, na] = await Promise.all([xbox.control.state(), nintendo.control.state()]);
      const cycle: Cycle = {
        label,
        expect,
        durationMs: task.last_duration_ms ?? Number.NaN,
        result: task.last_result ?? '',
        windowMs,
        serverCpuMs:
          serverBefore.oursMs === null || serverAfter.oursMs === null
            ? null
            : serverAfter.oursMs - serverBefore.oursMs,
        benchCpuMs: Math.round((bench.user + bench.system) / 1000),
        otherCpu: otherCpuShare(oursBefore, oursAfter),
        calls: { ...callsBetween(xb, xa), ...callsBetween(nb, na) },
        tokens: { xbox: tokenDelta(xb.tokens, xa.tokens), nintendo: tokenDelta(nb.tokens, na.tokens) },
        trigger: prepared ? `${prepared}; ${how}` : how,
      };
      console.log(
        `${label}: ${cycle.durationMs} ms ("${cycle.result}"); limit writes ${sum(cycle.calls, 'limit write')}, ` +
          `playtime reads ${sum(cycle.calls, 'playtime read')}, token calls ${sum(cycle.calls, 'token')}, ` +
          `other ${sum(cycle.calls, 'other')}`,
      );
      return cycle;
    };

    // Everything in step: every link synced in one run, so none falls due on its own during the cycles.
    const settle = await measure('settle (after seeding)', {}, async () => {
      await makeAllDue();
      return 'every link due (next_sync_at written to the epoch in the database)';
    });

    // Today's playtime, in each household's day (cycle 1 brings it in).
    await eachLimited(homes, CONCURRENCY, async (home) => {
      const date = localDate(Date.now(), home.timezone);
      const minutes = playedMinutes(home.index);
      if (home.provider === 'xbox')
        await xbox.control.playtime({ user_id: home.playerId, device_id: home.consoleId, date, minutes });
      else
        await nintendo.control.playtime({
          device_id: home.consoleId,
          player_id: home.playerId,
          date,
          minutes,
        });
    });

    const NOTHING_CHANGED: Expected = { 'limit write': 0, 'playtime read': HOUSEHOLDS, token: 0, other: 0 };
    const cycles: Cycle[] = [];
    cycles.push(
      await measure(
        'week changed',
        { 'limit write': HOUSEHOLDS, 'playtime read': HOUSEHOLDS, other: 0 },
        async () => {
          // Right after a run the next one is 15 s away: the 500 changes land before it, in one cycle.
          await waitForAnyRun(h);
          const started = Date.now();
          await eachLimited(homes, CONCURRENCY, async (home) => {
            await call(
              h,
              home.session,
              'POST',
              '/weekly-schedule/update',
              { managed_user_id: home.childId, days: CHANGED_MONDAY },
              200,
            );
          });
          return `each owner changed the child's Monday (POST /weekly-schedule/update, ${CONCURRENCY} at a time, ${((Date.now() - started) / 1000).toFixed(1)} s); the change makes the link due`;
        },
      ),
    );
    cycles.push(
      await measure('nothing changed', NOTHING_CHANGED, async () => {
        await makeAllDue();
        return 'every link due (next_sync_at written to the epoch in the database)';
      }),
    );
    cycles.push(
      await measure(
        'after a restart',
        { 'limit write': 0, 'playtime read': HOUSEHOLDS, token: HOUSEHOLDS, other: 0 },
        async () => {
          await makeAllDue();
          return 'every link due (next_sync_at written to the epoch in the database)';
        },
        async () => {
          const started = Date.now();
          await h.restart();
          return `server stopped and started on the same data directory (${((Date.now() - started) / 1000).toFixed(1)} s)`;
        },
      ),
    );

    cycles.push(
      await measure('nothing changed, after the restart', NOTHING_CHANGED, async () => {
        await makeAllDue();
        return 'every link due again (access tokens held since the last cycle)';
      }),
    );

    // What the vendors hold and what came into usage.
    const [xs, ns] = await Promise.all([xbox.control.state(), nintendo.control.state()]);
    const xboxLimitsRight = homes.filter((home) => {
      if (home.provider !== 'xbox') return false;
      const s = xs.limits[home.playerId] as { dailyRestrictions?: { monday?: { allowance?: number } } };
      return s?.dailyRestrictions?.monday?.allowance === 30 * 60_000;
    }).length;
    const switchLimitsRight = homes.filter((home) => {
      if (home.provider !== 'nintendo') return false;
      const r = ns.limits[home.consoleId] as {
        eachDayOfTheWeekRegulations?: { monday?: { timeToPlayInOneDay?: { limitTime?: number } } };
      };
      return r?.eachDayOfTheWeekRegulations?.monday?.timeToPlayInOneDay?.limitTime === 30;
    }).length;
    const usage = await k
      .selectFrom('usage_day as u')
      .innerJoin('console_device as c', (j) =>
        j.onRef('c.system_id', '=', 'u.system_id').onRef('c.player_id', '=', 'u.linux_username'),
      )
      .select(['c.managed_user_id', 'u.date', 'u.seconds_used'])
      .execute();
    const usageRight = homes.filter((home) =>
      usage.some(
        (u) =>
          u.managed_user_id === home.childId &&
          u.date === localDate(Date.now(), home.timezone) &&
          Number(u.seconds_used) === playedMinutes(home.index) * 60,
      ),
    ).length;
    const consoleErrors = await k
      .selectFrom('console_device')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('last_error', 'is not', null)
      .executeTakeFirstOrThrow();

    writeResult(
      'console-sync',
      report({
        cycles,
        settle,
        seedMs,
        seedCalls,
        unsyncedAfterImport,
        xboxLimitsRight,
        switchLimitsRight,
        usageRight,
        consoleErrors: Number(consoleErrors.n),
        perVendor,
      }),
    );
  } finally {
    await db?.close();
    await hearth?.stop();
    await Promise.all([xbox.close(), nintendo.close()]);
  }
}

interface Report {
  cycles: Cycle[];
  settle: Cycle;
  seedMs: number;
  seedCalls: { xbox: number; nintendo: number };
  unsyncedAfterImport: {
    provider: string;
    imported_at: string;
    linked_at: string;
    last_attempt_at: string | null;
    next_sync_at: string;
  }[];
  xboxLimitsRight: number;
  switchLimitsRight: number;
  usageRight: number;
  consoleErrors: number;
  perVendor: number;
}

const n = (v: number) => v.toLocaleString('en-US');
const perHome = (v: number) => (v / HOUSEHOLDS).toFixed(2);

const KIND_WORDS: Record<Kind, string> = {
  'limit write': 'limit writes',
  'playtime read': 'playtime reads',
  token: 'token calls',
  other: 'other calls',
};

/** "500 limit writes ✓"-style words for what a cycle should have done, and whether it did. */
function expectation(c: Cycle): string {
  const parts = (Object.entries(c.expect) as [Kind, number][]).map(([kind, want]) => {
    const got = sum(c.calls, kind);
    return `${want} ${KIND_WORDS[kind]} ${got === want ? '✓' : `✗ (${got})`}`;
  });
  return parts.join(', ') || '—';
}

function report(r: Report): string[] {
  const { cycles } = r;
  const routes = [...new Set(cycles.flatMap((c) => Object.keys(c.calls)))].sort(
    (a, b) => kindOf(a).localeCompare(kindOf(b)) || a.localeCompare(b),
  );
  const loads = loadavg().map((v) => v.toFixed(1));
  const cpu = (v: number | null) => (v === null ? 'n/a' : `${n(v)} ms`);
  return [
    `### One worker cycle for ${n(HOUSEHOLDS)} linked households (${r.perVendor} Xbox, ${r.perVendor} Nintendo)`,
    '',
    ...provenance(),
    `- Load average after the run (1, 5, 15 min): ${loads.join(', ')}`,
    `- Seeding through the routes (sign-up, child, week, link, import; ${CONCURRENCY} households at a time): ` +
      `${(r.seedMs / 1000).toFixed(1)} s; simulator calls meanwhile: Xbox ${n(r.seedCalls.xbox)}, Nintendo ${n(r.seedCalls.nintendo)}`,
    '',
    '| cycle | worker run | limit writes | playtime reads | token calls | other calls | calls / household | expected |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...cycles.map(
      (c) =>
        `| ${c.label} | **${n(c.durationMs)} ms** | ${sum(c.calls, 'limit write')} | ${sum(c.calls, 'playtime read')} | ` +
        `${sum(c.calls, 'token')} | ${sum(c.calls, 'other')} | ${perHome(sum(c.calls))} | ${expectation(c)} |`,
    ),
    '',
    'Provider calls by route:',
    '',
    `| route | kind | ${cycles.map((c) => c.label).join(' | ')} |`,
    `|---|---|${cycles.map(() => '---:').join('|')}|`,
    ...routes.map(
      (route) =>
        `| \`${route}\` | ${kindOf(route)} | ${cycles.map((c) => c.calls[route] ?? 0).join(' | ')} |`,
    ),
    '',
    "Tokens (the simulators' counters: refreshed = access tokens minted, rotated = refresh tokens replaced) and CPU " +
      'from the trigger to the recorded run (server: the Hearth process; bench: the simulators and the polling):',
    '',
    '| cycle | Xbox refreshed / rotated | Nintendo refreshed | server CPU | bench CPU | other processes |',
    '|---|---:|---:|---:|---:|---:|',
    ...cycles.map(
      (c) =>
        `| ${c.label} | ${c.tokens.xbox.refreshed} / ${c.tokens.xbox.rotated} | ${c.tokens.nintendo.refreshed} | ` +
        `${cpu(c.serverCpuMs)} | ${cpu(c.benchCpuMs)} | ${c.otherCpu === null ? 'n/a' : `${(c.otherCpu * 100).toFixed(0)} % of the machine`} |`,
    ),
    '',
    ...cycles.map(
      (c) =>
        `- ${c.label}: ${c.trigger}; worker result "${c.result}"; ${(c.windowMs / 1000).toFixed(1)} s from the trigger to the recorded run`,
    ),
    '- Before the cycles, a settling run after seeding (every link due, nothing changed since the imports): ' +
      `${n(r.settle.durationMs)} ms, ${sum(r.settle.calls, 'limit write')} limit writes, ${sum(r.settle.calls, 'playtime read')} playtime reads, ` +
      `${sum(r.settle.calls, 'token')} token calls, ${sum(r.settle.calls, 'other')} other calls; consoles their import's sync left unsynced: ${r.unsyncedAfterImport.length}`,
    ...r.unsyncedAfterImport.map(
      (u) =>
        `  - ${u.provider} console imported ${u.imported_at}; its link made ${u.linked_at}, the link's last sync started ${u.last_attempt_at}, next ${u.next_sync_at}`,
    ),
    `- Afterwards: Monday's new limit held by ${r.xboxLimitsRight} / ${r.perVendor} Xbox children and ${r.switchLimitsRight} / ${r.perVendor} Switches; ` +
      `today's playtime in usage for ${r.usageRight} / ${HOUSEHOLDS} children; consoles with a sync error: ${r.consoleErrors}`,
    '- Hearth: compiled server/dist with its worker (`hearth serve`), SQLite, log level warn; the simulators run in the benchmark process on loopback, ' +
      `so no vendor latency is in these times; the service syncs ${SYNC_PARALLEL} links side by side (SYNC_PARALLEL), each link's consoles in turn, ` +
      `and a run starts no link after ${SYNC_BUDGET_S} s (SYNC_BUDGET_MS)`,
  ];
}

run(main);
