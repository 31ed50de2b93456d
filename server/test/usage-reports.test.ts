import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { WebSocket } from 'ws';
import type { SimAgent } from '../../bench/src/simulator.js';
import { withChildAgents } from './child-agents.js';
import { describeWithServer } from './helpers.js';

const DAY_MS = 86_400_000;
const utcDate = (offsetDays = 0) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);

/** What the server logged, as pino's JSON lines. */
const logged: Record<string, unknown>[] = [];
const log = pino(
  { level: 'info' },
  {
    write(line: string) {
      logged.push(JSON.parse(line));
    },
  },
);

describeWithServer('usage reports', { household: 'Usage home', log }, (ctx) => {
  const suite = withChildAgents(ctx, { child: 'Robin', spareAccount: 'guest' });
  const db = () => ctx.server.services.db.kysely;

  /** The reports before it were handled once the server answers this one (one socket's frames go in order). */
  const settled = async (a: SimAgent) => {
    const answer = a.waitFor((f) => f.type === 'error' && f.code === 'unknown_account');
    a.send({ type: 'usage_report', linux_username: 'settle-barrier', date: utcDate(), seconds_used: 1 });
    await answer;
  };
  const dayRow = (systemId: string, date = utcDate()) =>
    db()
      .selectFrom('usage_day')
      .select('seconds_used')
      .where('system_id', '=', systemId)
      .where('date', '=', date)
      .executeTakeFirst();
  const appRows = async (systemId: string) =>
    Object.fromEntries(
      (
        await db()
          .selectFrom('usage_app_day')
          .select(['identifier', 'seconds'])
          .where('system_id', '=', systemId)
          .execute()
      ).map((r) => [r.identifier, Number(r.seconds)]),
    );

  test('per-app totals are stored, and a lower total (day or app) leaves the stored one as it was', async () => {
    const { agent } = await suite.pairedAgent();
    const today = utcDate();
    agent.send({
      type: 'usage_report',
      linux_username: 'kid',
      date: today,
      seconds_used: 600,
      apps: [
        { identifier: '/usr/bin/firefox', match_type: 'executable', seconds: 400 },
        { identifier: '/usr/games/supertux2', match_type: 'executable', seconds: 100 },
      ],
    });
    // A late report: the day and Firefox lower, SuperTux higher, a new app; an app named twice keeps its larger total.
    agent.send({
      type: 'usage_report',
      linux_username: 'kid',
      date: today,
      seconds_used: 500,
      apps: [
        { identifier: '/usr/bin/firefox', match_type: 'executable', seconds: 300 },
        { identifier: '/usr/games/supertux2', match_type: 'executable', seconds: 150 },
        { identifier: '/usr/bin/gimp', match_type: 'executable', seconds: 20 },
        { identifier: '/usr/bin/gimp', match_type: 'executable', seconds: 30 },
      ],
    });
    await settled(agent);
    assert.equal(Number((await dayRow(agent.systemId))?.seconds_used), 600);
    assert.deepEqual(await appRows(agent.systemId), {
      '/usr/bin/firefox': 400,
      '/usr/games/supertux2': 150,
      '/usr/bin/gimp': 30,
    });
    // Without `apps`, a report still moves the day total and leaves the apps alone.
    agent.send({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: 900 });
    await settled(agent);
    assert.equal(Number((await dayRow(agent.systemId))?.seconds_used), 900);
    assert.equal((await appRows(agent.systemId))['/usr/bin/firefox'], 400);
  });

  test('each input rule drops the report with a logged reason; the socket stays and a later good report is stored', async () => {
    const { agent } = await suite.pairedAgent();
    const good = { type: 'usage_report', linux_username: 'kid', date: utcDate(), seconds_used: 60 };
    const app = (over: Record<string, unknown>) => ({
      ...good,
      apps: [{ identifier: '/usr/bin/firefox', match_type: 'executable', seconds: 10, ...over }],
    });
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      [
        'an account the hello did not name',
        { ...good, linux_username: 'stranger' },
        'unknown_account',
        /stranger/,
      ],
      ['a negative day total', { ...good, seconds_used: -5 }, 'invalid_message', /seconds_used/],
      ['a day total over 86,400', { ...good, seconds_used: 86_401 }, 'invalid_message', /seconds_used/],
      ['a negative app total', app({ seconds: -1 }), 'invalid_message', /seconds/],
      ['an app total over 86,400', app({ seconds: 90_000 }), 'invalid_message', /seconds/],
      ['a date two days ahead', { ...good, date: utcDate(2) }, 'date_out_of_range', /more than a day/],
      ['a date two days back', { ...good, date: utcDate(-2) }, 'date_out_of_range', /more than a day/],
      ['a day that is not in the calendar', { ...good, date: '2026-02-30' }, 'invalid_message', /calendar/],
      ['an app that is not an absolute path', app({ identifier: 'firefox' }), 'invalid_message', /absolute/],
      ['an android identifier on linux', app({ match_type: 'package' }), 'invalid_message', /executable/],
    ];
    for (const [what, report, code, reason] of cases) {
      const before = logged.length;
      const answer = agent.waitFor('error');
      agent.send(report);
      const error = await answer;
      assert.equal(error.code, code, what);
      assert.match(String(error.message), reason, what);
      const line = logged
        .slice(before)
        .find((l) => l.msg === 'usage report dropped' && l.system_id === agent.systemId);
      assert.ok(line, `${what}: logged with the device`);
      assert.equal(line.code, code, what);
      assert.match(String(line.reason), reason, what);
      assert.equal(await dayRow(agent.systemId, String(report.date)), undefined, `${what}: nothing stored`);
      assert.deepEqual(await appRows(agent.systemId), {}, `${what}: no app stored`);
      assert.equal(agent.state, 'authenticated', what);
      assert.equal(agent.socket?.readyState, WebSocket.OPEN, what);
    }
    // Yesterday and tomorrow (UTC) are a device's local day somewhere: taken.
    for (const date of [utcDate(-1), utcDate(1)]) agent.send({ ...good, date, seconds_used: 30 });
    agent.send(app({}));
    await settled(agent);
    assert.equal(Number((await dayRow(agent.systemId))?.seconds_used), 60);
    assert.equal(Number((await dayRow(agent.systemId, utcDate(-1)))?.seconds_used), 30);
    assert.equal(Number((await dayRow(agent.systemId, utcDate(1)))?.seconds_used), 30);
    assert.deepEqual(await appRows(agent.systemId), { '/usr/bin/firefox': 10 });
  });

  test('more than 500 apps in one report is refused; 500 are stored', async () => {
    const { agent } = await suite.pairedAgent();
    const apps = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        identifier: `/opt/app-${i}/bin/app`,
        match_type: 'executable',
        seconds: i,
      }));
    const good = { type: 'usage_report', linux_username: 'kid', date: utcDate(), seconds_used: 600 };
    const answer = agent.waitFor('error');
    agent.send({ ...good, apps: apps(501) });
    assert.equal((await answer).code, 'invalid_message');
    agent.send({ ...good, apps: apps(500) });
    await settled(agent);
    assert.equal(Object.keys(await appRows(agent.systemId)).length, 500);
  });
});
