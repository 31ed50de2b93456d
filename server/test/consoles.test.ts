import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays, localDate, WEEKDAYS } from '@hearth/protocol';
import { SecretBox } from '../src/platform/crypto.js';
import { ensureSecretKey } from '../src/platform/secret-key.js';
import {
  lastingStorage,
  linkAccount,
  type Simulators,
  signInAtVendor,
  sim,
  startConsoleServer,
  startSimulators,
  storedBytes,
  storedLink,
} from './consoles-fixture.js';
import {
  addParent,
  announcePostgres,
  Client,
  createHousehold,
  type Household,
  PASSWORD,
  SseReader,
  type TestServer,
  testDatabases,
} from './helpers.js';

announcePostgres();

const WEEK = {
  monday: { limit_minutes: 60, windows: [] },
  tuesday: { limit_minutes: 75, windows: [] },
  wednesday: { limit_minutes: 90, windows: [] },
  thursday: { limit_minutes: 45, windows: [] },
  friday: { limit_minutes: 120, windows: [{ start: '07:00', end: '20:30' }] },
  saturday: {
    limit_minutes: 480,
    windows: [
      { start: '08:00', end: '12:00' },
      { start: '14:00', end: '21:00' },
    ],
  },
  sunday: { limit_minutes: null, windows: [] },
};

const XBOX_FAMILY = {
  parent: { id: 'puid-parent', name: 'Pat Parent' },
  children: [
    { id: 'puid-sam', name: 'Sam', devices: [{ id: 'g:9001', name: 'Living room Xbox' }] },
    { id: 'puid-kim', name: 'Kim', devices: [{ id: 'g:9002', name: 'Bedroom Xbox' }] },
  ],
};

const NINTENDO_FAMILY = {
  account: { id: 'na-parent', nickname: 'Pat' },
  devices: [
    {
      id: 'SW-0001',
      label: 'Family Switch',
      players: [
        { id: 'pl-sam', nickname: 'Sammy' },
        { id: 'pl-kim', nickname: 'Kimmy' },
      ],
    },
  ],
};

async function childWithWeek(owner: Household, name: string): Promise<string> {
  const child = (await owner.client.post('/api/user/create', { name })).body;
  const res = await owner.client.post('/weekly-schedule/update', { managed_user_id: child.id, days: WEEK });
  assert.equal(res.status, 200, res.text);
  return child.id;
}

