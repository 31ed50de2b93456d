import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { openWeek, WEEKDAYS, type WeeklyDays } from '@hearth/protocol';
import { startXboxSimulator, type XboxSimulator } from '@hearth/simulators';
import fc from 'fast-check';
import { type LinkSecrets, ProviderError, type ProviderErrorKind } from './types.js';
import { createXboxProvider, type XboxSchedulePayload } from './xbox.js';

let sim: XboxSimulator;
before(async () => {
  sim = await startXboxSimulator();
});
after(() => sim.close());
beforeEach(async () => {
  await sim.control.reset();
  await sim.control.family({
    parent: { id: 'p1', name: 'Dana Rivers' },
    children: [
      {
        id: 'c1',
        name: 'Mia Rivers',
        devices: [
          { id: 'g:x1', name: 'Den Xbox' },
          { id: 'g:w1', name: 'Laptop', deviceClass: 'Windows' },
        ],
      },
      {
        id: 'c2',
        name: 'Leo Rivers',
        devices: [
          { id: 'g:x1', name: 'Den Xbox' },
          { id: 'g:x2', name: 'Bedroom Xbox' },
        ],
      },
    ],
  });
});

const provider = () => createXboxProvider({ authBase: sim.authBase, apiBase: sim.apiBase, timeoutMs: 5000 });

/** What the parent does: open the sign-in address, follow it, paste the address it lands on. */
async function pastedAddress(extra = ''): Promise<string> {
  const start = provider().startLogin();
  const answer = await fetch(`${start.url}${extra}`, { headers: { accept: 'application/json' } });
  assert.equal(answer.status, 200);
  return ((await answer.json()) as { redirect_url: string }).redirect_url;
}

async function link(): Promise<LinkSecrets> {
  const { code } = provider().readRedirect(await pastedAddress());
  return (await provider().exchange(code, null)).secrets;
}

