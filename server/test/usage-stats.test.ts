import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, test } from 'node:test';
import type { SimAgent } from '../../bench/src/simulator.js';
import { sha256Hex } from '../src/platform/crypto.js';
import { withChildAgents } from './child-agents.js';
import { Client, createHousehold, describeWithServer, type Household, recordUsage } from './helpers.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const LIMITS: Record<string, number | null> = {
  monday: 60,
  tuesday: 90,
  wednesday: 0,
  thursday: 120,
  friday: 180,
  saturday: null,
  sunday: 240,
};

/**
 * A zone whose date differs from UTC's at this moment (UTC+14 from 10:00 UTC, UTC−11 before 11:00
 * UTC), so a range ending on the UTC date would be wrong.
 */
const zone =
  new Date().getUTCHours() >= 10
    ? { name: 'Pacific/Kiritimati', offsetMs: 14 * HOUR_MS }
    : { name: 'Pacific/Pago_Pago', offsetMs: -11 * HOUR_MS };
const localDay = (offsetDays = 0) =>
  new Date(Date.now() + zone.offsetMs + offsetDays * DAY_MS).toISOString().slice(0, 10);

describeWithServer('usage statistics', { household: 'Stats home' }, (ctx) => {
  const suite = withChildAgents(ctx, { child: 'Sam', spareAccount: 'guest' });
  const db = () => ctx.server.services.db.kysely;
  let laptop: SimAgent;
  let tablet: SimAgent;
  let other: Household;
  const iconHash = sha256Hex('firefox-icon');

  const report = (a: SimAgent, date: string, seconds: number, apps: [string, number][]) =>
    a.send({
      type: 'usage_report',
      linux_username: 'kid',
      date,
      seconds_used: seconds,
      apps: apps.map(([identifier, s]) => ({ identifier, match_type: 'executable', seconds: s })),
    });
  const settled = async (a: SimAgent) => {
    const answer = a.waitFor((f) => f.type === 'error' && f.code === 'unknown_account');
    a.send({ type: 'usage_report', linux_username: 'barrier', date: localDay(), seconds_used: 1 });
    await answer;
  };
  const inventory = async (a: SimAgent, apps: [string, string, string | null][]) => {
    const reportId = randomUUID();
    const ack = a.waitFor((f) => f.type === 'installed_apps_report_ack' && f.report_id === reportId);
    a.send({
      type: 'installed_apps_report',
      report_id: reportId,
      linux_username: 'kid',
      chunk_index: 0,
      chunk_total: 1,
      is_final: true,
      reported_at: new Date().toISOString(),
      apps: apps.map(([application_name, identifier, icon_hash]) => ({
        application_name,
        identifier,
        match_type: 'executable',
        version_name: '1',
        icon_hash,
      })),
    });
    assert.equal((await ack).success, true);
  };

  before(async () => {
    other = await createHousehold(ctx.server, 'Stats elsewhere');
    await db()
      .updateTable('household')
      .set({ timezone: zone.name })
      .where('id', '=', ctx.home.householdId)
      .execute();
    const days = Object.fromEntries(
      WEEKDAYS.map((d) => [d, { limit_minutes: LIMITS[d] ?? null, windows: [] }]),
    );
    await db()
      .insertInto('time_schedule')
      .values({
        managed_user_id: suite.childId,
        household_id: ctx.home.householdId,
        version: 1,
        days: JSON.stringify(days),
        updated_at: new Date().toISOString(),
        updated_by: null,
      })
      .execute();
    laptop = (await suite.pairedAgent({ hostname: 'sam-laptop' })).agent;
    tablet = (await suite.pairedAgent({ hostname: 'sam-tablet' })).agent;
    await ctx.home.client.patch(`/api/devices/${tablet.systemId}`, { display_name: 'Tablet in the lounge' });
    // The laptop lists Firefox with an icon; the tablet lists it without one and names GIMP.
    await inventory(laptop, [['Firefox', '/usr/bin/firefox', iconHash]]);
    await inventory(tablet, [
      ['Firefox Web Browser', '/usr/bin/firefox', null],
      ['GIMP', '/usr/bin/gimp', null],
    ]);
    // Today in the household's zone (within a day of the server's UTC date).
    report(laptop, localDay(), 1800, [
      ['/usr/bin/firefox', 1200],
      ['/usr/bin/gimp', 100],
    ]);
    report(tablet, localDay(), 600, [
      ['/usr/bin/firefox', 300],
      ['/usr/games/supertux2', 250],
    ]);
    // Yesterday may lie more than a day from the server's date (UTC−11), which a report may not: written as the channel would.
    await recordUsage(ctx.server, tablet.systemId, 'kid', localDay(-1), 3000, [
      { identifier: '/usr/games/supertux2', match_type: 'executable', seconds: 2000 },
      ...Array.from({ length: 24 }, (_, i) => ({
        identifier: `/opt/tool-${i}/bin/tool`,
        match_type: 'executable' as const,
        seconds: 10 + i,
      })),
    ]);
    await Promise.all([settled(laptop), settled(tablet)]);
  });

  test('days: the whole range ending today in the household zone, oldest first, with the weekday limits', async () => {
    assert.notEqual(localDay(), new Date().toISOString().slice(0, 10), 'the zone is off the UTC date');
    for (const range of [7, 14, 30]) {
      const res = await ctx.home.client.get(`/api/user/${suite.childId}/stats?days=${range}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.managed_user_id, suite.childId);
      const days = res.body.days as { date: string; used_seconds: number; limit_seconds: number | null }[];
      assert.deepEqual(
        days.map((d) => d.date),
        Array.from({ length: range }, (_, i) => localDay(i - range + 1)),
      );
      for (const d of days) {
        const weekday = WEEKDAYS[new Date(`${d.date}T00:00:00Z`).getUTCDay()] ?? '';
        const limit = LIMITS[weekday];
        assert.equal(d.limit_seconds, limit === null || limit === undefined ? null : limit * 60, d.date);
      }
      assert.equal(days.at(-1)?.used_seconds, 2400);
      assert.equal(days.at(-2)?.used_seconds, 3000);
      assert.equal(
        days.slice(0, -2).reduce((s, d) => s + d.used_seconds, 0),
        0,
      );
    }
    // Without `days`, a week.
    assert.equal((await ctx.home.client.get(`/api/user/${suite.childId}/stats`)).body.days.length, 7);
  });

  test('a child never given a schedule has no limits', async () => {
    const kid = (await ctx.home.client.post('/api/user/create', { name: 'Unscheduled' })).body;
    const res = await ctx.home.client.get(`/api/user/${kid.id}/stats?days=7`);
    assert.equal(res.status, 200, res.text);
    assert.ok(
      res.body.days.every(
        (d: { limit_seconds: unknown; used_seconds: number }) =>
          d.limit_seconds === null && d.used_seconds === 0,
      ),
    );
    assert.deepEqual(res.body.apps, []);
    assert.deepEqual(res.body.devices, []);
  });

  test('apps: the top 20 over the range across devices, named and drawn from the inventory', async () => {
    const res = await ctx.home.client.get(`/api/user/${suite.childId}/stats?days=7`);
    const apps = res.body.apps as Record<string, unknown>[];
    assert.equal(apps.length, 20);
    assert.deepEqual(apps.slice(0, 3), [
      {
        identifier: '/usr/games/supertux2',
        match_type: 'executable',
        application_name: null,
        icon_url: null,
        seconds: 2250,
      },
      {
        identifier: '/usr/bin/firefox',
        match_type: 'executable',
        // Of the two devices' names, the listing with an icon wins.
        application_name: 'Firefox',
        icon_url: `/api/apps/icons/${iconHash}`,
        seconds: 1500,
      },
      {
        identifier: '/usr/bin/gimp',
        match_type: 'executable',
        application_name: 'GIMP',
        icon_url: null,
        seconds: 100,
      },
    ]);
    const seconds = apps.map((a) => Number(a.seconds));
    assert.deepEqual(
      seconds,
      [...seconds].sort((x, y) => y - x),
    );
    // 27 apps were used: the 7 least used tools are left out.
    assert.equal(apps.at(-1)?.identifier, '/opt/tool-7/bin/tool');
  });

  test('devices: each mapped device with its seconds over the range, by display name, most used first', async () => {
    const res = await ctx.home.client.get(`/api/user/${suite.childId}/stats?days=14`);
    assert.deepEqual(res.body.devices, [
      { system_id: tablet.systemId, hostname: 'Tablet in the lounge', platform: 'linux', seconds: 3600 },
      { system_id: laptop.systemId, hostname: 'sam-laptop', platform: 'linux', seconds: 1800 },
    ]);
  });

  test('days other than 7, 14 or 30 answer 400 in plain words', async () => {
    for (const days of ['10', '0', '90', 'week']) {
      const res = await ctx.home.client.get(`/api/user/${suite.childId}/stats?days=${days}`);
      assert.equal(res.status, 400, days);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, /days must be one of: 7, 14, 30\./);
    }
  });

  test("another household's child answers 404 like a missing one; no session answers 401", async () => {
    const foreign = await other.client.get(`/api/user/${suite.childId}/stats?days=7`);
    const missing = await other.client.get(`/api/user/${randomUUID()}/stats?days=7`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.text, missing.text);
    assert.equal(foreign.body.error.code, 'not_found');
    const anonymous = await new Client(ctx.server.url).get(`/api/user/${suite.childId}/stats?days=7`);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthenticated');
  });
});
