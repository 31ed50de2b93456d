// Issue 19 end to end: a parent's restrictions and "capture now" travel from the real server to the real
// agent process and back. The policy is saved through the parents' route, enforced in a temporary root
// (polkit rules, terminal overrides, the rfkill stand-in), and the server's GET reads it synced with each
// rule's outcome; a capture takes the child's real Xvfb display and the picture reaches the gallery;
// unlinking the account undoes every rule. Only logind and rfkill are stood in for.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import {
  createHousehold,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { ALL_OFF } from '../src/device-policy/module.js';
import { startApprovedAgent } from './approved-agent.js';
import { type AgentProcess, makeSysroot, type Sysroot, until } from './harness.js';
import { FakeLogind } from './logind.js';
import { XVFB, Xvfb } from './xvfb.js';

const XWD = '/usr/bin/xwd';
const XSETROOT = '/usr/bin/xsetroot';
const skipReason = !existsSync(XVFB)
  ? `${XVFB} is missing (Debian package xvfb)`
  : !existsSync(XWD)
    ? `${XWD} is missing (Debian package x11-apps)`
    : !existsSync(XSETROOT)
      ? `${XSETROOT} is missing (Debian package x11-xserver-utils)`
      : false;
if (skipReason) console.log(`# device policy end-to-end test skipped: ${skipReason}`);

const POLKIT_FILE = 'etc/polkit-1/rules.d/60-hearth-ann.rules';

describe('device policy and screenshots end to end: the real server, the real agent, a real X display', {
  skip: skipReason,
}, () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  let x: Xvfb;
  let daemon: AgentProcess;
  let systemId: string;
  let mappingId: string;
  let rfkillLog: string;
  const running: AgentProcess[] = [];

  before(async () => {
    x = new Xvfb(['-noreset']);
    await x.start();
    execFileSync(XSETROOT, ['-solid', '#2080c0'], { env: { ...process.env, DISPLAY: x.display } });
    server = await startTestServer();
    home = await createHousehold(server, 'Policy home');
    sys = makeSysroot([{ username: 'ann', uid: 1000, display_name: 'Ann' }]);
    chmodSync(sys.root, 0o755);
    chownSync(sys.home('ann'), 1000, 1000);
    const apps = path.join(sys.root, 'usr/share/applications');
    mkdirSync(apps, { recursive: true });
    writeFileSync(
      path.join(apps, 'debian-xterm.desktop'),
      '[Desktop Entry]\nType=Application\nName=XTerm\nExec=xterm\n',
    );
    mkdirSync(path.join(sys.root, 'etc/polkit-1/rules.d'), { recursive: true });
    mkdirSync(path.join(sys.root, 'sys/class/rfkill'), { recursive: true });
    rfkillLog = path.join(sys.root, 'rfkill.log');
    const rfkill = path.join(sys.root, 'rfkill');
    writeFileSync(rfkill, `#!/bin/sh\necho "$*" >> '${rfkillLog}'\n`);
    chmodSync(rfkill, 0o755);
    const logind = new FakeLogind(sys.root);
    logind.sessions([{ type: 'x11', display: x.display }]);
    ({ systemId, daemon } = await startApprovedAgent(server, home, sys, running, {
      ...logind.env(),
      HEARTH_AGENT_RFKILL: rfkill,
      HEARTH_AGENT_NO_FOCUS: '1',
      XDG_DATA_DIRS: '/usr/local/share:/usr/share',
    }));
    const child = await home.client.post('/api/user/create', { name: 'Ann' });
    assert.equal(child.status, 201, child.text);
    const mapped = await home.client.post(`/managed-users/${child.body.id}/mappings/add`, {
      system_id: systemId,
      linux_username: 'ann',
    });
    assert.equal(mapped.status, 201, mapped.text);
    mappingId = mapped.body.id;
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    await x?.stop();
    sys?.cleanup();
  });

  test('a parent’s policy is enforced on the computer and the server reads it synced, rule by rule', async () => {
    const url = `/api/mappings/${mappingId}/linux-device-policy`;
    const policy = {
      ...ALL_OFF,
      block_software_install: true,
      block_terminal: true,
      disable_bluetooth: true,
      block_incognito: true,
    };
    const saved = await home.client.request('PUT', url, { json: policy });
    assert.equal(saved.status, 200, saved.text);
    const version = saved.body.version as number;
    await daemon.waitForLog('device policy applied', (l) => l.version === version);
    const view = await until(
      async () => (await home.client.get(url)).body,
      (b) => b.sync?.status === 'synced' && b.sync.applied_version === version,
      'the server reads the policy synced',
    );
    for (const rule of ['block_software_install', 'block_terminal', 'disable_bluetooth', 'block_incognito'])
      assert.equal(view.sync.rules?.[rule]?.status, 'applied', `${rule} is applied, as the server reads it`);
    assert.match(
      readFileSync(path.join(sys.root, POLKIT_FILE), 'utf8'),
      /org\.freedesktop\.packagekit\./,
      'the polkit rules are in place',
    );
    assert.match(
      readFileSync(path.join(sys.home('ann'), '.local/share/applications/debian-xterm.desktop'), 'utf8'),
      /^Hidden=true$/m,
      'the terminal is hidden from ann’s menus',
    );
    assert.deepEqual(
      readFileSync(rfkillLog, 'utf8').split('\n').filter(Boolean),
      ['list bluetooth', 'block bluetooth'],
      'Bluetooth is blocked',
    );
  });

  test('capture now: the child’s display reaches the gallery as a PNG of the display', async () => {
    const asked = await home.client.post(`/api/devices/${systemId}/screenshots/capture`, {
      linux_username: 'ann',
    });
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.delivered, true, 'the online agent was asked at once');
    await daemon.waitForLog('screenshot uploaded', (l) => l.linux_username === 'ann');
    const listed = await home.client.get(`/api/devices/${systemId}/screenshots`);
    assert.equal(listed.status, 200, listed.text);
    const [shot] = listed.body.items;
    assert.ok(shot, 'the gallery has the screenshot');
    assert.equal(shot.request_id, asked.body.request_id, 'it answers the parent’s request');
    assert.equal(shot.width, 1280, 'the display’s width');
    assert.equal(shot.height, 800, 'the display’s height');
    const image = await fetch(`${server.url}${shot.image_url}`, {
      headers: { cookie: home.client.cookie ?? '' },
    });
    assert.equal(image.status, 200, 'the parent can see it');
    assert.equal(image.headers.get('content-type'), 'image/png');
    const png = PNG.sync.read(Buffer.from(await image.arrayBuffer()));
    const at = (400 * png.width + 640) * 4;
    assert.deepEqual(
      [...png.data.subarray(at, at + 3)],
      [0x20, 0x80, 0xc0],
      'it shows what is on the display',
    );
  });

  test('unlinking the account undoes every rule on the computer', async () => {
    const removed = await home.client.request('DELETE', `/api/mappings/${mappingId}`);
    assert.equal(removed.status, 200, removed.text);
    await daemon.waitForLog('device policy applied', (l) => l.version === 0);
    assert.ok(!existsSync(path.join(sys.root, POLKIT_FILE)), 'the polkit rules are gone');
    assert.ok(
      !existsSync(path.join(sys.home('ann'), '.local/share/applications/debian-xterm.desktop')),
      'the terminal is back in ann’s menus',
    );
    assert.equal(
      readFileSync(rfkillLog, 'utf8').split('\n').filter(Boolean).at(-1),
      'unblock bluetooth',
      'Bluetooth is unblocked',
    );
  });
});
