import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  NINTENDO_CLIENT_ID,
  NINTENDO_REDIRECT_URI,
  type NintendoDayRegulation,
  type NintendoSimulator,
  startNintendoSimulator,
} from '../src/index.js';

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
        label: 'Switch',
        players: [
          { id: 'pl1', nickname: 'Mia' },
          { id: 'pl2', nickname: 'Leo' },
        ],
      },
    ],
  });
});

const SESSION_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer-session-token';
const SCOPE = 'openid user moonParentalControlSetting moonParentalControlSetting:update moonDailySummary';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(challenge: string, state = 'st4te'): string {
  const q = new URLSearchParams({
    state,
    redirect_uri: NINTENDO_REDIRECT_URI,
    client_id: NINTENDO_CLIENT_ID,
    scope: SCOPE,
    response_type: 'session_token_code',
    session_token_code_challenge: challenge,
    session_token_code_challenge_method: 'S256',
    theme: 'login_form',
  });
  return `${sim.authBase}/connect/1.0.0/authorize?${q}`;
}

async function signIn(challenge: string): Promise<string> {
  const r = await fetch(authorizeUrl(challenge), { headers: { accept: 'application/json' } });
  const { redirect_url } = (await r.json()) as { redirect_url: string };
  assert.ok(redirect_url.startsWith(`${NINTENDO_REDIRECT_URI}#`), 'the redirect is the npf address');
  const fragment = new URLSearchParams(redirect_url.slice(redirect_url.indexOf('#') + 1));
  assert.equal(fragment.get('state'), 'st4te');
  const code = fragment.get('session_token_code');
  assert.ok(code, 'the fragment carries a session_token_code');
  return code;
}

