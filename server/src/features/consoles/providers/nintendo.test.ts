import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { openWeek, WEEKDAYS, type WeeklyDays } from '@hearth/protocol';
import { type NintendoSimulator, startNintendoSimulator } from '@hearth/simulators';
import fc from 'fast-check';
import { createNintendoProvider, type NintendoRegulations, planNintendoLimits } from './nintendo.js';
import { type LinkSecrets, ProviderError, type ProviderErrorKind } from './types.js';

let sim: NintendoSimulator;
before(async () => {
  sim = await startNintendoSimulator();
});
after(() => sim.close());
beforeEach(async () => {
  await sim.control.reset();
  await sim.control.family({
    account: { id: 'acc1', nickname: 'Dana' },
    devices: [
      {
        id: 'dev1',
        label: 'Living room Switch',
        players: [
          { id: 'pl1', nickname: 'Mia' },
          { id: 'pl2', nickname: 'Leo' },
        ],
      },
      { id: 'dev2', label: 'Switch Lite', players: [{ id: 'pl3', nickname: 'Mia' }] },
    ],
  });
});

const provider = (appVersion?: string) =>
  createNintendoProvider({
    authBase: sim.authBase,
    apiBase: sim.apiBase,
    timeoutMs: 5000,
    ...(appVersion ? { appVersion } : {}),
  });

/** What the parent does: open the sign-in address and copy the "Select this person" link. */
async function signIn() {
  const start = provider().startLogin();
  const answer = await fetch(start.url, { headers: { accept: 'application/json' } });
  assert.equal(answer.status, 200);
  const pasted = ((await answer.json()) as { redirect_url: string }).redirect_url;
  return { start, pasted };
}

async function link(): Promise<LinkSecrets> {
  const { start, pasted } = await signIn();
  const { code } = provider().readRedirect(pasted);
  return (await provider().exchange(code, start.verifier)).secrets;
}

function open(secrets: LinkSecrets, appVersion?: string) {
  let rotations = 0;
  const session = provider(appVersion).session(
    secrets,
    async () => {
      rotations += 1;
    },
    'Europe/Berlin',
  );
  return { session, rotations: () => rotations };
}

async function refusal(promise: Promise<unknown>, kind: ProviderErrorKind): Promise<ProviderError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.kind, kind, err.message);
    return err;
  }
  assert.fail(`expected ${kind}`);
}

function refusalOf(fn: () => unknown, kind: ProviderErrorKind): ProviderError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.kind, kind, err.message);
    return err;
  }
  assert.fail(`expected ${kind}`);
}

const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

const quarter = (q: number) =>
  `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`;
/** Up to four sorted, separate windows in 15-minute steps. */
const windowsArb = fc.uniqueArray(fc.integer({ min: 0, max: 96 }), { maxLength: 8 }).map((edges) => {
  const sorted = [...edges].sort((a, b) => a - b);
  const windows = [];
  for (let i = 0; i + 1 < sorted.length; i += 2)
    windows.push({ start: quarter(sorted[i] as number), end: quarter(sorted[i + 1] as number) });
  return windows;
});
const dayArb = fc.record({
  limit_minutes: fc.option(fc.integer({ min: 0, max: 1440 }), { nil: null }),
  windows: windowsArb,
});
const weekArb = fc
  .tuple(...WEEKDAYS.map(() => dayArb))
  .map((days) => Object.fromEntries(WEEKDAYS.map((d, i) => [d, days[i]])) as WeeklyDays);

