// The promise of the agent: with the server away, the child's time keeps counting, Hearth Space comes at
// the limit on the real display, and what the agent had to say reaches the server once it is back —
// in order, once. Real server (stopped and started again on the same port and storage), real agent
// process, real Chromium under Xvfb; only logind and the wall clock are stood in for.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SimAgent } from '../../bench/src/simulator.js';
import {
  createHousehold,
  freePort,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { otherDeviceOf, setDailyLimit, startApprovedAgent } from './approved-agent.js';
import { type AgentProcess, makeSysroot, ROOT, type Sysroot, until } from './harness.js';
import { FakeLogind } from './logind.js';
import { XVFB, Xvfb } from './xvfb.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(ROOT, 'test-results/screenshots/agent');
const skipReason = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is missing`
  : !existsSync(XVFB)
    ? `${XVFB} is missing`
    : !existsSync(path.join(ROOT, 'overlay/dist/blockedv2.html'))
      ? 'overlay/dist/blockedv2.html is missing (run node scripts/build.mjs)'
      : false;
if (skipReason) console.log(`# offline end-to-end test skipped: ${skipReason}`);

describe('offline: time keeps counting, Hearth Space comes at the limit, reports arrive once', {
  skip: skipReason,
}, () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  let x: Xvfb;
  let logind: FakeLogind;
  let daemon: AgentProcess;
  let systemId: string;
  let port: number;
  let clockFile: string;
  const running: AgentProcess[] = [];
  const sims: SimAgent[] = [];

  before(async () => {
    x = new Xvfb();
    await x.start();
    port = await freePort();
    server = await startTestServer(undefined, { HEARTH_PORT: String(port) }, { keep: true });
    home = await createHousehold(server, 'Offline home');
    sys = makeSysroot([{ username: 'ann', uid: 1000, display_name: 'Ann' }]);
    // The kiosk window runs as Ann (uid 1000): her home in the sysroot must be reachable.
    chmodSync(sys.root, 0o755);
    logind = new FakeLogind(sys.root);
    // Ann's graphical session is X11 on the Xvfb display: the kiosk window finds it through logind.
    logind.sessions([{ type: 'x11', display: x.display }]);
    clockFile = path.join(sys.root, 'clock-offset');
    writeFileSync(clockFile, '0');
    ({ systemId, daemon } = await startApprovedAgent(server, home, sys, running, {
      ...logind.env(),
      DISPLAY: x.display,
      HEARTH_AGENT_CHROMIUM: CHROMIUM,
      HEARTH_AGENT_KIOSK_FLAGS: '--window-position=0,0 --window-size=1280,800',
      HEARTH_AGENT_OVERLAY_LANG: 'en',
      HEARTH_AGENT_ACTIVITY_POLL_MS: '200',
      HEARTH_AGENT_USAGE_REPORT_MS: '300',
      HEARTH_AGENT_LOCK_GRACE_SECONDS: '1',
      HEARTH_AGENT_NO_FOCUS: '1',
      HEARTH_AGENT_CLOCK_FILE: clockFile,
    }));
  });
  after(async () => {
    await Promise.all(sims.map((s) => s.stop()));
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    await x?.stop();
    sys?.cleanup();
  });

  test('server stopped → the limit is reached offline → Hearth Space on screen → server back → usage and the alert arrive once', async () => {
    // Ann belongs to a child with a minute a day; another device of the child already used 45 s of it.
    const childId = (await home.client.post('/api/user/create', { name: 'Ann' })).body.id as string;
    assert.equal(
      (
        await home.client.post(`/managed-users/${childId}/mappings/add`, {
          system_id: systemId,
          linux_username: 'ann',
        })
      ).status,
      201,
    );
    await setDailyLimit(home, daemon, childId, 1);
    const other = await otherDeviceOf(server, home, childId, sims);
    const usage = async () => (await home.client.get(`/api/user/${childId}/usage`)).body;
    other.send({ type: 'usage_report', linux_username: 'kid', date: (await usage()).date, seconds_used: 45 });
    await daemon.waitForLog('time status from the server', (l) => Number(l.used_seconds) >= 45);
    await until(usage, (u) =>
      u.devices.some(
        (d: { system_id: string; used_seconds: number }) => d.system_id === systemId && d.used_seconds >= 1,
      ),
    );
    await other.stop();

    // The server goes away.
    await server.close();
    await daemon.waitForLog('disconnected from the server');
    const offlineFrom = daemon.lines.length;

    // Offline, the agent counts on, reaches the limit, shows Hearth Space and locks the session.
    const shown = await daemon.waitForLog(
      'asking the overlay to show',
      (l) => l.reason === 'locked' && daemon.lines.indexOf(l) > offlineFrom,
    );
    assert.equal(shown.linux_username, 'ann');
    await daemon.waitFor(
      () => daemon.lines.slice(offlineFrom).some((l) => l.msg === 'kiosk window shown'),
      'the kiosk window',
    );
    await daemon.waitFor(() => logind.locks().length > 0, 'lock-session');
    logind.sessions([{ type: 'x11', display: x.display, locked: true }]);
    const blank = 16;
    await until(
      async () => x.colours(),
      (c) => c > blank,
    );
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(path.join(SHOTS, 'kiosk-offline-locked.png'), x.png());

    // Still offline, the wall clock is moved by two hours: the alert waits in the outbox. Ahead before
    // noon, back after it (the household's zone is UTC), so the day stays the same: across midnight the
    // agent would count on a new day, and the totals below could not be compared.
    writeFileSync(clockFile, String((new Date().getUTCHours() < 12 ? 2 : -2) * 3_600_000));
    await daemon.waitForLog('clock tamper detected');
    const polled = () =>
      daemon.lines.filter((l) => l.msg === 'sessions polled' && (l.counting as string[]).length === 0);
    const settledAt = polled().length;
    await daemon.waitFor(() => polled().length >= settledAt + 2, 'polls with the session locked');
    const localSeconds = Number((polled().at(-1)?.seconds as Record<string, number> | undefined)?.ann);
    assert.ok(localSeconds >= 1);

    // The server comes back on the same address and storage.
    server = await startTestServer(undefined, { ...server.storageEnv, HEARTH_PORT: String(port) });
    await daemon.waitFor(
      () => daemon.lines.slice(offlineFrom).some((l) => l.msg === 'connected to the server'),
      'reconnected',
    );
    await daemon.waitForLog('outbox sent', (l) => daemon.lines.indexOf(l) > offlineFrom);

    const after = await until(usage, (u) =>
      u.devices.some(
        (d: { system_id: string; used_seconds: number }) =>
          d.system_id === systemId && d.used_seconds >= localSeconds,
      ),
    );
    const mine = after.devices.find((d: { system_id: string }) => d.system_id === systemId);
    assert.equal(
      mine.used_seconds,
      localSeconds,
      'the server has the running total the agent counted offline',
    );
    assert.equal(after.state, 'locked');

    const sentOffline = daemon.lines.slice(offlineFrom).filter((l) => l.msg === 'outbox message sent');
    assert.equal(sentOffline.filter((l) => l.type === 'alert_event').length, 1, 'the alert was sent once');
    const usageSent = sentOffline.filter((l) => l.type === 'usage_report');
    assert.ok(
      usageSent.length >= 1 && usageSent.length <= 2,
      `usage totals were coalesced offline (${usageSent.length} sent)`,
    );
    const alerts = await home.client.get(`/api/alerts?kind=clock_tamper&system_id=${systemId}`);
    assert.equal(alerts.status, 200, alerts.text);
    assert.equal(alerts.body.items.length, 1, 'the server recorded the alert once');
    const status = JSON.parse(readFileSync(path.join(sys.stateDir, 'outbox.json'), 'utf8')).data;
    assert.deepEqual(status.entries, [], 'nothing is left in the outbox');
  });
});
