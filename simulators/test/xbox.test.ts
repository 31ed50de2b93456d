import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { startXboxSimulator, XBOX_CLIENT_ID, XBOX_SCOPE, type XboxSimulator } from '../src/index.js';

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
    ],
  });
});

const redirectUri = () => `${sim.authBase}/oauth20_desktop.srf`;

function authorizeUrl(extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    client_id: XBOX_CLIENT_ID,
    response_type: 'code',
    redirect_uri: redirectUri(),
    scope: XBOX_SCOPE,
    ...extra,
  });
  return `${sim.authBase}/oauth20_authorize.srf?${q}`;
}

async function signIn(): Promise<string> {
  const r = await fetch(authorizeUrl(), { headers: { accept: 'application/json' } });
  const { redirect_url } = (await r.json()) as { redirect_url: string };
  const code = new URL(redirect_url).searchParams.get('code');
  assert.ok(code, 'the redirect carries a code');
  return code;
}

async function token(form: Record<string, string>) {
  const r = await fetch(`${sim.authBase}/oauth20_token.srf`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: XBOX_CLIENT_ID,
      redirect_uri: redirectUri(),
      scope: XBOX_SCOPE,
      ...form,
    }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

async function link() {
  const answer = await token({ grant_type: 'authorization_code', code: await signIn() });
  assert.equal(answer.status, 200);
  return answer.body as { access_token: string; refresh_token: string; user_id: string; expires_in: number };
}

function api(path: string, access: string, init: RequestInit = {}) {
  return fetch(`${sim.apiBase}${path}`, {
    ...init,
    headers: {
      authorization: `MSAuth1.0 usertoken="${access}", type="MSACT"`,
      'content-type': 'application/json',
      ...(init.headers as Record<string, string>),
    },
  });
}

function week(day: { allowance: number; allottedIntervals: { begin: string; end: string }[] }) {
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  return Object.fromEntries(days.map((d) => [d, day]));
}

function schedule(dailyRestrictions: Record<string, unknown>) {
  return JSON.stringify({
    mode: 'PerDeviceType',
    appliesTo: 'Xbox',
    culture: 'en-US',
    time: new Date().toISOString(),
    dailyRestrictions,
  });
}

describe('Xbox simulator', () => {
  test('the sign-in page is HTML whose #continue link carries a code to the desktop page', async () => {
    const r = await fetch(authorizeUrl());
    assert.match(r.headers.get('content-type') ?? '', /text\/html/);
    const html = await r.text();
    const href = /<a id="continue" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&#38;', '&');
    assert.ok(href, 'the page has a #continue link');
    const url = new URL(href);
    assert.equal(`${url.origin}${url.pathname}`, redirectUri());
    assert.ok(url.searchParams.get('code'), 'the link carries a code');
    assert.equal(url.searchParams.get('lc'), '1033');
  });

  test('a refused sign-in lands on the desktop page with error=access_denied', async () => {
    const r = await fetch(authorizeUrl({ sim_deny: '1' }), { headers: { accept: 'application/json' } });
    const url = new URL(((await r.json()) as { redirect_url: string }).redirect_url);
    assert.equal(url.searchParams.get('error'), 'access_denied');
    assert.equal(url.searchParams.get('code'), null);
  });

  test('refuses a sign-in for another client or redirect', async () => {
    assert.equal((await fetch(authorizeUrl({ client_id: 'nope' }))).status, 400);
    assert.equal((await fetch(authorizeUrl({ redirect_uri: 'https://evil.example/' }))).status, 400);
  });

  test('a code is good for one exchange only', async () => {
    const code = await signIn();
    const first = await token({ grant_type: 'authorization_code', code });
    assert.equal(first.status, 200);
    assert.equal(first.body.user_id, 'p1');
    assert.equal(first.body.expires_in, 3600);
    const second = await token({ grant_type: 'authorization_code', code });
    assert.equal(second.status, 400);
    assert.equal(second.body.error, 'invalid_grant');
  });

  test('each refresh rotates the refresh token and the old one stops working at once', async () => {
    const linked = await link();
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: linked.refresh_token });
    assert.equal(refreshed.status, 200);
    assert.notEqual(refreshed.body.refresh_token, linked.refresh_token);
    const again = await token({ grant_type: 'refresh_token', refresh_token: linked.refresh_token });
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    const next = await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token });
    assert.equal(next.status, 200);
    const state = await sim.control.state();
    assert.deepEqual(state.tokens, { issued: 1, refreshed: 2, rotated: 2 });
  });

  test('an access token stops working after its lifetime, or when expired by the control API', async (t) => {
    await sim.control.config({ access_ttl_s: 60 });
    const linked = await link();
    assert.equal(linked.expires_in, 60);
    assert.equal((await api('/v2/roster', linked.access_token)).status, 200);
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    t.mock.timers.tick(61_000);
    assert.equal((await api('/v2/roster', linked.access_token)).status, 401);
    t.mock.timers.reset();

    const fresh = await link();
    await sim.control.expireAccess();
    assert.equal((await api('/v2/roster', fresh.access_token)).status, 401);
  });

  test('revoking ends every refresh token', async () => {
    const linked = await link();
    await sim.control.revoke();
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: linked.refresh_token });
    assert.equal(refreshed.body.error, 'invalid_grant');
    assert.equal((await api('/v2/roster', linked.access_token)).status, 401);
  });

  test('the roster, devices and usage have the documented shapes', async () => {
    const { access_token } = await link();
    const roster = (await (await api('/v2/roster', access_token)).json()) as any;
    assert.deepEqual(roster.members, [
      { id: 'p1', firstName: 'Dana', lastName: 'Rivers', role: 'Admin', isChild: false },
      { id: 'c1', firstName: 'Mia', lastName: 'Rivers', role: 'User', isChild: true },
    ]);
    const devices = (await (await api('/v1/devices/c1', access_token)).json()) as any;
    assert.deepEqual(
      devices.devices.map((d: any) => [d.deviceId, d.deviceClass]),
      [
        ['g:x1', 'Xbox'],
        ['g:w1', 'Windows'],
      ],
    );
    assert.equal((await api('/v1/devices/nobody', access_token)).status, 404);

    await sim.control.playtime({ user_id: 'c1', device_id: 'g:x1', date: '2025-03-10', minutes: 90 });
    await sim.control.playtime({ user_id: 'c1', device_id: 'g:x1', date: '2025-03-10', minutes: 75 });
    await sim.control.playtime({ user_id: 'c1', device_id: 'g:x1', date: '2025-03-12', minutes: 5 });
    const begin = Date.UTC(2025, 2, 9);
    const end = Date.UTC(2025, 2, 12);
    const path = `/v4/activityreport/deviceScreenTimeUsage/c1?beginTime=${begin}&endTime=${end}`;
    assert.equal((await api(path, access_token)).status, 400, 'Plat-Info is required');
    const usage = (await (await api(path, access_token, { headers: { 'plat-info': 'ALL' } })).json()) as any;
    const xbox = usage.deviceUsageAggregates.find((a: any) => a.deviceId === 'g:x1');
    assert.deepEqual(xbox.dailyUsages, [{ date: '2025-03-10', usageMs: 75 * 60_000 }]);
  });

  test('a schedule is stored per child and read back; days not written keep theirs', async () => {
    const { access_token } = await link();
    const day = { allowance: 2 * 3_600_000, allottedIntervals: [{ begin: '07:00:00', end: '20:00:00' }] };
    const r = await api('/v4/devicelimits/schedules/c1', access_token, {
      method: 'PATCH',
      body: schedule({
        ...week(day),
        sunday: { allowance: 0, allottedIntervals: [{ begin: '00:00:00', end: '23:59:59' }] },
      }),
    });
    assert.equal(r.status, 200);
    const stored = (await (
      await api('/v4/devicelimits/schedules/c1?appliesTo=Xbox', access_token)
    ).json()) as any;
    assert.deepEqual(stored.dailyRestrictions.monday, day);
    assert.equal(stored.dailyRestrictions.sunday.allowance, 0);
    await api('/v4/devicelimits/schedules/c1', access_token, {
      method: 'PATCH',
      body: schedule({ monday: { ...day, allowance: 60_000 } }),
    });
    const state = await sim.control.state();
    const limits = state.limits.c1 as any;
    assert.equal(limits.dailyRestrictions.monday.allowance, 60_000);
    assert.deepEqual(limits.dailyRestrictions.tuesday, day);
    assert.equal(state.calls['PATCH /aggregator/api/v4/devicelimits/schedules/:uid'], 2);
  });

  test('refuses schedules outside the bounds, naming the day', async () => {
    const { access_token } = await link();
    const bad = [
      { allowance: 90_000, allottedIntervals: [{ begin: '00:00:00', end: '23:59:59' }] },
      { allowance: 86_400_001, allottedIntervals: [{ begin: '00:00:00', end: '23:59:59' }] },
      { allowance: 0, allottedIntervals: [{ begin: '20:00:00', end: '07:00:00' }] },
      { allowance: 0, allottedIntervals: [{ begin: '07:00', end: '08:00' }] },
      { allowance: 0, allottedIntervals: [] },
      {
        allowance: 0,
        allottedIntervals: ['01', '03', '05', '07', '09'].map((h) => ({
          begin: `${h}:00:00`,
          end: `${h}:30:00`,
        })),
      },
      {
        allowance: 0,
        allottedIntervals: [
          { begin: '10:00:00', end: '12:00:00' },
          { begin: '11:00:00', end: '13:00:00' },
        ],
      },
    ];
    for (const day of bad) {
      const r = await api('/v4/devicelimits/schedules/c1', access_token, {
        method: 'PATCH',
        body: schedule({ friday: day }),
      });
      assert.equal(r.status, 400, JSON.stringify(day));
      const body = (await r.json()) as any;
      assert.equal(body.code, 'Family.InvalidParameter');
      assert.match(body.message, /^friday: /);
    }
    const wrongDevice = await api('/v4/devicelimits/schedules/c1', access_token, {
      method: 'PATCH',
      body: JSON.stringify({
        mode: 'PerDeviceType',
        appliesTo: 'Windows',
        culture: 'en-US',
        time: new Date().toISOString(),
        dailyRestrictions: {},
      }),
    });
    assert.equal(wrongDevice.status, 400);
    assert.equal(Object.keys((await sim.control.state()).limits).length, 0);
  });

  test('faults answer the next calls in the vendor shapes, only where the path matches', async () => {
    const { access_token } = await link();
    await sim.control.fault({ status: 500, count: 2, path: '/v1/devices' });
    assert.equal((await api('/v2/roster', access_token)).status, 200);
    for (let i = 0; i < 2; i++) {
      const r = await api('/v1/devices/c1', access_token);
      assert.equal(r.status, 500);
      assert.deepEqual(await r.json(), { message: 'Something went wrong in the Aggregator service' });
    }
    assert.equal((await api('/v1/devices/c1', access_token)).status, 200);

    await sim.control.fault({ status: 429, count: 1, retry_after: 42 });
    assert.equal((await fetch(authorizeUrl())).status, 200, 'the sign-in page is never faulted');
    assert.equal((await sim.control.state()).total_calls > 0, true, 'the control API is not faulted either');
    const limited = await api('/v2/roster', access_token);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '42');

    await sim.control.fault({ status: 500, count: 1, path: 'oauth20_token' });
    const refused = await token({ grant_type: 'refresh_token', refresh_token: 'whatever' });
    assert.equal(refused.status, 500);
    assert.equal(refused.body.error, 'server_error');

    await sim.control.fault({ status: 403, count: 1 });
    const denied = await api('/v2/roster', access_token);
    assert.deepEqual(await denied.json(), { code: 'Family.AccessDenied', message: 'Access denied.' });
  });

  test('state counts calls per route pattern and records the last API headers', async () => {
    const { access_token } = await link();
    await api('/v1/devices/c1', access_token, { headers: { 'x-probe': 'yes' } });
    await api('/v1/devices/p1', access_token);
    const state = await sim.control.state();
    assert.equal(state.calls['GET /aggregator/api/v1/devices/:uid'], 2);
    assert.equal(state.calls['POST /login/oauth20_token.srf'], 1);
    assert.equal(state.calls['GET /login/oauth20_authorize.srf'], 1);
    assert.equal(state.total_calls, 4);
    assert.equal(state.last_headers?.['x-probe'], undefined);
    assert.equal(state.last_headers?.authorization, undefined);
  });
});