describe('Nintendo provider against the simulator', () => {
  test('startLogin: the documented authorize address with an S256 challenge of its verifier and its state', () => {
    const a = provider().startLogin();
    const b = provider().startLogin();
    const url = new URL(a.url);
    assert.equal(`${url.origin}${url.pathname}`, `${sim.authBase}/connect/1.0.0/authorize`);
    assert.equal(url.searchParams.get('client_id'), '54789befb391a838');
    assert.equal(url.searchParams.get('redirect_uri'), 'npf54789befb391a838://auth');
    assert.equal(url.searchParams.get('response_type'), 'session_token_code');
    assert.equal(url.searchParams.get('session_token_code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('state'), a.state);
    assert.match(a.state, /^[A-Za-z0-9_-]{43}$/);
    assert.match(a.verifier ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(
      url.searchParams.get('session_token_code_challenge'),
      createHash('sha256')
        .update(a.verifier ?? '')
        .digest('base64url'),
    );
    assert.notEqual(a.state, b.state);
    assert.notEqual(a.verifier, b.verifier);
    assert.ok(
      url.searchParams.get('scope')?.split(' ').includes('moonParentalControlSetting:update'),
      'the scope lets Hearth write the limits',
    );
  });

  test('signs in with the pasted link: the state comes back, the account and its nickname', async () => {
    const { start, pasted } = await signIn();
    const { code, state } = provider().readRedirect(pasted);
    assert.equal(state, start.state);
    const { secrets, warm } = await provider().exchange(code, start.verifier);
    assert.ok(warm && warm.usableUntil > Date.now(), 'the id token the exchange minted is handed on');
    assert.deepEqual(
      { ...secrets, refresh_token: '' },
      { refresh_token: '', account_id: 'acc1', account_name: 'Dana' },
    );
    assert.ok(secrets.refresh_token.length > 20, 'a session token is stored');
    const calls = (await sim.control.state()).calls;
    assert.equal(
      calls['GET /accounts/2.0.0/users/me'],
      1,
      'the users API on the auth base outside production',
    );
  });

  test("another sign-in's verifier is code_refused, and so is a code used twice", async () => {
    const { pasted } = await signIn();
    const other = provider().startLogin();
    const { code } = provider().readRedirect(pasted);
    const err = await refusal(provider().exchange(code, other.verifier), 'code_refused');
    assert.ok(!err.message.includes(code), 'the message carries no code');
    const again = await signIn();
    const second = provider().readRedirect(again.pasted);
    await provider().exchange(second.code, again.start.verifier);
    await refusal(provider().exchange(second.code, again.start.verifier), 'code_refused');
    await refusal(provider().exchange(second.code, null), 'code_refused');
  });

  test('reads only npf54789befb391a838://auth#… with a code and a state; anything else is bad_redirect', async () => {
    const p = provider();
    const { pasted } = await signIn();
    assert.ok(p.readRedirect(` ${pasted} `).code, 'the pasted link read with spaces around it');
    for (const bad of [
      pasted.replace('npf54789befb391a838', 'npf0000000000000000'),
      pasted.replace('://auth#', '://evil#'),
      `https://accounts.nintendo.com/#${pasted.split('#')[1]}`,
      'npf54789befb391a838://auth#session_state=x&state=abc',
      'npf54789befb391a838://auth#session_token_code=abc',
      'npf54789befb391a838://auth?session_token_code=abc&state=x',
      'npf54789befb391a838://auth#error=access_denied&state=x',
      'garbage',
      '',
      `npf54789befb391a838://auth#session_token_code=${'y'.repeat(5000)}&state=x`,
    ]) {
      const err = refusalOf(() => p.readRedirect(bad), 'bad_redirect');
      assert.ok(!err.message.includes('abc') && err.message.length < 220, err.message);
    }
  });

  test('sends the X-Moon headers with the configured version and the household zone; the session token never rotates', async () => {
    const { session, rotations } = open(await link(), '2.4.1');
    await session.validate();
    const headers = (await sim.control.state()).last_headers ?? {};
    assert.equal(headers['x-moon-app-id'], 'com.nintendo.znma');
    assert.equal(headers['x-moon-app-display-version'], '2.4.1');
    assert.equal(headers['x-moon-app-internal-version'], '241');
    assert.equal(headers['x-moon-timezone'], 'Europe/Berlin');
    assert.equal(headers['x-moon-os'], 'IOS');
    assert.equal(headers['user-agent'], 'moon_ios/2.4.1 (com.nintendo.znma; build:241; iOS 17.0)');
    assert.equal(rotations(), 0);
  });

  test('the id token is cached, and renewed transparently once expired', async () => {
    const { session } = open(await link());
    await session.validate();
    await session.listConsoles();
    assert.equal((await sim.control.state()).tokens.refreshed, 2, 'one for the sign-in, one for the session');
    await sim.control.expireAccess();
    const listing = await session.listConsoles();
    assert.equal(listing.consoles.length, 2);
    assert.equal((await sim.control.state()).tokens.refreshed, 3);
  });

  test('a revoked session token is link_expired', async () => {
    const secrets = await link();
    const { session } = open(secrets);
    await session.validate();
    await sim.control.revoke();
    const err = await refusal(session.validate(), 'link_expired');
    assert.ok(!err.message.includes(secrets.refresh_token), 'the message carries no token');
    assert.match(err.message, /Sign in to Nintendo again/);
  });

  test('500 is transient, 429 rate_limited with Retry-After, 404 not_found', async () => {
    const { session } = open(await link());
    await sim.control.fault({ status: 500, count: 1, path: 'fetchOwnedDevices' });
    await refusal(session.validate(), 'transient');
    await session.validate();
    await sim.control.fault({ status: 429, count: 1, retry_after: 120 });
    const limited = await refusal(session.validate(), 'rate_limited');
    assert.equal(limited.options.retryAfterMs, 120_000);
    await refusal(session.playtime({ console_id: 'gone', player_id: 'pl1' }, [utcDay(0)]), 'not_found');
    await sim.control.fault({ status: 502, count: 1, path: '/api/token' });
    await sim.control.expireAccess();
    await refusal(session.validate(), 'transient');
  });

  test('an app version Nintendo no longer accepts is update_required, naming the setting', async () => {
    const secrets = await link();
    await sim.control.config({ min_app_version: '2.5.0' });
    const err = await refusal(open(secrets).session.validate(), 'update_required');
    assert.match(err.message, /HEARTH_NINTENDO_APP_VERSION/);
    await open(secrets, '2.5.0').session.validate();
  });

  test('lists the consoles and each console’s player profiles', async () => {
    const { session } = open(await link());
    assert.deepEqual(await session.listConsoles(), {
      consoles: [
        { id: 'dev1', name: 'Living room Switch' },
        { id: 'dev2', name: 'Switch Lite' },
      ],
      players: [
        { id: 'pl1', name: 'Mia', console_id: 'dev1' },
        { id: 'pl2', name: 'Leo', console_id: 'dev1' },
        { id: 'pl3', name: 'Mia', console_id: 'dev2' },
      ],
    });
  });

  test("reads the player's own minutes of each asked day, in seconds", async () => {
    const { session } = open(await link());
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl1', date: utcDay(0), minutes: 25 });
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl2', date: utcDay(0), minutes: 50 });
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl1', date: utcDay(1), minutes: 70 });
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl1', date: utcDay(2), minutes: 5 });
    const days = await session.playtime({ console_id: 'dev1', player_id: 'pl1' }, [
      utcDay(0),
      utcDay(1),
      utcDay(3),
    ]);
    assert.deepEqual(
      days.sort((a, b) => b.date.localeCompare(a.date)),
      [
        { date: utcDay(0), seconds: 25 * 60 },
        { date: utcDay(1), seconds: 70 * 60 },
        { date: utcDay(3), seconds: 0 },
      ],
    );
  });

  test('plans every day of the week: 6 h at most, 15-minute steps, bedtime from the windows, each change in words', () => {
    const days = openWeek();
    days.monday = { limit_minutes: 90, windows: [{ start: '07:00', end: '20:00' }] };
    days.tuesday = { limit_minutes: 100, windows: [] };
    days.wednesday = {
      limit_minutes: null,
      windows: [
        { start: '07:00', end: '08:00' },
        { start: '15:00', end: '16:30' },
        { start: '18:00', end: '21:00' },
      ],
    };
    days.thursday = { limit_minutes: 60, windows: [{ start: '10:00', end: '14:00' }] };
    days.friday = { limit_minutes: 120, windows: [{ start: '04:00', end: '24:00' }] };
    days.saturday = { limit_minutes: 480, windows: [] };
    days.sunday = { limit_minutes: 0, windows: [{ start: '00:00', end: '24:00' }] };
    const plan = planNintendoLimits({ days, today: 'monday', today_extra_minutes: 30 });
    const payload = plan.payload as NintendoRegulations;
    assert.equal(payload.timerMode, 'EACH_DAY_OF_THE_WEEK');
    assert.equal(payload.restrictionMode, 'FORCED_TERMINATION');
    const week = payload.eachDayOfTheWeekRegulations;
    assert.deepEqual(Object.keys(week), [...WEEKDAYS]);
    assert.deepEqual(week.monday, {
      timeToPlayInOneDay: { enabled: true, limitTime: 120 },
      bedtime: { enabled: true, startingTime: { hour: 20, minute: 0 }, endingTime: { hour: 7, minute: 0 } },
    });
    assert.deepEqual(payload.dailyRegulations, week.monday, "today's day");
    assert.deepEqual(week.tuesday.timeToPlayInOneDay, { enabled: true, limitTime: 90 });
    assert.deepEqual(week.tuesday.bedtime, { enabled: false, startingTime: null, endingTime: null });
    assert.deepEqual(week.wednesday, {
      timeToPlayInOneDay: { enabled: false, limitTime: null },
      bedtime: { enabled: true, startingTime: { hour: 21, minute: 0 }, endingTime: { hour: 7, minute: 0 } },
    });
    assert.deepEqual(week.thursday.bedtime.startingTime, { hour: 16, minute: 0 });
    assert.deepEqual(week.thursday.bedtime.endingTime, { hour: 9, minute: 0 });
    assert.deepEqual(week.friday.bedtime.startingTime, { hour: 23, minute: 45 });
    assert.deepEqual(week.friday.bedtime.endingTime, { hour: 5, minute: 0 });
    assert.deepEqual(week.saturday.timeToPlayInOneDay, { enabled: true, limitTime: 360 });
    assert.deepEqual(week.sunday, {
      timeToPlayInOneDay: { enabled: true, limitTime: 0 },
      bedtime: { enabled: false, startingTime: null, endingTime: null },
    });
    assert.deepEqual(plan.notes, [
      'Tuesday: the Switch counts play time in steps of 15 minutes, so its limit there is 1 h 30 min instead of 1 h 40 min.',
      'Wednesday: the Switch cannot pause play during the day, so it allows play from 07:00 to 21:00 including 08:00–15:00 and 16:30–18:00.',
      "Thursday: the Switch's bedtime cannot start before 16:00, so play is allowed until 16:00 instead of 14:00.",
      "Thursday: the Switch's bedtime cannot end after 09:00, so play is allowed from 09:00 instead of 10:00.",
      "Friday: the Switch's bedtime cannot start after 23:45, so play ends at 23:45 instead of midnight.",
      "Friday: the Switch's bedtime cannot end before 05:00, so play starts at 05:00 instead of 04:00.",
      'Saturday: the Switch allows at most 6 hours a day, so its limit there is 6 h instead of 8 h.',
    ]);
    const saturday = planNintendoLimits({ days, today: 'saturday', today_extra_minutes: -240 });
    assert.equal(
      (saturday.payload as NintendoRegulations).eachDayOfTheWeekRegulations.saturday.timeToPlayInOneDay
        .limitTime,
      240,
    );
    assert.deepEqual(
      saturday.notes.filter((n) => n.startsWith('Saturday:')),
      [],
    );
    assert.deepEqual(planNintendoLimits({ days, today: 'monday', today_extra_minutes: 30 }), plan);
  });

  test('pushLimits writes all seven days to the console, read back from the simulator', async () => {
    const { session } = open(await link());
    const days = openWeek();
    days.saturday = { limit_minutes: 240, windows: [{ start: '08:00', end: '22:00' }] };
    const plan = planNintendoLimits({ days, today: 'saturday', today_extra_minutes: 0 });
    await session.pushLimits({ console_id: 'dev2', player_id: 'pl3' }, plan);
    const stored = (await sim.control.state()).limits.dev2 as NintendoRegulations;
    assert.deepEqual(stored, plan.payload);
    assert.deepEqual(Object.keys(stored.eachDayOfTheWeekRegulations), [...WEEKDAYS]);
    const bad = structuredClone(plan.payload) as NintendoRegulations;
    bad.eachDayOfTheWeekRegulations.friday.timeToPlayInOneDay = { enabled: true, limitTime: 400 };
    await refusal(
      session.pushLimits({ console_id: 'dev2', player_id: 'pl3' }, { payload: bad, notes: [] }),
      'invalid_limits',
    );
    await sim.control.config({ min_app_version: '3.0.0' });
    await refusal(session.pushLimits({ console_id: 'dev2', player_id: 'pl3' }, plan), 'update_required');
  });

  test('every plan the Nintendo planner makes is accepted by the Switch bounds', async () => {
    const { session } = open(await link());
    await fc.assert(
      fc.asyncProperty(
        weekArb,
        fc.constantFrom(...WEEKDAYS),
        fc.integer({ min: -1440, max: 1440 }),
        async (days, today, extra) => {
          const plan = planNintendoLimits({ days, today, today_extra_minutes: extra });
          for (const note of plan.notes)
            assert.match(note, /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday): .+\.$/);
          await session.pushLimits({ console_id: 'dev1', player_id: 'pl1' }, plan);
          assert.deepEqual((await sim.control.state()).limits.dev1, plan.payload);
        },
      ),
      { numRuns: 60 },
    );
  });
});