async function sessionToken(code: string, verifier: string) {
  const r = await fetch(`${sim.authBase}/connect/1.0.0/api/session_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: NINTENDO_CLIENT_ID,
      session_token_code: code,
      session_token_code_verifier: verifier,
    }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

async function idToken(session_token: string) {
  const r = await fetch(`${sim.authBase}/connect/1.0.0/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: NINTENDO_CLIENT_ID, session_token, grant_type: SESSION_GRANT }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

async function link() {
  const { verifier, challenge } = pkce();
  const session = await sessionToken(await signIn(challenge), verifier);
  assert.equal(session.status, 200);
  const tokens = await idToken(session.body.session_token);
  assert.equal(tokens.status, 200);
  const body = tokens.body as {
    access_token: string;
    id_token: string;
    token_type: string;
    expires_in: number;
  };
  return { session_token: session.body.session_token as string, ...body };
}

function moon(
  path: string,
  idToken: string,
  init: { method?: string; body?: unknown; version?: string } = {},
) {
  const version = init.version ?? '2.3.0';
  return fetch(`${sim.apiBase}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${idToken}`,
      'x-moon-app-id': 'com.nintendo.znma',
      'x-moon-os': 'IOS',
      'x-moon-app-display-version': version,
      'x-moon-app-internal-version': version.replaceAll('.', ''),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

function day(limitTime: number | null, bedtime?: [number, number, number, number]): NintendoDayRegulation {
  return {
    timeToPlayInOneDay: { enabled: limitTime !== null, limitTime },
    bedtime: bedtime
      ? {
          enabled: true,
          startingTime: { hour: bedtime[0], minute: bedtime[1] },
          endingTime: { hour: bedtime[2], minute: bedtime[3] },
        }
      : { enabled: false, startingTime: null, endingTime: null },
  };
}

function regulations(each: NintendoDayRegulation, overrides: Record<string, NintendoDayRegulation> = {}) {
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  return {
    timerMode: 'EACH_DAY_OF_THE_WEEK',
    restrictionMode: 'FORCED_TERMINATION',
    dailyRegulations: each,
    eachDayOfTheWeekRegulations: { ...Object.fromEntries(days.map((d) => [d, each])), ...overrides },
  };
}

describe('Nintendo simulator', () => {
  test('the sign-in page is HTML whose "Select this person" link is the npf redirect', async () => {
    const html = await (await fetch(authorizeUrl(pkce().challenge))).text();
    const href = /<a id="continue" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&#38;', '&');
    assert.ok(href?.startsWith('npf54789befb391a838://auth#session_state='), 'the link is the npf redirect');
    assert.match(href ?? '', /&session_token_code=[^&]+&state=st4te$/);
  });

  test('refuses a sign-in without an S256 challenge', async () => {
    const url = new URL(authorizeUrl(pkce().challenge));
    url.searchParams.set('session_token_code_challenge_method', 'plain');
    assert.equal((await fetch(url)).status, 400);
  });

  test('a wrong PKCE verifier is refused, and the code is spent by the try', async () => {
    const { verifier, challenge } = pkce();
    const code = await signIn(challenge);
    const wrong = await sessionToken(code, pkce().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    assert.equal((await sessionToken(code, verifier)).status, 400);
  });

  test('a code is good for one exchange only', async () => {
    const { verifier, challenge } = pkce();
    const code = await signIn(challenge);
    const first = await sessionToken(code, verifier);
    assert.equal(first.status, 200);
    assert.ok(first.body.session_token, 'a session token is issued');
    const second = await sessionToken(code, verifier);
    assert.equal(second.body.error, 'invalid_grant');
  });

  test('the session token mints id tokens; users/me takes the access token', async () => {
    const tokens = await link();
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(Number(tokens.expires_in), 900);
    const me = await fetch(`${sim.authBase}/2.0.0/users/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.deepEqual(
      { ...((await me.json()) as object), language: undefined },
      { id: 'acc1', nickname: 'Dana', country: 'US', language: undefined },
    );
    const again = await idToken(tokens.session_token);
    assert.equal(again.status, 200, 'the session token does not rotate');
    assert.deepEqual((await sim.control.state()).tokens, { issued: 1, refreshed: 2, rotated: 0 });
  });

  test('an expired id token answers 401 invalid_token; a revoked session token invalid_grant', async (t) => {
    await sim.control.config({ access_ttl_s: 30 });
    const tokens = await link();
    assert.equal((await moon('/v2/actions/user/fetchOwnedDevices', tokens.id_token)).status, 200);
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    t.mock.timers.tick(31_000);
    const expired = await moon('/v2/actions/user/fetchOwnedDevices', tokens.id_token);
    t.mock.timers.reset();
    assert.equal(expired.status, 401);
    assert.match(expired.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal(((await expired.json()) as any).errorCode, 'invalid_token');

    const fresh = await link();
    await sim.control.expireAccess();
    assert.equal((await moon('/v2/actions/user/fetchOwnedDevices', fresh.id_token)).status, 401);
    await sim.control.revoke();
    const refused = await idToken(fresh.session_token);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_grant');
  });

  test('an app version below the minimum is refused with update_required', async () => {
    const { id_token } = await link();
    const old = await moon('/v2/actions/user/fetchOwnedDevices', id_token, { version: '1.9.9' });
    assert.equal(old.status, 400);
    assert.equal(((await old.json()) as any).errorCode, 'update_required');
    assert.equal(
      (await moon('/v2/actions/user/fetchOwnedDevices', id_token, { version: '2.10.0' })).status,
      200,
    );
    await sim.control.config({ min_app_version: '2.11' });
    const now = await moon('/v2/actions/user/fetchOwnedDevices', id_token, { version: '2.10.0' });
    assert.equal(((await now.json()) as any).errorCode, 'update_required');
    const headerless = await fetch(`${sim.apiBase}/v2/actions/user/fetchOwnedDevices`, {
      headers: { authorization: `Bearer ${id_token}` },
    });
    assert.equal(((await headerless.json()) as any).errorCode, 'invalid_parameter');
  });

  test('devices, players and daily summaries: the device total is the sum of its players', async () => {
    const { id_token } = await link();
    const owned = (await (await moon('/v2/actions/user/fetchOwnedDevices', id_token)).json()) as any;
    assert.deepEqual(owned.ownedDevices, [{ deviceId: 'dev1', label: 'Switch' }]);
    const monthly = (await (
      await moon('/v2/actions/playSummary/fetchLatestMonthlySummary?deviceId=dev1', id_token)
    ).json()) as any;
    assert.deepEqual(
      monthly.players.map((p: any) => p.profile),
      [
        { playerId: 'pl1', nickname: 'Mia' },
        { playerId: 'pl2', nickname: 'Leo' },
      ],
    );
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl1', date: today, minutes: 30 });
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl2', date: today, minutes: 15 });
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl1', date: yesterday, minutes: 60 });
    await sim.control.playtime({ device_id: 'dev1', player_id: 'pl1', date: yesterday, minutes: 45 });
    const daily = (await (
      await moon('/v2/actions/playSummary/fetchDailySummaries?deviceId=dev1', id_token)
    ).json()) as any;
    assert.equal(daily.items.length, 30);
    assert.equal(daily.items[0].date, today, 'newest first');
    assert.equal(daily.items[0].playingTime, 45);
    assert.equal(daily.items[1].playingTime, 45);
    assert.deepEqual(daily.items[1].devicePlayers, [{ playerId: 'pl1', nickname: 'Mia', playingTime: 45 }]);
    assert.equal(
      (await moon('/v2/actions/playSummary/fetchDailySummaries?deviceId=nope', id_token)).status,
      404,
    );
  });

  test('updatePlayTimer stores a week that keeps the bounds and reads back', async () => {
    const { id_token } = await link();
    const body = regulations(day(120, [21, 0, 7, 0]), { sunday: day(360, [16, 0, 9, 0]), monday: day(0) });
    const r = await moon('/v3/actions/parentalControlSetting/updatePlayTimer', id_token, {
      method: 'POST',
      body: { deviceId: 'dev1', playTimerRegulations: body },
    });
    assert.equal(r.status, 200);
    const read = (await (
      await moon('/v3/actions/parentalControlSetting/fetchParentalControlSetting?deviceId=dev1', id_token)
    ).json()) as any;
    assert.deepEqual(read.parentalControlSetting.playTimerRegulations, body);
    assert.deepEqual((await sim.control.state()).limits, { dev1: body });
  });

  test('refuses limits outside the bounds with invalid_parameter naming the day', async () => {
    const { id_token } = await link();
    const bad: [string, NintendoDayRegulation][] = [
      ['limitTime must be 0–360', day(361)],
      ['limitTime must be 0–360', day(100)],
      ['startingTime', day(60, [15, 45, 7, 0])],
      ['startingTime', day(60, [23, 50, 7, 0])],
      ['endingTime', day(60, [21, 0, 9, 15])],
      ['endingTime', day(60, [21, 0, 4, 45])],
      ['endingTime', day(60, [21, 0, 7, 10])],
    ];
    for (const [message, wednesday] of bad) {
      const r = await moon('/v3/actions/parentalControlSetting/updatePlayTimer', id_token, {
        method: 'POST',
        body: { deviceId: 'dev1', playTimerRegulations: regulations(day(60), { wednesday }) },
      });
      assert.equal(r.status, 400, JSON.stringify(wednesday));
      const problem = (await r.json()) as any;
      assert.equal(problem.errorCode, 'invalid_parameter');
      assert.equal(problem.status, 400);
      assert.ok(problem.detail.startsWith('wednesday: '), problem.detail);
      assert.ok(problem.detail.includes(message), problem.detail);
    }
    assert.deepEqual((await sim.control.state()).limits, {});
  });

  test('faults answer problem+json; 429 carries Retry-After; the token endpoint its own shape', async () => {
    const { id_token, session_token } = await link();
    await sim.control.fault({ status: 429, count: 1, path: 'fetchOwnedDevices', retry_after: 9 });
    assert.equal(
      (await moon('/v2/actions/playSummary/fetchDailySummaries?deviceId=dev1', id_token)).status,
      200,
      'another path is not faulted',
    );
    const limited = await moon('/v2/actions/user/fetchOwnedDevices', id_token);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '9');
    assert.equal(((await limited.json()) as any).errorCode, 'too_many_requests');
    assert.equal((await moon('/v2/actions/user/fetchOwnedDevices', id_token)).status, 200);

    await sim.control.fault({ status: 500, count: 1 });
    const broken = await idToken(session_token);
    assert.equal(broken.status, 500);
    assert.equal(broken.body.error, 'server_error');
    await sim.control.fault({ status: 503, count: 1 });
    const down = await moon('/v2/actions/user/fetchOwnedDevices', id_token);
    assert.equal(((await down.json()) as any).errorCode, 'internal_server_error');
  });

  test('state records the X-Moon headers of the last call, without the token', async () => {
    const { id_token } = await link();
    await moon('/v2/actions/user/fetchOwnedDevices', id_token);
    const state = await sim.control.state();
    assert.equal(state.last_headers?.['x-moon-app-display-version'], '2.3.0');
    assert.equal(state.last_headers?.authorization, undefined);
    assert.equal(state.calls['GET /moon/v2/actions/user/fetchOwnedDevices'], 1);
    assert.equal(state.calls['POST /accounts/connect/1.0.0/api/session_token'], 1);
  });
});
