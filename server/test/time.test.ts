import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Frame, SimAgent } from '../../bench/src/simulator.js';
import { withChildAgents } from './child-agents.js';
import {
  addParent,
  createHousehold,
  describeWithServer,
  enrollmentToken,
  SseReader,
  startTestServer,
} from './helpers.js';

/** A zone whose local date differs from the UTC date right now (so a UTC-day bug shows). */
function zoneOffToday(): string {
  return new Date().getUTCHours() < 12 ? 'Etc/GMT+12' : 'Pacific/Kiritimati';
}

/** The local date of now in a zone, YYYY-MM-DD (read independently of the server's engine). */
function localToday(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
}

/** Polls `read` until `ok` holds (bounded), and answers the last value read. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, tries = 200): Promise<T> {
  let v = await read();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 25));
    v = await read();
  }
  return v;
}

const week = (day: { limit_minutes: number | null; windows: { start: string; end: string }[] }) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day]),
  );

const isPush = (f: Frame) => f.type === 'command_request' && f.command === 'set_time_policy';

describeWithServer(
  'time: schedules, adjustments, pause and delivery',
  { household: 'Time home' },
  (suite) => {
    const ctx = withChildAgents(suite, { child: 'Tess', spareAccount: 'guest' });
    const zone = zoneOffToday();

    test('household time zone: set up in the server zone, changed by PATCH /api/household, refused when unknown', async () => {
      const session = (await ctx.home.client.get('/api/session')).body;
      assert.equal(session.household.timezone, Intl.DateTimeFormat().resolvedOptions().timeZone);
      for (const bad of ['Mars/Olympus', '', 'Europe/Berlin\u0000']) {
        const res = await ctx.home.client.patch('/api/household', { timezone: bad });
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.error.code, 'invalid_request');
      }
      assert.equal((await ctx.home.client.patch('/api/household', { bogus: 1 })).status, 400);
      const member = await addParent(ctx.server, ctx.home, 'member');
      assert.equal((await member.patch('/api/household', { timezone: 'UTC' })).status, 403);
      const res = await ctx.home.client.patch('/api/household', { timezone: zone, name: 'Time home' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { id: ctx.home.householdId, name: 'Time home', timezone: zone });
      assert.equal((await ctx.home.client.get('/api/session')).body.household.timezone, zone);
      const schedule = (await ctx.home.client.get(`/api/managed-users/${ctx.childId}/schedule`)).body;
      assert.equal(schedule.timezone, zone);
    });

    test('weekly schedule: open until edited, JSON and form updates, a day left out unchanged, bad input changes nothing', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Sched' })).body.id;
      const url = `/api/managed-users/${child}/schedule`;
      const fresh = (await ctx.home.client.get(url)).body;
      assert.equal(fresh.version, 0);
      assert.deepEqual(fresh.days, week({ limit_minutes: null, windows: [] }));

      const monday = {
        limit_minutes: 90,
        windows: [
          { start: '07:00', end: '08:15' },
          { start: '15:00', end: '24:00' },
        ],
      };
      const res = await ctx.home.client.post('/weekly-schedule/update', {
        managed_user_id: child,
        days: { monday },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.version, 1);
      assert.deepEqual(res.body.days.monday, monday);
      assert.deepEqual(res.body.days.tuesday, { limit_minutes: null, windows: [] });

      const form = await ctx.home.client.request('POST', '/weekly-schedule/update', {
        form: {
          managed_user_id: child,
          days: JSON.stringify({ tuesday: { limit_minutes: 30, windows: [] } }),
          csrf_token: ctx.home.client.csrf ?? '',
        },
        csrf: false,
      });
      assert.equal(form.status, 200, form.text);
      assert.equal(form.body.version, 2);
      assert.deepEqual(form.body.days.monday, monday, 'a day left out is unchanged');
      assert.equal(form.body.days.tuesday.limit_minutes, 30);
      const noToken = await ctx.home.client.request('POST', '/weekly-schedule/update', {
        form: { managed_user_id: child, days: JSON.stringify({}) },
        csrf: false,
      });
      assert.equal(noToken.status, 403);

      const w = (start: string, end: string) => ({ start, end });
      const bad: unknown[] = [
        { monday: { limit_minutes: 60, windows: [w('10:00', '12:00'), w('11:00', '13:00')] } }, // overlap
        { monday: { limit_minutes: 60, windows: [w('15:00', '16:00'), w('10:00', '11:00')] } }, // unsorted
        { monday: { limit_minutes: 60, windows: [w('10:10', '11:00')] } }, // not on 15 minutes
        { monday: { limit_minutes: 60, windows: [w('11:00', '11:00')] } }, // end = start
        { monday: { limit_minutes: 60, windows: [w('12:00', '11:00')] } }, // end before start
        {
          monday: {
            limit_minutes: 60,
            windows: [
              w('01:00', '02:00'),
              w('03:00', '04:00'),
              w('05:00', '06:00'),
              w('07:00', '08:00'),
              w('09:00', '10:00'),
            ],
          },
        },
        { monday: { limit_minutes: 1441, windows: [] } },
        { monday: { limit_minutes: -1, windows: [] } },
        { funday: { limit_minutes: 60, windows: [] } },
        { monday: { limit_minutes: 60, windows: [w('25:00', '26:00')] } },
      ];
      for (const days of bad) {
        const r = await ctx.home.client.post('/weekly-schedule/update', { managed_user_id: child, days });
        assert.equal(r.status, 400, `${JSON.stringify(days)}: ${r.text}`);
        assert.equal(r.body.error.code, 'invalid_request');
        assert.ok(
          Array.isArray(r.body.error.details) && r.body.error.details.length > 0,
          JSON.stringify(r.body),
        );
      }
      const after = (await ctx.home.client.get(url)).body;
      assert.equal(after.version, 2, 'nothing changed');
      assert.deepEqual(after.days.monday, monday);

      const other = await createHousehold(ctx.server, 'Elsewhere');
      assert.equal((await other.client.get(url)).status, 404);
      assert.equal(
        (await other.client.post('/weekly-schedule/update', { managed_user_id: child, days: { monday } }))
          .status,
        404,
      );
      const viewer = await addParent(ctx.server, ctx.home, 'member', [
        { managed_user_id: child, can_view: true, can_manage_policies: false },
      ]);
      assert.equal((await viewer.get(url)).status, 200);
      assert.equal(
        (await viewer.post('/weekly-schedule/update', { managed_user_id: child, days: { monday } })).status,
        403,
      );
    });

    test('delivery: pushed online and synced, queued offline and synced on reconnect, an error answer fails, consoles unsupported', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Deliver' })).body.id;
      const { agent: online, mappingId: onlineMapping } = await ctx.pairedAgent({ record: true }, child);
      const { agent: away, mappingId: awayMapping } = await ctx.pairedAgent({}, child);
      const { mappingId: brokenMapping } = await ctx.pairedAgent(
        {
          respond: (command) =>
            command === 'set_time_policy'
              ? { success: false, error: 'disk full' }
              : { success: true, data: {} },
        },
        child,
      );
      const { mappingId: oldMapping } = await ctx.pairedAgent({ agentVersion: '0.50.0' }, child);
      await away.stop();
      await until(
        () => ctx.home.client.get('/api/devices'),
        (r) => !r.body.items.find((d: { system_id: string }) => d.system_id === away.systemId).online,
      );

      const pushed = online.waitFor(isPush);
      const days = { wednesday: { limit_minutes: 45, windows: [{ start: '08:00', end: '20:00' }] } };
      const res = await ctx.home.client.post('/weekly-schedule/update', { managed_user_id: child, days });
      assert.equal(res.status, 200, res.text);
      const frame = await pushed;
      const args = frame.args as Record<string, any>;
      assert.equal(args.linux_username, 'kid');
      assert.equal(args.version, 1);
      assert.equal(args.timezone, zone);
      assert.deepEqual(args.days.wednesday, days.wednesday);
      assert.deepEqual(args.adjustments, {});
      assert.equal(args.paused_until, null);

      const statusOf = async () => {
        const view = (await ctx.home.client.get(`/api/schedule-sync-status/${child}`)).body;
        return Object.fromEntries(view.items.map((i: { mapping_id: string }) => [i.mapping_id, i])) as Record<
          string,
          any
        >;
      };
      const s1 = await until(
        statusOf,
        (s) => s[onlineMapping]?.status === 'synced' && s[brokenMapping]?.status === 'failed',
      );
      assert.equal(s1[onlineMapping].status, 'synced');
      assert.equal(s1[onlineMapping].applied_version, 1);
      assert.equal(s1[onlineMapping].platform, 'linux');
      assert.ok(s1[onlineMapping].hostname);
      assert.equal(s1[awayMapping].status, 'pending');
      assert.equal(s1[brokenMapping].status, 'failed');
      assert.match(s1[brokenMapping].error, /disk full/);
      assert.equal(s1[oldMapping].status, 'unsupported');
      assert.equal(Object.keys(s1).length, 4, 'one item per mapping');

      // A second change while away: the queued push is replaced, the device gets only the newest.
      await ctx.home.client.post('/api/modify-time', { managed_user_id: child, minutes: 15 });
      const back = new SimAgent({
        url: ctx.server.wsUrl,
        systemId: away.systemId,
        secureToken: away.secureToken,
        linuxUsers: [{ username: 'kid' }, { username: 'guest' }],
        record: true,
      });
      ctx.agents.push(back);
      const delivered = back.waitFor(isPush);
      await back.connect();
      const queued = await delivered;
      assert.equal((queued.args as { version: number }).version, 2);
      const s2 = await until(statusOf, (s) => s[awayMapping]?.status === 'synced');
      assert.equal(s2[awayMapping].status, 'synced');
      assert.equal(s2[awayMapping].applied_version, 2);
      assert.equal(back.frames.filter(isPush).length, 1, 'the older queued push was replaced');

      const other = await createHousehold(ctx.server, 'Nosy');
      assert.equal((await other.client.get(`/api/schedule-sync-status/${child}`)).status, 404);
    });

    /** A new agent with the account "kid", enrolled and approved, not yet linked to any child. */
    const approvedAgent = async () => {
      const agent = new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: await enrollmentToken(ctx.home),
        linuxUsers: [{ username: 'kid' }],
        record: true,
      });
      ctx.agents.push(agent);
      await agent.connect();
      const approved = agent.waitFor('pairing_approved');
      await ctx.home.client.post(`/api/device/approve/${agent.systemId}`);
      await approved;
      return agent;
    };

    test('a device mapped after a change gets the current policy and reads as synced', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Late' })).body.id;
      const days = { friday: { limit_minutes: 20, windows: [] } };
      assert.equal(
        (await ctx.home.client.post('/weekly-schedule/update', { managed_user_id: child, days })).body
          .version,
        1,
      );
      const agent = await approvedAgent();
      const pushed = agent.waitFor(isPush);
      const mapping = (
        await ctx.home.client.post(`/managed-users/${child}/mappings/add`, {
          system_id: agent.systemId,
          linux_username: 'kid',
        })
      ).body;
      const frame = await pushed;
      assert.equal((frame.args as { version: number }).version, 1);
      assert.deepEqual((frame.args as { days: Record<string, unknown> }).days.friday, days.friday);
      const status = await until(
        () => ctx.home.client.get(`/api/schedule-sync-status/${child}`),
        (r) => r.body.items[0]?.status === 'synced',
      );
      assert.deepEqual(
        status.body.items.map((i: { mapping_id: string; status: string }) => [i.mapping_id, i.status]),
        [[mapping.id, 'synced']],
      );
    });

    test('an account moved from a child with rules to one never edited hears the open week', async () => {
      const strict = (await ctx.home.client.post('/api/user/create', { name: 'Strict' })).body.id;
      const fresh = (await ctx.home.client.post('/api/user/create', { name: 'Fresh' })).body.id;
      await ctx.home.client.post('/weekly-schedule/update', {
        managed_user_id: strict,
        days: week({ limit_minutes: 10, windows: [] }),
      });
      const agent = await approvedAgent();
      const strictPush = agent.waitFor(isPush);
      const first = (
        await ctx.home.client.post(`/managed-users/${strict}/mappings/add`, {
          system_id: agent.systemId,
          linux_username: 'kid',
        })
      ).body;
      assert.equal(
        ((await strictPush).args as { days: { monday: { limit_minutes: number } } }).days.monday
          .limit_minutes,
        10,
      );
      assert.equal((await ctx.home.client.delete(`/api/mappings/${first.id}`)).status, 200);

      const freshPush = agent.waitFor((f) => isPush(f) && (f.args as { version: number }).version === 0);
      const second = (
        await ctx.home.client.post(`/managed-users/${fresh}/mappings/add`, {
          system_id: agent.systemId,
          linux_username: 'kid',
        })
      ).body;
      const args = (await freshPush).args as { days: Record<string, unknown>; paused_until: unknown };
      assert.deepEqual(args.days, week({ limit_minutes: null, windows: [] }));
      assert.equal(args.paused_until, null);
      const status = await until(
        () => ctx.home.client.get(`/api/schedule-sync-status/${fresh}`),
        (r) => r.body.items[0]?.status === 'synced',
      );
      assert.deepEqual(
        status.body.items.map((i: { mapping_id: string; status: string; applied_version: number }) => [
          i.mapping_id,
          i.status,
          i.applied_version,
        ]),
        [[second.id, 'synced', 0]],
      );
    });

    test('modify-time: adjustments add up per day, bad minutes and past dates refused, approvals add time for today in the household zone', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Extend' })).body.id;
      const { agent } = await ctx.pairedAgent({ record: true }, child);
      await ctx.home.client.post('/weekly-schedule/update', {
        managed_user_id: child,
        days: week({ limit_minutes: 60, windows: [] }),
      });
      const today = localToday(zone);
      agent.send({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: 600 });
      const usage = () => ctx.home.client.get(`/api/user/${child}/usage`);
      const u0 = await until(usage, (r) => r.body.used_seconds === 600);
      assert.equal(u0.body.date, today);
      assert.equal(u0.body.timezone, zone);
      assert.equal(u0.body.limit_seconds, 3600);
      assert.equal(u0.body.remaining_seconds, 3000);
      assert.equal(u0.body.state, 'ok');
      assert.equal(u0.body.devices.length, 1);
      assert.equal(u0.body.devices[0].used_seconds, 600);
      assert.equal(u0.body.devices[0].online, true);

      const add = await ctx.home.client.post('/api/modify-time', {
        managed_user_id: child,
        minutes: 30,
        note: 'chores',
      });
      assert.equal(add.status, 200, add.text);
      assert.deepEqual(add.body, {
        managed_user_id: child,
        date: today,
        adjustment_minutes: 30,
        remaining_seconds: 4800,
      });
      const take = await ctx.home.client.post('/api/modify-time', {
        managed_user_id: child,
        minutes: -15,
        date: today,
      });
      assert.equal(take.body.adjustment_minutes, 15);
      assert.equal(take.body.remaining_seconds, 3900);

      const past = new Date(Date.parse(`${today}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      const future = new Date(Date.parse(`${today}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      for (const body of [
        { managed_user_id: child, minutes: 0 },
        { managed_user_id: child, minutes: 721 },
        { managed_user_id: child, minutes: -721 },
        { managed_user_id: child, minutes: 1.5 },
        { managed_user_id: child, minutes: 10, date: past },
        { managed_user_id: child, minutes: 10, date: '2030-02-30' },
        { managed_user_id: child, minutes: 10, date: 'tomorrow' },
      ]) {
        const r = await ctx.home.client.post('/api/modify-time', body);
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
        assert.equal(r.body.error.code, 'invalid_request');
      }
      const later = await ctx.home.client.post('/api/modify-time', {
        managed_user_id: child,
        minutes: 20,
        date: future,
      });
      assert.equal(later.status, 200);
      assert.equal(later.body.adjustment_minutes, 20);
      const other = await createHousehold(ctx.server, 'Strangers');
      assert.equal(
        (await other.client.post('/api/modify-time', { managed_user_id: child, minutes: 5 })).status,
        404,
      );
      assert.equal((await usage()).body.adjustment_seconds, 900, 'nothing changed by refused input');

      // The push carries today's and later adjustments.
      const pushed = agent.frames.filter(isPush).at(-1) as Frame;
      assert.deepEqual((pushed.args as { adjustments: unknown }).adjustments, { [today]: 15, [future]: 20 });

      // An approved time extension: the minutes the parent approved, today in the household's zone.
      const asked = await ctx.bearer(agent.secureToken, 'POST', '/api/approvals/request', {
        type: 'time_extension',
        linux_username: 'kid',
        details: { minutes: 30 },
      });
      assert.equal(asked.status, 201);
      const before = (await usage()).body.remaining_seconds;
      const next = agent.waitFor(
        (f) => isPush(f) && (f.args as { adjustments: Record<string, number> }).adjustments[today] === 35,
      );
      const ok = await ctx.home.client.post(`/api/approvals/${asked.body.id}/approve`, { minutes: 20 });
      assert.equal(ok.status, 200, ok.text);
      await next;
      const afterApproval = (await usage()).body;
      assert.equal(afterApproval.remaining_seconds, before + 1200);
      assert.equal(afterApproval.adjustment_seconds, 35 * 60);
    });

    test('pause and resume: visible in usage, pushed to the devices, an ended pause reads as none', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Pause' })).body.id;
      const { agent } = await ctx.pairedAgent({ record: true }, child);
      const pushedPause = agent.waitFor(
        (f) => isPush(f) && (f.args as { paused_until: unknown }).paused_until !== null,
      );
      const paused = await ctx.home.client.post(`/api/managed-users/${child}/pause`, { minutes: 30 });
      assert.equal(paused.status, 200, paused.text);
      assert.equal(paused.body.state, 'paused');
      assert.equal(paused.body.allowed_now, false);
      const until30 = Date.parse(paused.body.paused_until);
      assert.ok(until30 > Date.now() + 25 * 60_000 && until30 <= Date.now() + 30 * 60_000);
      assert.equal(
        ((await pushedPause).args as { paused_until: unknown }).paused_until,
        paused.body.paused_until,
      );
      assert.equal((await ctx.home.client.get(`/api/user/${child}/usage`)).body.state, 'paused');

      const forever = await ctx.home.client.post(`/api/managed-users/${child}/pause`);
      assert.equal(forever.status, 200, forever.text);
      assert.equal(forever.body.paused_until, 'indefinite');
      for (const minutes of [0, 1441, -5]) {
        assert.equal(
          (await ctx.home.client.post(`/api/managed-users/${child}/pause`, { minutes })).status,
          400,
        );
      }
      const pushedResume = agent.waitFor(
        (f) => isPush(f) && (f.args as { paused_until: unknown }).paused_until === null,
      );
      const resumed = await ctx.home.client.post(`/api/managed-users/${child}/resume`);
      assert.equal(resumed.status, 200);
      assert.equal(resumed.body.state, 'ok');
      assert.equal(resumed.body.paused_until, null);
      await pushedResume;

      // A pause whose end has passed reads as not paused.
      await ctx.server.services.db.kysely
        .updateTable('managed_user')
        .set({ paused_until: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', child)
        .execute();
      const ended = (await ctx.home.client.get(`/api/user/${child}/usage`)).body;
      assert.equal(ended.state, 'ok');
      assert.equal(ended.paused_until, null);

      const other = await createHousehold(ctx.server, 'Pausers');
      assert.equal((await other.client.post(`/api/managed-users/${child}/pause`, {})).status, 404);
      assert.equal((await other.client.get(`/api/user/${child}/usage`)).status, 404);
    });

    test('cross-device totals: a report from one device answers the other online devices with time_status', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Twins' })).body.id;
      const { agent: a } = await ctx.pairedAgent({ record: true }, child);
      const { agent: b } = await ctx.pairedAgent({ record: true }, child);
      await ctx.home.client.post('/weekly-schedule/update', {
        managed_user_id: child,
        days: week({ limit_minutes: 120, windows: [] }),
      });
      const today = localToday(zone);
      const first = b.waitFor('time_status');
      a.send({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: 300 });
      const s1 = await first;
      assert.deepEqual(s1, {
        type: 'time_status',
        linux_username: 'kid',
        date: today,
        used_seconds: 300,
        remaining_seconds: 6900,
      });
      const second = a.waitFor('time_status');
      b.send({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: 200 });
      const s2 = await second;
      assert.equal(s2.used_seconds, 500, 'all devices together');
      assert.equal(s2.remaining_seconds, 6700);

      const dash = (await ctx.home.client.get('/api/dashboard')).body;
      const row = dash.users.find((u: { id: string }) => u.id === child);
      assert.equal(row.used_seconds_today, 500);
      assert.equal(row.remaining_seconds, 6700);
    });

    test('the usage snapshot, kept for a moment between reads, never hides a parent change or a report heard here', async () => {
      const child = (await ctx.home.client.post('/api/user/create', { name: 'Kept' })).body.id;
      const { agent } = await ctx.pairedAgent({ record: true }, child);
      await ctx.home.client.post('/weekly-schedule/update', {
        managed_user_id: child,
        days: week({ limit_minutes: 60, windows: [] }),
      });
      const usage = async () => (await ctx.home.client.get(`/api/user/${child}/usage`)).body;
      assert.equal((await usage()).remaining_seconds, 3600);
      // A parent's change is seen by the very next read.
      assert.equal(
        (await ctx.home.client.post('/api/modify-time', { managed_user_id: child, minutes: 15 })).status,
        200,
      );
      assert.equal((await usage()).adjustment_seconds, 900);
      // A report handled by this instance is seen by the very next read (frames are handled in
      // order, so the answer to a later unknown frame says the report is in).
      agent.send({ type: 'usage_report', linux_username: 'kid', date: localToday(zone), seconds_used: 400 });
      agent.send({ type: 'teleport' });
      await agent.waitFor((f) => f.type === 'error' && f.code === 'unknown_type');
      const after = await usage();
      assert.equal(after.used_seconds, 400);
      assert.equal(after.remaining_seconds, 3600 + 900 - 400);
      await ctx.home.client.post(`/api/managed-users/${child}/pause`, {});
      assert.equal((await usage()).state, 'paused');
      await ctx.home.client.post(`/api/managed-users/${child}/resume`);
      assert.equal((await usage()).state, 'ok');

      // Reads in a row: the first makes the answer, the next ones are the same answer given again as
      // JSON text — the same body and type, with every field of DESIGN §10.
      const reads = [];
      for (let i = 0; i < 5; i++) reads.push(await ctx.home.client.get(`/api/user/${child}/usage`));
      // (next_change_at is a projection from the instant of each answer: it may move between them.)
      const withoutProjection = ({ next_change_at, ...rest }: Record<string, unknown>) => {
        assert.ok(next_change_at === null || !Number.isNaN(Date.parse(String(next_change_at))));
        return rest;
      };
      for (const read of reads) {
        assert.equal(read.status, 200);
        assert.match(read.headers.get('content-type') ?? '', /^application\/json; charset=utf-8/);
        assert.deepEqual(withoutProjection(read.body), withoutProjection(reads[0]?.body));
      }
      assert.deepEqual(Object.keys(reads[4]?.body).sort(), [
        'adjustment_seconds',
        'allowed_now',
        'date',
        'devices',
        'limit_seconds',
        'managed_user_id',
        'next_change_at',
        'paused_until',
        'remaining_seconds',
        'state',
        'timezone',
        'used_seconds',
      ]);
      assert.equal(reads[4]?.body.used_seconds, 400);
    });
  },
);

