// Time end to end: the real server, the real agent process, and logind stood in by a `loginctl` first
// on the agent's PATH that prints what systemd 252's prints, from a JSON file the test edits, and
// records `lock-session`. The clock is moved through HEARTH_AGENT_CLOCK_FILE.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SimAgent } from '../../bench/src/simulator.js';
import {
  createHousehold,
  enrollmentToken,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { otherDeviceOf, setDailyLimit } from './approved-agent.js';
import { AgentProcess, agentEnv, type LogLine, makeSysroot, type Sysroot, until } from './harness.js';
import { FakeLogind } from './logind.js';

describe('time accounting and enforcement: the real agent against the real server', () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  let clockFile: string;
  let daemon: AgentProcess;
  let systemId: string;
  let childId: string;
  const others: SimAgent[] = [];
  const running: AgentProcess[] = [];

  let logind: FakeLogind;
  const sessions = (list: Parameters<FakeLogind['sessions']>[0]) => logind.sessions(list);
  const locks = () => logind.locks();
  const usage = async () => (await home.client.get(`/api/user/${childId}/usage`)).body;
  const polls = () => daemon.lines.filter((l) => l.msg === 'sessions polled');
  /** The next `n` polls after now. */
  const nextPolls = async (n: number): Promise<LogLine[]> => {
    const from = polls().length;
    await daemon.waitFor(() => polls().length >= from + n, `${n} polls`);
    return polls().slice(from, from + n);
  };

  before(async () => {
    server = await startTestServer();
    home = await createHousehold(server, 'Time agent home');
    sys = makeSysroot([{ username: 'ann', uid: 1000, display_name: 'Ann' }]);
    logind = new FakeLogind(sys.root);
    clockFile = path.join(sys.root, 'clock-offset');
    writeFileSync(clockFile, '0');

    const enrolling = new AgentProcess(
      ['enroll', '--server', server.url, '--token', await enrollmentToken(home)],
      agentEnv(sys),
    );
    running.push(enrolling);
    await enrolling.waitFor(() => enrolling.stdout.includes('Waiting for a parent'), 'waiting line');
    systemId = JSON.parse(readFileSync(path.join(sys.stateDir, 'identity.json'), 'utf8')).data.system_id;
    assert.equal((await home.client.post(`/api/device/approve/${systemId}`)).status, 200);
    assert.equal(await enrolling.exited, 0);

    daemon = new AgentProcess(
      ['run'],
      agentEnv(sys, {
        ...logind.env(),
        HEARTH_AGENT_CLOCK_FILE: clockFile,
        HEARTH_AGENT_ACTIVITY_POLL_MS: '100',
        HEARTH_AGENT_USAGE_REPORT_MS: '200',
        HEARTH_AGENT_LOCK_GRACE_SECONDS: '1',
        HEARTH_AGENT_NO_FOCUS: '1',
      }),
    );
    running.push(daemon);
    await daemon.waitForLog('connected to the server');
    childId = (await home.client.post('/api/user/create', { name: 'Ann' })).body.id;
    const mapped = await home.client.post(`/managed-users/${childId}/mappings/add`, {
      system_id: systemId,
      linux_username: 'ann',
    });
    assert.equal(mapped.status, 201, mapped.text);
    await daemon.waitForLog('time policy applied', (l) => l.managed_user_id === childId);
  });
  after(async () => {
    await Promise.all(others.map((a) => a.stop()));
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    sys?.cleanup();
  });

  test('an active session counts and reaches the parent; a locked or idle one does not', async () => {
    const first = await until(usage, (u) => u.used_seconds >= 1);
    await until(usage, (u) => u.used_seconds > first.used_seconds);
    const device = (await usage()).devices.find((d: { system_id: string }) => d.system_id === systemId);
    assert.equal(device.linux_username, 'ann');

    for (const still of [
      { locked: true },
      { idle: true },
      { active: false },
      { remote: true, type: 'tty' },
    ]) {
      sessions([still]);
      // The first poll that saw the new state credits the time before it; the ones after add nothing.
      await daemon.waitFor(
        () => (polls().at(-1)?.counting as string[] | undefined)?.length === 0,
        'a poll that counts nothing',
      );
      let quiet = await nextPolls(4);
      // A new day (midnight where the household lives) starts the total again: look on the new day.
      if (new Set(quiet.map((l) => (l.days as Record<string, string>).ann)).size > 1)
        quiet = await nextPolls(4);
      const seconds = quiet.map((l) => (l.seconds as Record<string, number>).ann);
      assert.ok(
        seconds.every((s) => s === seconds[0]),
        `${JSON.stringify(still)}: ${seconds}`,
      );
      assert.deepEqual(
        quiet.map((l) => l.counting),
        [[], [], [], []],
      );
    }
    sessions([{}]);
    const counting = await nextPolls(1);
    assert.deepEqual(counting[0]?.counting, ['ann']);
  });

  test('at the limit the agent shows the overlay (locked), then locks the session after the grace', async () => {
    await setDailyLimit(home, daemon, childId, 1);
    // Another device of the child used 55 s today: the server tells this agent the total (time_status).
    const other = await otherDeviceOf(server, home, childId, others);
    const date = (await usage()).date;
    other.send({ type: 'usage_report', linux_username: 'kid', date, seconds_used: 55 });

    await daemon.waitForLog('time warning', (l) => l.minutes_left === 1);
    const shown = await daemon.waitForLog('asking the overlay to show', (l) => l.reason === 'locked');
    assert.equal(shown.linux_username, 'ann');
    await daemon.poll(() => locks().includes('2'), 'lock-session 2');
    const u = await until(usage, (v) => v.state === 'locked');
    assert.equal(u.remaining_seconds, 0);

    // A parent adds a minute: the overlay goes.
    const added = await home.client.post('/api/modify-time', { managed_user_id: childId, minutes: 5 });
    assert.equal(added.status, 200, added.text);
    await daemon.waitForLog('asking the overlay to dismiss', (l) => l.linux_username === 'ann');
  });

  test('a wall clock moved by two hours raises clock_tamper for the parent until they clear it', async () => {
    writeFileSync(clockFile, String(2 * 3_600_000));
    await daemon.waitForLog('clock tamper detected');
    await daemon.waitForLog('asking the overlay to show', (l) => l.reason === 'clock_tamper');
    const alerts = await until(
      async () =>
        (await home.client.get('/api/alerts?kind=clock_tamper')).body.items as {
          system_id: string;
          kind: string;
        }[],
      (items) => items.some((a) => a.system_id === systemId),
    );
    assert.equal(alerts[0]?.kind, 'clock_tamper');
    const state = JSON.parse(readFileSync(path.join(sys.stateDir, 'time-tamper.json'), 'utf8')).data;
    assert.equal(state.tampered, true);

    const cleared = await home.client.post(`/api/devices/${systemId}/clear-clock-tamper`);
    assert.equal(cleared.status, 200, cleared.text);
    const clearedAt = daemon.lines.indexOf(await daemon.waitForLog('clock tamper cleared'));
    await daemon.waitFor(
      () => daemon.lines.slice(clearedAt).some((l) => l.msg === 'asking the overlay to dismiss'),
      'the clock_tamper overlay dismissed',
    );
    assert.equal(
      JSON.parse(readFileSync(path.join(sys.stateDir, 'time-tamper.json'), 'utf8')).data.tampered,
      false,
    );
  });
});