for (const db of testDatabases()) {
  describe(`consoles: Xbox through the Family Safety simulator (${db.name})`, () => {
    let sims: Simulators;
    let server: TestServer;
    let owner: Household;
    let childId: string;
    let systemId: string;
    let storage: Awaited<ReturnType<typeof lastingStorage>>;
    const X = () => sims.xbox.url;

    before(async () => {
      sims = await startSimulators();
      await sim(X(), 'POST', '/family', XBOX_FAMILY);
      storage = await lastingStorage(db);
      server = await startConsoleServer(db, sims, storage.env, { keep: true });
      owner = await createHousehold(server, 'Console home');
      childId = await childWithWeek(owner, 'Sam');
    });
    after(async () => {
      await server?.close();
      await sims?.close();
      await storage?.drop();
    });

    test('an unlinked account says so; its other routes answer 409', async () => {
      const status = await owner.client.get('/api/xbox/account-status');
      assert.equal(status.status, 200);
      assert.equal(status.body.linked, false);
      assert.equal(status.body.last_sync_at, null);
      for (const [method, url] of [
        ['GET', '/api/xbox/devices'],
        ['POST', '/api/xbox/sync'],
      ] as const) {
        const res = await owner.client.request(method, url, method === 'POST' ? { json: {} } : {});
        assert.equal(res.status, 409, `${method} ${url}`);
        assert.equal(res.body.error.code, 'conflict');
      }
    });

    test('a pasted address from another site, without a code, or from a refused sign-in is 400; nothing is stored', async () => {
      const start = (await owner.client.get('/api/xbox/login-url')).body;
      assert.match(start.url, /oauth20_authorize\.srf\?/);
      assert.match(start.url, /client_id=000000000004893A/);
      const redirect = new URL(await signInAtVendor(start.url));
      for (const bad of [
        `https://evil.example/oauth20_desktop.srf?code=${redirect.searchParams.get('code')}`,
        `${redirect.origin}${redirect.pathname}?lc=1033`,
        `${redirect.origin}${redirect.pathname}?error=access_denied&error_description=The+user+has+denied+access`,
        'not a url at all',
      ]) {
        const res = await owner.client.post('/api/xbox/authenticate', {
          redirect_url: bad,
          state: start.state,
        });
        assert.equal(res.status, 400, `${bad}: ${res.text}`);
        assert.equal(res.body.error.code, 'invalid_request');
        assert.ok(
          !res.text.includes(redirect.searchParams.get('code') ?? '\u0000'),
          'the code is not echoed',
        );
      }
      const malformed = await owner.client.post('/api/xbox/authenticate', { redirect_url: 42 });
      assert.equal(malformed.status, 400);
      const extra = await owner.client.post('/api/xbox/authenticate', { redirect_url: 'x', token: 'y' });
      assert.equal(extra.status, 400);
      assert.equal((await owner.client.get('/api/xbox/account-status')).body.linked, false);
    });

    test('links through the paste; the refresh token is stored sealed, never in clear; a replayed paste is 400', async () => {
      const start = (await owner.client.get('/api/xbox/login-url')).body;
      const redirect = await signInAtVendor(start.url);
      const linked = await owner.client.post('/api/xbox/authenticate', {
        redirect_url: redirect,
        state: start.state,
      });
      assert.equal(linked.status, 200, linked.text);
      assert.deepEqual(linked.body, { linked: true, account_name: linked.body.account_name });
      const replay = await owner.client.post('/api/xbox/authenticate', {
        redirect_url: redirect,
        state: start.state,
      });
      assert.equal(replay.status, 400, replay.text);
      assert.match(replay.body.error.message, /already used/);

      const row = await storedLink(server, owner.householdId, 'xbox');
      assert.ok(row, 'the link is stored');
      assert.match(row.secrets, /^v1\./);
      const box = new SecretBox(ensureSecretKey(server.dataDir, null), 'console-credentials');
      const secrets = JSON.parse(box.open(row.secrets) ?? '{}');
      assert.ok(secrets.refresh_token.length > 8, 'a refresh token is stored');
      assert.ok(
        !storedBytes(server).includes(secrets.refresh_token),
        'the refresh token is not on disk in clear',
      );
      const status = await owner.client.get('/api/xbox/account-status?validate=true');
      assert.equal(status.body.linked, true);
      assert.equal(status.body.valid, true);
      assert.ok(!status.text.includes(secrets.refresh_token), 'the status never shows the token');
      assert.equal(
        (await sim(X(), 'GET', '/state')).tokens.refreshed,
        0,
        'the first calls after linking use the access token the sign-in got: no refresh',
      );
    });

    test('lists the consoles and players; imports a console mapped to a child; the week reaches the vendor for all seven days', async () => {
      const devices = await owner.client.get('/api/xbox/devices');
      assert.equal(devices.status, 200, devices.text);
      assert.deepEqual(devices.body.consoles.map((c: any) => c.id).sort(), ['g:9001', 'g:9002']);
      assert.deepEqual(devices.body.players.map((p: any) => p.id).sort(), ['puid-kim', 'puid-sam']);

      const events = await SseReader.open(`${server.url}/api/dashboard/events`, owner.client.cookie ?? '');
      const imported = await owner.client.post('/api/xbox/import-device', {
        console_id: 'g:9001',
        label: 'Living room Xbox',
        player_id: 'puid-sam',
        managed_user_id: childId,
      });
      assert.equal(imported.status, 201, imported.text);
      assert.equal(imported.body.platform, 'xbox');
      assert.equal(imported.body.status, 'approved');
      assert.equal(imported.body.display_name, 'Living room Xbox');
      systemId = imported.body.system_id;
      const synced = await events.next(
        (e) => e.event === 'console_synced' && e.data.system_id === systemId,
        15_000,
      );
      assert.equal(synced.data.ok, true);
      events.close();
      await server.services.consoles.idle();

      const state = await sim(X(), 'GET', '/state');
      const written = state.limits['puid-sam'];
      assert.ok(written, `limits of Sam: ${JSON.stringify(state.limits)}`);
      assert.deepEqual(Object.keys(written.dailyRestrictions).sort(), [...WEEKDAYS].sort());
      assert.equal(written.appliesTo, 'Xbox');
      assert.equal(written.dailyRestrictions.monday.allowance, 60 * 60_000);
      assert.equal(written.dailyRestrictions.saturday.allowance, 480 * 60_000);
      assert.equal(written.dailyRestrictions.saturday.allottedIntervals.length, 2);

      const version = (await owner.client.get(`/api/managed-users/${childId}/schedule`)).body.version;
      const sync = await owner.client.get(`/api/schedule-sync-status/${childId}`);
      const item = sync.body.items.find((i: any) => i.system_id === systemId);
      assert.equal(item.status, 'synced');
      assert.equal(item.applied_version, version);
      assert.equal(item.platform, 'xbox');
      assert.equal(item.stale, false);
      assert.ok(item.last_sync_at, 'the console has a last sync');

      const again = await owner.client.post('/api/xbox/import-device', {
        console_id: 'g:9001',
        label: 'Again',
        player_id: 'puid-sam',
        managed_user_id: childId,
      });
      assert.equal(again.status, 409, 'a console imported twice');
    });

    test('a player is one child: mapping Sam to another child is 409, an unknown console or child 404', async () => {
      const other = (await owner.client.post('/api/user/create', { name: 'Other' })).body.id;
      const twice = await owner.client.post('/api/xbox/import-device', {
        console_id: 'g:9002',
        label: 'Bedroom',
        player_id: 'puid-sam',
        managed_user_id: other,
      });
      assert.equal(twice.status, 409, twice.text);
      const unknownConsole = await owner.client.post('/api/xbox/import-device', {
        console_id: 'g:nope',
        label: 'Nope',
        player_id: 'puid-kim',
        managed_user_id: other,
      });
      assert.equal(unknownConsole.status, 404, unknownConsole.text);
      const unknownChild = await owner.client.post('/api/xbox/import-device', {
        console_id: 'g:9002',
        label: 'Bedroom',
        player_id: 'puid-kim',
        managed_user_id: '00000000-0000-4000-8000-000000000000',
      });
      assert.equal(unknownChild.status, 404, unknownChild.text);
      const missing = await owner.client.post('/api/xbox/import-device', { console_id: 'g:9002' });
      assert.equal(missing.status, 400);
    });

    test('playtime of today and the past days comes into usage and statistics, once, whatever the retries', async () => {
      const tz = (await owner.client.get(`/api/managed-users/${childId}/schedule`)).body.timezone;
      const today = localDate(Date.now(), tz);
      const earlier = addDays(today, -3);
      await sim(X(), 'POST', '/playtime', {
        user_id: 'puid-sam',
        device_id: 'g:9001',
        date: today,
        minutes: 25,
      });
      await sim(X(), 'POST', '/playtime', {
        user_id: 'puid-sam',
        device_id: 'g:9001',
        date: earlier,
        minutes: 40,
      });
      await sim(X(), 'POST', '/playtime', {
        user_id: 'puid-sam',
        device_id: 'g:9001',
        date: addDays(today, -20),
        minutes: 99,
      });
      const first = await owner.client.post('/api/xbox/sync');
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body, { synced: 1, errors: [] });
      const twice = await owner.client.post('/api/xbox/sync');
      assert.deepEqual(twice.body, { synced: 1, errors: [] });

      const usage = (await owner.client.get(`/api/user/${childId}/usage`)).body;
      assert.equal(usage.used_seconds, 25 * 60);
      const console = usage.devices.find((d: any) => d.system_id === systemId);
      assert.equal(console.used_seconds, 25 * 60);
      assert.equal(console.platform, 'xbox');
      const stats = (await owner.client.get(`/api/user/${childId}/stats?days=7`)).body;
      const byDate = new Map(stats.days.map((d: any) => [d.date, d.used_seconds]));
      assert.equal(byDate.get(today), 25 * 60);
      assert.equal(byDate.get(earlier), 40 * 60);
      assert.equal(stats.devices.find((d: any) => d.system_id === systemId).seconds, 65 * 60);
    });

    test('nothing changed → no write to the vendor; a changed week → one write and the new version synced', async () => {
      const before = await sim(X(), 'GET', '/state');
      await owner.client.post('/api/xbox/sync');
      const quiet = await sim(X(), 'GET', '/state');
      const patches = (s: any) =>
        Object.entries(s.calls as Record<string, number>)
          .filter(([k]) => k.startsWith('PATCH'))
          .reduce((n, [, v]) => n + v, 0);
      assert.equal(patches(quiet), patches(before), 'no PATCH when nothing changed');

      const changed = await owner.client.post('/weekly-schedule/update', {
        managed_user_id: childId,
        days: { monday: { limit_minutes: 30, windows: [] } },
      });
      const pending = (await owner.client.get(`/api/schedule-sync-status/${childId}`)).body.items.find(
        (i: any) => i.system_id === systemId,
      );
      assert.equal(pending.status, 'pending', 'the console has not heard the new version yet');
      await owner.client.post('/api/xbox/sync');
      const after = await sim(X(), 'GET', '/state');
      assert.equal(patches(after), patches(quiet) + 1);
      assert.equal(after.limits['puid-sam'].dailyRestrictions.monday.allowance, 30 * 60_000);
      const item = (await owner.client.get(`/api/schedule-sync-status/${childId}`)).body.items.find(
        (i: any) => i.system_id === systemId,
      );
      assert.equal(item.status, 'synced');
      assert.equal(item.applied_version, changed.body.version);
    });

    test('an expired access token is refreshed; the rotated refresh token is saved at once and survives a restart', async () => {
      const sealedBefore = (await storedLink(server, owner.householdId, 'xbox'))?.secrets;
      const rotatedBefore = (await sim(X(), 'GET', '/state')).tokens.rotated;
      await sim(X(), 'POST', '/expire-access');
      const res = await owner.client.post('/api/xbox/sync');
      assert.deepEqual(res.body, { synced: 1, errors: [] });
      assert.ok(
        (await sim(X(), 'GET', '/state')).tokens.rotated > rotatedBefore,
        'the vendor rotated the token',
      );
      const sealedAfter = (await storedLink(server, owner.householdId, 'xbox'))?.secrets;
      assert.ok(sealedAfter, 'the link is still stored');
      assert.notEqual(sealedAfter, sealedBefore, 'the new refresh token was stored');

      // A new server process on the same storage holds no access token: it must use the stored,
      // rotated refresh token (the old one is refused by the vendor).
      await server.close();
      server = await startConsoleServer(db, sims, storage.env, { keep: true });
      owner.client = new Client(server.url);
      assert.equal((await owner.client.signIn(owner.username, PASSWORD)).status, 200);
      const restarted = await owner.client.post('/api/xbox/sync');
      assert.deepEqual(restarted.body, { synced: 1, errors: [] });
    });

    test('a transient vendor failure is reported, backed off, and the retry adds no duplicate playtime', async () => {
      await sim(X(), 'POST', '/faults', { status: 500, count: 3 });
      const failed = await owner.client.post('/api/xbox/sync');
      assert.equal(failed.status, 200);
      assert.equal(failed.body.synced, 0);
      assert.equal(failed.body.errors.length, 1);
      assert.ok(!/token|MSAuth/i.test(failed.body.errors[0]), failed.body.errors[0]);
      const status = (await owner.client.get('/api/xbox/account-status')).body;
      assert.equal(status.status, 'failing');
      assert.ok(status.error, 'the failing link says why');
      const link = await storedLink(server, owner.householdId, 'xbox');
      assert.ok(Date.parse(link?.next_sync_at ?? '') > Date.now(), 'backs off');
      await sim(X(), 'DELETE', '/faults');
      const retried = await owner.client.post('/api/xbox/sync');
      assert.deepEqual(retried.body, { synced: 1, errors: [] });
      assert.equal((await owner.client.get('/api/xbox/account-status')).body.status, 'ok');
      assert.equal((await owner.client.get(`/api/user/${childId}/usage`)).body.used_seconds, 25 * 60);
    });

    test('a withdrawn link says "link again", in the sync, the status and validate=true', async () => {
      await sim(X(), 'POST', '/revoke');
      await sim(X(), 'POST', '/expire-access');
      const res = await owner.client.post('/api/xbox/sync');
      assert.equal(res.body.synced, 0);
      assert.match(res.body.errors.join(' '), /link .*again/i);
      const status = (await owner.client.get('/api/xbox/account-status?validate=true')).body;
      assert.equal(status.linked, true);
      assert.equal(status.valid, false);
      assert.equal(status.status, 'expired');
      assert.match(status.error, /link .*again/i);
      const devices = await owner.client.get('/api/xbox/devices');
      assert.equal(devices.status, 502);
      assert.equal(devices.body.error.code, 'upstream_failed');
      assert.match(devices.body.error.message, /link .*again/i);
    });

    test('unlink deletes the credentials and sign-ins; the consoles leave as unenrolled devices', async () => {
      const res = await owner.client.post('/api/xbox/unlink');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { linked: false });
      const k = server.services.db.kysely;
      assert.equal(
        (
          await k
            .selectFrom('console_link')
            .selectAll()
            .where('household_id', '=', owner.householdId)
            .execute()
        ).length,
        0,
      );
      assert.equal(
        (
          await k
            .selectFrom('console_login')
            .selectAll()
            .where('household_id', '=', owner.householdId)
            .execute()
        ).length,
        0,
      );
      const device = (await owner.client.get(`/api/devices/${systemId}`)).body;
      assert.equal(device.status, 'unenrolled');
      assert.equal((await owner.client.get('/api/xbox/account-status')).body.linked, false);
      const items = (await owner.client.get(`/api/schedule-sync-status/${childId}`)).body.items;
      assert.ok(
        !items.some((i: any) => i.system_id === systemId),
        'the unlinked console left the sync status',
      );
    });
  });
}