describeWithServer('time: live events', { household: 'Live time home' }, (suite) => {
  const ctx = withChildAgents(suite, { child: 'Liv', spareAccount: 'guest' });

  test('time_state: a parent change, then use that crosses the limit, each raise one live event', async () => {
    await ctx.home.client.patch('/api/household', { timezone: 'UTC' });
    const { agent } = await ctx.pairedAgent({ record: true });
    const stream = await SseReader.open(
      `${ctx.server.url}/api/dashboard/events`,
      ctx.home.client.cookie ?? '',
    );
    try {
      await ctx.home.client.post('/weekly-schedule/update', {
        managed_user_id: ctx.childId,
        days: week({ limit_minutes: 10, windows: [] }),
      });
      const changed = await stream.next((e) => e.event === 'time_state' && e.data.cause === 'changed');
      assert.equal(changed.data.managed_user_id, ctx.childId);
      assert.equal(changed.data.remaining_seconds, 600);
      const today = localToday('UTC');
      agent.send({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: 300 });
      agent.send({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: 600 });
      const crossed = await stream.next((e) => e.event === 'time_state' && e.data.cause === 'limit_reached');
      assert.equal(crossed.data.state, 'locked');
      assert.equal(crossed.data.remaining_seconds, 0);
      assert.equal(crossed.data.used_seconds, 600);
      assert.equal(
        stream.events.filter((e) => e.event === 'time_state').length,
        2,
        'the report under the limit raised none',
      );
    } finally {
      stream.close();
    }
  });
});

describeWithServer('time: the pause is kept across a restart', {}, (suite) => {
  test('a pause set before a restart is still there after it', async () => {
    const first = await startTestServer(suite.db, {}, { keep: true });
    let second: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      const home = await createHousehold(first, 'Restart home');
      const child = (await home.client.post('/api/user/create', { name: 'Kept' })).body.id;
      const paused = await home.client.post(`/api/managed-users/${child}/pause`, {});
      assert.equal(paused.body.state, 'paused');
      await first.close();
      second = await startTestServer(suite.db, first.storageEnv);
      const again = await second.services.auth.signIn(
        '127.0.0.1',
        home.username,
        'correct horse battery staple',
      );
      const usage = await fetch(`${second.url}/api/user/${child}/usage`, {
        headers: { cookie: `hearth_session=${again.cookie}` },
      }).then((r) => r.json() as Promise<{ state: string; paused_until: string }>);
      assert.equal(usage.state, 'paused');
      assert.equal(usage.paused_until, 'indefinite');
    } finally {
      await second?.close();
    }
  });
});
