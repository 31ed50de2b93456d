// End to end on a real X display: a parent pauses a child's account → the agent opens Hearth Space in a
// kiosk Chromium as the child → the child taps a preset → the parent sees the request → the window comes
// back after Alt+F4 (a kill) → the parent dismisses it and the browser is gone.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import {
  createHousehold,
  freePort,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { startApprovedAgent } from './approved-agent.js';
import { type AgentProcess, makeSysroot, ROOT, type Sysroot, until } from './harness.js';
import { XVFB, Xvfb } from './xvfb.js';

const CHROMIUM = '/usr/bin/chromium';
const PAGE = path.join(ROOT, 'overlay/dist/blockedv2.html');
const SHOTS = path.join(ROOT, 'test-results/screenshots/agent');

const skipReason = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is missing`
  : !existsSync(XVFB)
    ? `${XVFB} is missing`
    : !existsSync(PAGE)
      ? 'overlay/dist/blockedv2.html is missing (run node scripts/build.mjs)'
      : false;
if (skipReason) console.log(`# kiosk end-to-end test skipped: ${skipReason}`);

/** Every process in the group (the kiosk runs its browser in a group of its own). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The addresses of the page targets the kiosk browser lists on its DevTools endpoint. */
async function pageTargets(port: number): Promise<string[]> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/json/list`);
    const targets = (await res.json()) as { type: string; url: string }[];
    return targets.filter((t) => t.type === 'page').map((t) => t.url);
  } catch {
    return []; // not listening yet
  }
}

describe('Hearth Space in a kiosk window on a real X display', { skip: skipReason }, () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  let x: Xvfb;
  let daemon: AgentProcess;
  let systemId: string;
  let cdpPort: number;
  const running: AgentProcess[] = [];

  before(async () => {
    x = new Xvfb();
    await x.start();
    server = await startTestServer();
    home = await createHousehold(server, 'Kiosk home');
    sys = makeSysroot([{ username: 'ann', uid: 1000, display_name: 'Ann' }]);
    chmodSync(sys.root, 0o755);
    cdpPort = await freePort();
    ({ systemId, daemon } = await startApprovedAgent(server, home, sys, running, {
      DISPLAY: x.display,
      HEARTH_AGENT_CHROMIUM: CHROMIUM,
      // Xvfb runs no window manager to make the kiosk window full-screen, so it is placed by hand.
      HEARTH_AGENT_KIOSK_FLAGS: `--remote-debugging-port=${cdpPort} --window-position=0,0 --window-size=1280,800`,
      HEARTH_AGENT_OVERLAY_LANG: 'en',
    }));
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    await x?.stop();
    sys?.cleanup();
  });

  const overlay = (body: Record<string, unknown>) =>
    home.client.post(`/api/devices/${systemId}/overlay`, body);
  const shown = () => daemon.lines.filter((l) => l.msg === 'kiosk window shown');

  test('show → the page on the display → a preset reaches the parent → Alt+F4 brings it back → dismiss ends it', async () => {
    const blank = x.colours();
    const answer = await overlay({ action: 'show', reason: 'locked', linux_username: 'ann' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { delivered: true, queued: false });
    const first = shown()[0];
    assert.ok(first, 'the agent answered only once the window was up');
    const pid = Number(first.pid);
    assert.ok(groupMembers(pid).length > 0);
    if (process.getuid?.() === 0) {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      assert.equal(uid, 1000, 'the window runs as the child');
    }

    // Attach only once the window shows the page. Playwright attaching while the window's first
    // navigation (launch address → 302 → page) is still in flight reads the frame as the initial empty
    // page and then waits for ever for a frameNavigated that Chromium does not send (seen with
    // Chromium 156 and playwright-core 1.65: commit, DOMContentLoaded and load arrive, frameNavigated not).
    await until(
      () => pageTargets(cdpPort),
      (urls) => urls.some((u) => u.includes('/blockedv2.html')),
      'the page listed by the window',
    );
    await until(
      async () => x.colours(),
      (colours) => colours > Math.max(blank, 16),
      'the page painted on the X display',
    );

    let said = '';
    const browser = await chromium.connectOverCDP(`http://127.0.0.1:${cdpPort}`, {
      // a busy CI machine can take longer than the default 30 s to attach to every target
      timeout: 180_000,
    });
    try {
      const context = browser.contexts()[0];
      assert.ok(context);
      const page = await until(
        async () => context.pages().find((p) => p.url().includes('/blockedv2.html')),
        (found) => found !== undefined,
        'the page in the window',
      );
      assert.ok(page);
      const url = new URL(page.url());
      assert.equal(url.hostname, '127.0.0.1');
      assert.equal(url.searchParams.get('reason'), 'locked');
      assert.equal(url.searchParams.get('device'), 'family-laptop');
      assert.equal(url.searchParams.get('bridge'), `${url.origin}/bridge`);
      assert.ok(url.searchParams.get('bridge_token'));
      assert.ok(
        !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(
          url.searchParams.get('bridge_token') as string,
        ),
        'the bridge token is not on the command line',
      );
      await page.waitForSelector('html[data-settled]');
      mkdirSync(SHOTS, { recursive: true });
      writeFileSync(path.join(SHOTS, 'kiosk-locked.png'), x.png());

      const preset = page.locator('[data-hearth="preset"]').first();
      await preset.waitFor();
      said = (await preset.textContent())?.trim() ?? '';
      assert.ok(said);
      await preset.click();
      const status = page.locator('[data-hearth="status"]');
      await page.waitForFunction(
        () =>
          !['pending', 'idle', undefined].includes(
            (document.querySelector('[data-hearth="status"]') as HTMLElement | null)?.dataset.tone,
          ),
      );
      assert.equal(await status.getAttribute('data-tone'), 'ok', (await status.textContent()) ?? '');
      writeFileSync(path.join(SHOTS, 'kiosk-sent.png'), x.png());
    } finally {
      await browser.close();
    }
    const requests = await home.client.get(`/api/access-request?system_id=${systemId}`);
    assert.equal(requests.status, 200);
    assert.equal(requests.body.items.length, 1, JSON.stringify(requests.body));
    assert.equal(requests.body.items[0].linux_username, 'ann');
    assert.equal(requests.body.items[0].payload.reason, 'locked');
    // The button's text may carry a screen-reader suffix; the message is its visible words.
    assert.ok(said.startsWith(requests.body.items[0].payload.message), said);

    // Alt+F4 (here: the browser killed outright) does not get rid of it: the agent starts it again.
    process.kill(-pid, 'SIGKILL');
    await daemon.waitFor(() => shown().length >= 2, 'the window back');
    const second = Number(shown()[1]?.pid);
    assert.notEqual(second, pid);

    const dismissed = await overlay({ action: 'dismiss', linux_username: 'ann' });
    assert.deepEqual(dismissed.body, { delivered: true, queued: false });
    assert.deepEqual(groupMembers(second), [], 'no process of the kiosk browser is left');
    await daemon.waitForLog('overlay dismissed');
  });
});