describe('consoles: Nintendo through the parental controls simulator', () => {
  let sims: Simulators;
  let server: TestServer;
  let owner: Household;
  let childId: string;
  let systemId: string;
  const N = () => sims.nintendo.url;

  before(async () => {
    sims = await startSimulators();
    await sim(N(), 'POST', '/family', NINTENDO_FAMILY);
    server = await startConsoleServer({ name: 'sqlite' }, sims);
    owner = await createHousehold(server, 'Switch home');
    childId = await childWithWeek(owner, 'Sam');
  });
  after(async () => {
    await server?.close();
    await sims?.close();
  });

  test('the sign-in uses PKCE and state; a paste of another sign-in, a replay, or a foreign scheme is 400', async () => {
    const first = (await owner.client.get('/api/nintendo/login-url')).body;
    const url = new URL(first.url);
    assert.equal(url.searchParams.get('session_token_code_challenge_method'), 'S256');
    assert.ok(url.searchParams.get('session_token_code_challenge'), 'a PKCE challenge is sent');
    assert.equal(url.searchParams.get('state'), first.state);
    const redirect = await signInAtVendor(first.url);
    assert.match(redirect, /^npf54789befb391a838:\/\/auth#/);

    for (const bad of [
      redirect.replace('npf54789befb391a838://auth', 'https://evil.example/auth'),
      redirect.replace(/session_token_code=[^&]+/, ''),
      redirect.replace(/&state=[^&]+/, '&state=made-up-state'),
    ]) {
      const res = await owner.client.post('/api/nintendo/authenticate', { redirect_url: bad });
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assert.equal(res.body.error.code, 'invalid_request');
    }
    // Another household cannot finish this household's sign-in.
    const stranger = await createHousehold(server, 'Stranger');
    const stolen = await stranger.client.post('/api/nintendo/authenticate', { redirect_url: redirect });
    assert.equal(stolen.status, 400, stolen.text);
    assert.equal((await stranger.client.get('/api/nintendo/account-status')).body.linked, false);

    const ok = await owner.client.post('/api/nintendo/authenticate', { redirect_url: redirect });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.account_name, 'Pat');
    const replay = await owner.client.post('/api/nintendo/authenticate', { redirect_url: redirect });
    assert.equal(replay.status, 400);
  });

  test('imports the Switch for a player; every day of the week is written, the 6-hour cap is reported back', async () => {
    const devices = (await owner.client.get('/api/nintendo/devices')).body;
    assert.deepEqual(
      devices.consoles.map((c: any) => c.id),
      ['SW-0001'],
    );
    assert.deepEqual(devices.players.map((p: any) => [p.id, p.console_id]).sort(), [
      ['pl-kim', 'SW-0001'],
      ['pl-sam', 'SW-0001'],
    ]);
    const imported = await owner.client.post('/api/nintendo/import-device', {
      console_id: 'SW-0001',
      label: 'Family Switch',
      player_id: 'pl-sam',
      managed_user_id: childId,
    });
    assert.equal(imported.status, 201, imported.text);
    systemId = imported.body.system_id;
    await server.services.consoles.idle();
    const state = await sim(N(), 'GET', '/state');
    const timer = state.limits['SW-0001'];
    assert.equal(timer.timerMode, 'EACH_DAY_OF_THE_WEEK');
    const days = timer.eachDayOfTheWeekRegulations;
    assert.deepEqual(Object.keys(days).sort(), [...WEEKDAYS].sort());
    assert.equal(days.monday.timeToPlayInOneDay.limitTime, 60);
    assert.equal(days.tuesday.timeToPlayInOneDay.limitTime, 75);
    assert.equal(days.saturday.timeToPlayInOneDay.limitTime, 360);
    assert.equal(days.sunday.timeToPlayInOneDay.enabled, false);
    assert.equal(days.friday.bedtime.enabled, true);
    assert.deepEqual(days.friday.bedtime.startingTime, { hour: 20, minute: 30 });

    const item = (await owner.client.get(`/api/schedule-sync-status/${childId}`)).body.items.find(
      (i: any) => i.system_id === systemId,
    );
    assert.equal(item.status, 'synced');
    assert.ok(
      item.notes.some((n: string) => /saturday/i.test(n) && /6 h/.test(n)),
      item.notes.join(' | '),
    );
    const status = (await owner.client.get('/api/nintendo/account-status')).body;
    assert.equal(status.consoles.length, 1);
    assert.deepEqual(status.consoles[0].notes, item.notes);
  });

  test("the player's own playtime comes in, not the other player's", async () => {
    const tz = (await owner.client.get(`/api/managed-users/${childId}/schedule`)).body.timezone;
    const today = localDate(Date.now(), tz);
    await sim(N(), 'POST', '/playtime', {
      device_id: 'SW-0001',
      player_id: 'pl-sam',
      date: today,
      minutes: 50,
    });
    await sim(N(), 'POST', '/playtime', {
      device_id: 'SW-0001',
      player_id: 'pl-kim',
      date: today,
      minutes: 70,
    });
    const res = await owner.client.post('/api/nintendo/sync');
    assert.deepEqual(res.body, { synced: 1, errors: [] });
    assert.equal((await owner.client.get(`/api/user/${childId}/usage`)).body.used_seconds, 50 * 60);
  });

  test('a sync asked for while one runs follows it (it may hold a console imported meanwhile), once for all who asked', async () => {
    const reads = async () =>
      Number(
        (await sim(N(), 'GET', '/state')).calls['GET /moon/v2/actions/playSummary/fetchDailySummaries'] ?? 0,
      );
    const before = await reads();
    const consoles = server.services.consoles;
    const running = consoles.syncLink(owner.householdId, 'nintendo');
    const next = consoles.syncLink(owner.householdId, 'nintendo');
    const same = consoles.syncLink(owner.householdId, 'nintendo');
    assert.notEqual(next, running, 'a second sync follows the running one');
    assert.equal(same, next, 'callers meanwhile share the one that follows');
    await Promise.all([running, next, same]);
    assert.equal(
      (await reads()) - before,
      2,
      'the console was read twice: the running sync and the one after',
    );
  });

  test('an app version Nintendo no longer accepts is a 502 that says what to change', async () => {
    await sim(N(), 'POST', '/config', { min_app_version: '9.0.0' });
    await sim(N(), 'POST', '/expire-access');
    const res = await owner.client.get('/api/nintendo/devices');
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.code, 'upstream_failed');
    assert.match(res.body.error.message, /HEARTH_NINTENDO_APP_VERSION|app version/i);
    await sim(N(), 'POST', '/config', { min_app_version: '1.0.0' });
  });

  test('a member parent reads the link state of the children they see; linking, importing, unlinking and syncing are for owners and admins', async () => {
    const member = await addParent(server, owner, 'member', []);
    const bodies: Record<string, unknown> = {
      '/api/nintendo/authenticate': { redirect_url: 'npf54789befb391a838://auth#x' },
      '/api/nintendo/import-device': {
        console_id: 'SW-0001',
        label: 'x',
        player_id: 'pl-kim',
        managed_user_id: childId,
      },
    };
    for (const [method, url] of [
      ['GET', '/api/nintendo/login-url'],
      ['POST', '/api/nintendo/authenticate'],
      ['GET', '/api/nintendo/devices'],
      ['POST', '/api/nintendo/import-device'],
      ['POST', '/api/nintendo/unlink'],
      ['POST', '/api/nintendo/sync'],
    ] as const) {
      const res = await member.request(method, url, method === 'POST' ? { json: bodies[url] ?? {} } : {});
      assert.equal(res.status, 403, `${method} ${url}: ${res.text}`);
      assert.equal(res.body.error.code, 'forbidden');
    }
    const status = (await member.get('/api/nintendo/account-status')).body;
    assert.equal(status.linked, true);
    assert.deepEqual(status.consoles, [], 'a console of a child the member does not see is not shown');
  });

  test('rate limited by the vendor: the link waits at least as long as it was told', async () => {
    await sim(N(), 'POST', '/faults', { status: 429, count: 5, retry_after: 600 });
    const res = await owner.client.post('/api/nintendo/sync');
    assert.equal(res.body.synced, 0);
    const link = await storedLink(server, owner.householdId, 'nintendo');
    assert.ok(Date.parse(link?.next_sync_at ?? '') >= Date.now() + 590_000, String(link?.next_sync_at));
    await sim(N(), 'DELETE', '/faults');
  });
});