function open(secrets: LinkSecrets) {
  const saved: LinkSecrets[] = [];
  const session = provider().session(
    secrets,
    async (next) => {
      saved.push(next);
    },
    'Europe/Berlin',
  );
  return { session, saved };
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

/** A local server that answers every call with `answer` (or never, when null). */
async function fakeApi(
  answer: { status: number; body: string } | null,
): Promise<{ base: string; server: Server }> {
  const server = createServer((_req, res) => {
    if (!answer) return;
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, server };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

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

describe('Xbox provider against the simulator', () => {
  test("startLogin names Microsoft's sign-in with the desktop redirect, a fresh state and no verifier", () => {
    const a = provider().startLogin();
    const b = provider().startLogin();
    const url = new URL(a.url);
    assert.equal(`${url.origin}${url.pathname}`, `${sim.authBase}/oauth20_authorize.srf`);
    assert.equal(url.searchParams.get('client_id'), '000000000004893A');
    assert.equal(url.searchParams.get('redirect_uri'), `${sim.authBase}/oauth20_desktop.srf`);
    assert.equal(url.searchParams.get('scope'), 'service::familymobile.microsoft.com::MBI_SSL');
    assert.match(a.state, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.state, b.state);
    assert.equal(a.verifier, null);
  });

  test('signs in from the pasted address: the parent account, its name and a refresh token', async () => {
    const secrets = await link();
    assert.equal(secrets.account_id, 'p1');
    assert.equal(secrets.account_name, 'Dana Rivers');
    assert.ok(secrets.refresh_token.length > 20, 'a refresh token is stored');
    assert.equal((await sim.control.state()).tokens.issued, 1);
  });

  test('a pasted address works once: pasting it again is code_refused, in words without the code', async () => {
    const { code } = provider().readRedirect(await pastedAddress());
    await provider().exchange(code, null);
    const err = await refusal(provider().exchange(code, null), 'code_refused');
    assert.ok(!err.message.includes(code), 'the message carries no code');
  });

  test('reads only the desktop page address with a code; anything else is bad_redirect', async () => {
    const p = provider();
    const pasted = await pastedAddress();
    assert.ok(p.readRedirect(`  ${pasted}\n`).code, 'the pasted address read with spaces around it');
    assert.equal(p.readRedirect(pasted).state, null);
    const denied = refusalOf(
      () =>
        p.readRedirect(
          new URL(pasted)
            .toString()
            .replace(/\?.*/, '?error=access_denied&error_description=The+user+said+no'),
        ),
      'bad_redirect',
    );
    assert.match(denied.message, /not allowed/);
    const other = refusalOf(
      () =>
        p.readRedirect(
          `${sim.authBase}/oauth20_desktop.srf?error=server_error&error_description=Try%20again%20later`,
        ),
      'bad_redirect',
    );
    assert.match(other.message, /Try again later/);
    for (const bad of [
      'https://evil.example/oauth20_desktop.srf?code=M.abc',
      `${sim.authBase}/oauth20_authorize.srf?code=M.abc`,
      `${sim.authBase}/oauth20_desktop.srf?lc=1033`,
      'not an address at all',
      '',
      `${sim.authBase}/oauth20_desktop.srf?code=${'x'.repeat(5000)}`,
    ]) {
      const err = refusalOf(() => p.readRedirect(bad), 'bad_redirect');
      assert.ok(!err.message.includes('M.abc') && err.message.length < 200, err.message);
    }
    const denial = await pastedAddress('&sim_deny=1');
    refusalOf(() => p.readRedirect(denial), 'bad_redirect');
  });

  test('in production the redirect is https://login.live.com/oauth20_desktop.srf', () => {
    const real = createXboxProvider({
      authBase: 'https://login.live.com',
      apiBase: 'https://mobileaggregator.family.microsoft.com/api',
    });
    assert.equal(
      real.readRedirect('https://login.live.com/oauth20_desktop.srf?code=M.R3_BAY.abc&lc=1033').code,
      'M.R3_BAY.abc',
    );
    refusalOf(
      () => real.readRedirect('http://login.live.com/oauth20_desktop.srf?code=M.R3_BAY.abc'),
      'bad_redirect',
    );
    assert.match(real.startLogin().url, /^https:\/\/login\.live\.com\/oauth20_authorize\.srf\?/);
  });

  test('the first call refreshes; the rotated refresh token is stored before it is used and the old one is dead', async () => {
    const secrets = await link();
    const rosterCallsWhenStored: number[] = [];
    const saved: LinkSecrets[] = [];
    const session = provider().session(
      secrets,
      async (next) => {
        const state = await sim.control.state();
        rosterCallsWhenStored.push(state.calls['GET /aggregator/api/v2/roster'] ?? 0);
        saved.push(next);
      },
      'UTC',
    );
    const rosterBefore = (await sim.control.state()).calls['GET /aggregator/api/v2/roster'] ?? 0;
    await session.validate();
    assert.equal(saved.length, 1);
    assert.deepEqual(rosterCallsWhenStored, [rosterBefore], 'stored before the first API call');
    assert.notEqual(saved[0]?.refresh_token, secrets.refresh_token);
    assert.equal(saved[0]?.account_id, 'p1');
    assert.equal(saved[0]?.account_name, 'Dana Rivers');

    // The access token is cached: more calls need no refresh.
    await session.listConsoles();
    await session.validate();
    assert.equal(saved.length, 1);
    assert.deepEqual((await sim.control.state()).tokens, { issued: 1, refreshed: 1, rotated: 1 });

    const stale = await refusal(open(secrets).session.validate(), 'link_expired');
    assert.ok(!stale.message.includes(secrets.refresh_token), 'the message carries no token');
    await open(saved[0] as LinkSecrets).session.validate();
  });

  test('a session given the access token of its exchange makes no token call until that token runs out', async () => {
    const { code } = provider().readRedirect(await pastedAddress());
    const { secrets, warm } = await provider().exchange(code, null);
    assert.ok(warm && warm.usableUntil > Date.now(), 'the exchange hands on its access token');
    const saved: LinkSecrets[] = [];
    const session = provider().session(secrets, async (next) => void saved.push(next), 'UTC', warm);
    await session.validate();
    await session.listConsoles();
    assert.equal(saved.length, 0, 'no refresh, so no rotation');
    assert.deepEqual((await sim.control.state()).tokens, { issued: 1, refreshed: 0, rotated: 0 });

    // Once it has run out, the session refreshes as a cold one does, and stores the rotated token.
    const spent = provider().session(secrets, async (next) => void saved.push(next), 'UTC', {
      ...warm,
      usableUntil: Date.now() - 1,
    });
    await spent.validate();
    assert.equal(saved.length, 1);
    assert.deepEqual((await sim.control.state()).tokens, { issued: 1, refreshed: 1, rotated: 1 });
  });

  test('concurrent calls share one refresh (a second would spend the rotated token)', async () => {
    const { session, saved } = open(await link());
    await Promise.all([
      session.validate(),
      session.listConsoles(),
      session.playtime({ console_id: 'g:x1', player_id: 'c1' }, ['2025-01-01']),
    ]);
    assert.equal(saved.length, 1);
    assert.equal((await sim.control.state()).tokens.refreshed, 1);
  });

  test('an expired access token is refreshed once and the call retried transparently', async () => {
    const { session, saved } = open(await link());
    await session.validate();
    await sim.control.expireAccess();
    const listing = await session.listConsoles();
    assert.equal(listing.players.length, 2);
    assert.equal(saved.length, 2);
    assert.notEqual(saved[1]?.refresh_token, saved[0]?.refresh_token);
  });

  test('a revoked link is link_expired', async () => {
    const { session } = open(await link());
    await session.validate();
    await sim.control.revoke();
    const err = await refusal(session.listConsoles(), 'link_expired');
    assert.match(err.message, /Sign in to Microsoft again/);
  });

  test('a 500 is transient and not retried; the next call works', async () => {
    const { session } = open(await link());
    await session.validate();
    await sim.control.fault({ status: 500, count: 1, path: '/v2/roster' });
    const before = (await sim.control.state()).calls['GET /aggregator/api/v2/roster'];
    await refusal(session.validate(), 'transient');
    assert.equal((await sim.control.state()).calls['GET /aggregator/api/v2/roster'], (before ?? 0) + 1);
    await session.validate();
  });

  test('a failing token endpoint is transient, not an expired link', async () => {
    const { session } = open(await link());
    await sim.control.fault({ status: 503, count: 1, path: 'oauth20_token' });
    await refusal(session.validate(), 'transient');
    await session.validate();
  });

  test('429 is rate_limited with Retry-After in ms; 403 denied; 404 not_found', async () => {
    const { session } = open(await link());
    await session.validate();
    await sim.control.fault({ status: 429, count: 1, retry_after: 30 });
    const limited = await refusal(session.validate(), 'rate_limited');
    assert.equal(limited.options.retryAfterMs, 30_000);
    await sim.control.fault({ status: 403, count: 1 });
    await refusal(session.validate(), 'denied');
    await refusal(session.playtime({ console_id: 'g:x1', player_id: 'nobody' }, ['2025-01-01']), 'not_found');
  });

  test('an unreachable, silent or nonsensical aggregator is transient or bad_response', async () => {
    const secrets = await link();
    const unreachable = createXboxProvider({ authBase: sim.authBase, apiBase: 'http://127.0.0.1:1/api' });
    const first = unreachable.session(secrets, async () => {}, 'UTC');
    await refusal(first.validate(), 'transient');

    const silent = await fakeApi(null);
    try {
      const p = createXboxProvider({ authBase: sim.authBase, apiBase: silent.base, timeoutMs: 200 });
      const err = await refusal(p.session(await link(), async () => {}, 'UTC').validate(), 'transient');
      assert.match(err.message, /did not answer in time/);
    } finally {
      await closeServer(silent.server);
    }

    const garbage = await fakeApi({ status: 200, body: '<html>maintenance</html>' });
    try {
      const p = createXboxProvider({ authBase: sim.authBase, apiBase: garbage.base });
      await refusal(p.session(await link(), async () => {}, 'UTC').validate(), 'bad_response');
    } finally {
      await closeServer(garbage.server);
    }
  });

  test('lists the children as players and their Xboxes once each, without other devices', async () => {
    const { session } = open(await link());
    const listing = await session.listConsoles();
    assert.deepEqual(listing.players, [
      { id: 'c1', name: 'Mia Rivers', console_id: null },
      { id: 'c2', name: 'Leo Rivers', console_id: null },
    ]);
    assert.deepEqual(listing.consoles, [
      { id: 'g:x1', name: 'Den Xbox' },
      { id: 'g:x2', name: 'Bedroom Xbox' },
    ]);
  });

  test("reads the child's playtime on that console for the asked days only", async () => {
    const { session } = open(await link());
    for (const [device, date, minutes] of [
      ['g:x1', '2025-03-09', 10],
      ['g:x1', '2025-03-10', 90],
      ['g:x1', '2025-03-11', 30],
      ['g:x1', '2025-03-12', 5],
      ['g:w1', '2025-03-10', 200],
    ] as const)
      await sim.control.playtime({ user_id: 'c1', device_id: device, date, minutes });
    await sim.control.playtime({ user_id: 'c2', device_id: 'g:x1', date: '2025-03-10', minutes: 45 });
    const days = await session.playtime({ console_id: 'g:x1', player_id: 'c1' }, [
      '2025-03-10',
      '2025-03-11',
    ]);
    assert.deepEqual(
      days.sort((a, b) => a.date.localeCompare(b.date)),
      [
        { date: '2025-03-10', seconds: 5400 },
        { date: '2025-03-11', seconds: 1800 },
      ],
    );
    assert.deepEqual(await session.playtime({ console_id: 'g:x1', player_id: 'c1' }, []), []);
    assert.equal((await sim.control.state()).last_headers?.['plat-info'], 'ALL');
  });

  test("plans all seven days exactly: allowance, intervals, today's extra on today only", () => {
    const days = openWeek();
    days.monday = {
      limit_minutes: 90,
      windows: [
        { start: '07:00', end: '08:00' },
        { start: '15:00', end: '24:00' },
      ],
    };
    days.tuesday = { limit_minutes: 0, windows: [] };
    days.wednesday = { limit_minutes: 60, windows: [] };
    days.saturday = { limit_minutes: 1400, windows: [] };
    const plan = provider().planLimits({ days, today: 'wednesday', today_extra_minutes: 30 });
    assert.deepEqual(plan.notes, []);
    const payload = plan.payload as XboxSchedulePayload;
    assert.equal(payload.mode, 'PerDeviceType');
    assert.equal(payload.appliesTo, 'Xbox');
    assert.deepEqual(Object.keys(payload.dailyRestrictions), [...WEEKDAYS]);
    assert.deepEqual(payload.dailyRestrictions.monday, {
      allowance: 90 * 60_000,
      allottedIntervals: [
        { begin: '07:00:00', end: '08:00:00' },
        { begin: '15:00:00', end: '23:59:59' },
      ],
    });
    assert.equal(payload.dailyRestrictions.tuesday.allowance, 0);
    assert.equal(payload.dailyRestrictions.wednesday.allowance, 90 * 60_000);
    assert.deepEqual(payload.dailyRestrictions.sunday, {
      allowance: 86_400_000,
      allottedIntervals: [{ begin: '00:00:00', end: '23:59:59' }],
    });
    assert.equal(
      (
        provider().planLimits({ days, today: 'saturday', today_extra_minutes: 120 })
          .payload as XboxSchedulePayload
      ).dailyRestrictions.saturday.allowance,
      86_400_000,
      'clamped to a whole day',
    );
    assert.equal(
      (
        provider().planLimits({ days, today: 'tuesday', today_extra_minutes: -30 })
          .payload as XboxSchedulePayload
      ).dailyRestrictions.tuesday.allowance,
      0,
    );
    assert.equal(
      (
        provider().planLimits({ days, today: 'sunday', today_extra_minutes: 60 })
          .payload as XboxSchedulePayload
      ).dailyRestrictions.sunday.allowance,
      86_400_000,
      'a day without a limit stays without one',
    );
    assert.deepEqual(
      provider().planLimits({ days, today: 'wednesday', today_extra_minutes: 30 }),
      plan,
      'the same week makes the same plan',
    );
  });

  test('pushLimits writes the whole week to the child, read back from the simulator', async () => {
    const { session } = open(await link());
    const days = openWeek();
    days.friday = { limit_minutes: 120, windows: [{ start: '16:00', end: '21:30' }] };
    const plan = provider().planLimits({ days, today: 'friday', today_extra_minutes: 15 });
    const before = Date.now();
    await session.pushLimits({ console_id: 'g:x1', player_id: 'c1' }, plan);
    const stored = (await sim.control.state()).limits.c1 as XboxSchedulePayload & { time: string };
    assert.deepEqual(stored.dailyRestrictions, (plan.payload as XboxSchedulePayload).dailyRestrictions);
    assert.equal(stored.dailyRestrictions.friday.allowance, 135 * 60_000);
    assert.ok(Date.parse(stored.time) >= before - 1000, 'time is set when the limits are sent');
    const bad = { payload: { ...(plan.payload as object), mode: 'Nonsense' }, notes: [] };
    await refusal(session.pushLimits({ console_id: 'g:x1', player_id: 'c1' }, bad), 'invalid_limits');
  });

  test('every week Hearth can hold is a plan the simulator accepts', async () => {
    const { session } = open(await link());
    const p = provider();
    await fc.assert(
      fc.asyncProperty(
        weekArb,
        fc.constantFrom(...WEEKDAYS),
        fc.integer({ min: -1440, max: 1440 }),
        async (days, today, extra) => {
          const plan = p.planLimits({ days, today, today_extra_minutes: extra });
          assert.deepEqual(plan.notes, []);
          await session.pushLimits({ console_id: 'g:x1', player_id: 'c2' }, plan);
          const stored = (await sim.control.state()).limits.c2 as XboxSchedulePayload;
          assert.deepEqual(stored.dailyRestrictions, (plan.payload as XboxSchedulePayload).dailyRestrictions);
        },
      ),
      { numRuns: 40 },
    );
  });
});