describe('consoles: the worker', () => {
  let sims: Simulators;
  let server: TestServer;

  before(async () => {
    sims = await startSimulators();
    await sim(sims.xbox.url, 'POST', '/family', XBOX_FAMILY);
    await sim(sims.nintendo.url, 'POST', '/family', NINTENDO_FAMILY);
    server = await startConsoleServer({ name: 'sqlite' }, sims);
  });
  after(async () => {
    await server?.close();
    await sims?.close();
  });

  test('syncs the due accounts; a failing vendor backs off and the others go on; not due → no call', async () => {
    const xboxHome = await createHousehold(server, 'X');
    const switchHome = await createHousehold(server, 'N');
    const xChild = await childWithWeek(xboxHome, 'Sam');
    const nChild = await childWithWeek(switchHome, 'Kim');
    await linkAccount(xboxHome, 'xbox');
    await linkAccount(switchHome, 'nintendo');
    for (const [home, provider, body] of [
      [
        xboxHome,
        'xbox',
        { console_id: 'g:9001', label: 'Xbox', player_id: 'puid-sam', managed_user_id: xChild },
      ],
      [
        switchHome,
        'nintendo',
        { console_id: 'SW-0001', label: 'Switch', player_id: 'pl-kim', managed_user_id: nChild },
      ],
    ] as const) {
      const res = await home.client.post(`/api/${provider}/import-device`, body);
      assert.equal(res.status, 201, res.text);
    }
    await server.services.consoles.idle();
    const k = server.services.db.kysely;
    // Both are due now; Microsoft fails.
    await k
      .updateTable('console_link')
      .set({ next_sync_at: new Date(0).toISOString() })
      .execute();
    await sim(sims.xbox.url, 'POST', '/faults', { status: 500, count: 1000 });
    const summary = await server.services.consoles.syncDue();
    assert.match(summary, /synced 2 console accounts \(1 consoles\); 1 with errors/);
    const links = await k.selectFrom('console_link').selectAll().execute();
    const xbox = links.find((l) => l.provider === 'xbox');
    const nintendo = links.find((l) => l.provider === 'nintendo');
    assert.equal(xbox?.status, 'failing');
    assert.equal(xbox?.failures, 1);
    assert.equal(nintendo?.status, 'ok');
    assert.ok(Date.parse(nintendo?.next_sync_at ?? '') > Date.now() + 4 * 60_000, 'next in 5 minutes');

    // Nothing is due: a run makes no vendor call at all.
    await sim(sims.xbox.url, 'DELETE', '/faults');
    const callsBefore = (await sim(sims.nintendo.url, 'GET', '/state')).total_calls;
    const xCallsBefore = (await sim(sims.xbox.url, 'GET', '/state')).total_calls;
    assert.match(await server.services.consoles.syncDue(), /synced 0 console accounts/);
    assert.equal((await sim(sims.nintendo.url, 'GET', '/state')).total_calls, callsBefore);
    assert.equal((await sim(sims.xbox.url, 'GET', '/state')).total_calls, xCallsBefore);

    // A change of the child's week makes its console's account due at once.
    await switchHome.client.post('/weekly-schedule/update', {
      managed_user_id: nChild,
      days: { sunday: { limit_minutes: 30, windows: [] } },
    });
    assert.match(
      await server.services.consoles.syncDue(),
      /synced 1 console accounts \(1 consoles\); 0 with errors/,
    );
    const timer = (await sim(sims.nintendo.url, 'GET', '/state')).limits['SW-0001'];
    assert.equal(timer.eachDayOfTheWeekRegulations.sunday.timeToPlayInOneDay.limitTime, 30);
  });
});
