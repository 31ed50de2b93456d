// Screenshots (issue 19): `capture_screenshot` makes the real agent take the child's X display — a real
// Xvfb, found through the account's logind session — with xwd, as a PNG, and upload it with the device
// token to `POST /api/agent/screenshots` of a loopback stand-in that records the request. Accounts that
// are not a child's, or not on the computer, are never taken.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import { decodeXwd, pngWithin, shrink } from '../src/screenshot/image.js';
import { FakeHearth, type RecordedRequest } from './fake-server.js';
import { AgentProcess, agentEnv, makeSysroot, type Sysroot } from './harness.js';
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
if (skipReason) console.log(`# screenshot test skipped: ${skipReason}`);

const ORANGE = [0xff, 0x88, 0x00];

// gdbus stood in for, for the desktop portal on a Wayland session: `monitor` prints the Responses that
// `call` appends (with the file it made), `call` answers as the portal would or fails as without one.
// Signals go to every monitor, as on D-Bus: each monitor prints what was appended after it started, so
// a monitor of an earlier capture that is still shutting down cannot take a later capture's answer.
const GDBUS = `#!${process.execPath}
const fs = require('node:fs');
const dir = require('node:path').dirname(process.argv[1]);
const [verb, ...rest] = process.argv.slice(2);
fs.appendFileSync(dir + '/calls', JSON.stringify({ verb, uid: process.getuid(), bus: process.env.DBUS_SESSION_BUS_ADDRESS }) + '\\n');
const signals = dir + '/signals';
if (verb === 'monitor') {
  let seen = fs.existsSync(signals) ? fs.statSync(signals).size : 0;
  process.stdout.write('Monitoring signals from all objects owned by org.freedesktop.portal.Desktop\\n');
  setInterval(() => {
    const all = fs.existsSync(signals) ? fs.readFileSync(signals) : Buffer.alloc(0);
    if (all.length > seen) process.stdout.write(all.subarray(seen));
    seen = all.length;
  }, 20);
} else if (verb === 'call') {
  const mode = fs.readFileSync(dir + '/mode', 'utf8');
  if (mode === 'absent') {
    process.stderr.write('Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.portal.Desktop was not provided by any .service files\\n');
    process.exit(1);
  }
  const token = /'handle_token': <'([^']+)'>/.exec(rest.join(' '))[1];
  const handle = '/org/freedesktop/portal/desktop/request/1_42/' + token;
  const file = dir + '/Screenshot from today.png';
  fs.copyFileSync(dir + '/screen.png', file);
  const line = handle + ': org.freedesktop.portal.Request.Response (uint32 ' + (mode === 'deny' ? 1 : 0) + ", {'uri': <'file://" + encodeURI(file) + "'>})\\n";
  fs.appendFileSync(signals, line);
  process.stdout.write("(objectpath '" + handle + "',)\\n");
}
`;

class FakePortal {
  readonly shot: string;
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'gdbus'), GDBUS);
    chmodSync(path.join(dir, 'gdbus'), 0o755);
    // A 2560×1440 orange screen.
    const png = new PNG({ width: 2560, height: 1440 });
    for (let i = 0; i < png.data.length; i += 4) png.data.set([...ORANGE, 255], i);
    writeFileSync(path.join(dir, 'screen.png'), PNG.sync.write(png));
    this.shot = path.join(dir, 'Screenshot from today.png');
    this.mode('ok');
    // The stand-in runs as ann.
    for (const f of ['', 'gdbus', 'screen.png', 'mode']) chownSync(path.join(dir, f), 1000, 1000);
  }

  env(): Record<string, string> {
    return { HEARTH_AGENT_GDBUS: path.join(this.dir, 'gdbus') };
  }

  mode(m: 'ok' | 'deny' | 'absent'): void {
    writeFileSync(path.join(this.dir, 'mode'), m);
  }

  calls(): { verb: string; uid: number; bus: string }[] {
    return readFileSync(path.join(this.dir, 'calls'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }
}

describe('screenshots: the child’s X display captured and uploaded', { skip: skipReason }, () => {
  let fake: FakeHearth;
  let sys: Sysroot;
  let x: Xvfb;
  let logind: FakeLogind;
  let agent: AgentProcess;
  let uploadStatus = 201;
  let portal: FakePortal;
  const uploads = () => fake.requests.filter((r) => r.url === '/api/agent/screenshots');

  before(async () => {
    // -noreset: the server keeps the painted root window after xsetroot disconnects.
    x = new Xvfb(['-noreset']);
    await x.start();
    // Something to see: the root window painted orange.
    execFileSync(XSETROOT, ['-solid', '#ff8800'], { env: { ...process.env, DISPLAY: x.display } });
    fake = new FakeHearth();
    fake.json('GET', '/api/agent/account', (req) => {
      const name = new URL(req.url, 'http://x').searchParams.get('linux_username');
      return [200, { linux_username: name, managed_user_id: name === 'ann' ? 'child-ann' : null }];
    });
    fake.routes.set('POST /api/agent/screenshots', (_req, res) => {
      res.writeHead(uploadStatus, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          uploadStatus === 201
            ? { id: 'shot-1' }
            : { error: { code: 'too_large', message: 'at most 4 MiB' } },
        ),
      );
    });
    await fake.listen();
    sys = makeSysroot([
      { username: 'ann', uid: 1000 },
      { username: 'bob', uid: 1001 },
    ]);
    chmodSync(sys.root, 0o755);
    logind = new FakeLogind(sys.root);
    logind.sessions([{ type: 'x11', display: x.display }]);
    portal = new FakePortal(path.join(sys.root, 'portal'));
    fake.enrol(sys);
    agent = new AgentProcess(
      ['run'],
      agentEnv(sys, { ...logind.env(), ...portal.env(), HEARTH_AGENT_NO_FOCUS: '1' }),
    );
    await agent.waitForLog('connected to the server');
  });
  after(async () => {
    await agent?.stop();
    await fake?.close();
    await x?.stop();
    sys?.cleanup();
  });

  test('capture_screenshot → a PNG of the whole display, uploaded with the token, the account and the request id', async () => {
    const answer = await fake.command('capture_screenshot', { linux_username: 'ann', request_id: 'req-1' });
    assert.equal(answer.success, true, `the capture succeeded: ${String(answer.error)}`);
    const data = answer.data as Record<string, unknown>;
    assert.equal(data.uploaded, true, 'the answer says uploaded');
    assert.equal(data.width, 1280, 'the display’s width');
    assert.equal(data.height, 800, 'the display’s height');

    const [upload] = uploads() as [RecordedRequest];
    assert.ok(upload, 'one upload reached the server');
    assert.equal(upload.method, 'POST');
    assert.equal(upload.headers.authorization, `Bearer ${fake.token}`, 'with the device token');
    assert.equal(upload.headers['content-type'], 'image/png');
    assert.equal(upload.headers['x-hearth-linux-username'], 'ann');
    assert.equal(upload.headers['x-hearth-request-id'], 'req-1');
    assert.equal(data.bytes, upload.body.length, 'the answer counts the bytes sent');
    assert.ok(upload.body.length <= 4 * 1024 * 1024, 'within the server’s 4 MiB');
    const png = PNG.sync.read(upload.body);
    assert.equal(png.width, 1280, 'the PNG is as wide as the display');
    assert.equal(png.height, 800, 'the PNG is as tall as the display');
    const at = (400 * png.width + 600) * 4;
    assert.deepEqual([...png.data.subarray(at, at + 3)], ORANGE, 'the PNG shows what is on the display');
  });

  test('never taken: an account that is no child’s, one not on the computer, a malformed name', async () => {
    const before = uploads().length;
    const bob = await fake.command('capture_screenshot', { linux_username: 'bob' });
    assert.equal(bob.success, false, 'bob belongs to no child');
    assert.match(String(bob.error), /does not belong to a child/);
    const zed = await fake.command('capture_screenshot', { linux_username: 'zed' });
    assert.equal(zed.success, false, 'zed is not on this computer');
    assert.match(String(zed.error), /no account named zed/);
    const bad = await fake.command('capture_screenshot', { linux_username: '../etc' });
    assert.equal(bad.success, false, 'a malformed name is refused');
    assert.equal(uploads().length, before, 'nothing was uploaded');
  });

  test('the server refuses the upload: the command fails with the server’s words', async () => {
    uploadStatus = 413;
    try {
      const answer = await fake.command('capture_screenshot', { linux_username: 'ann' });
      assert.equal(answer.success, false, 'the command failed');
      assert.match(
        String(answer.error),
        /413 too_large\): at most 4 MiB/,
        'with the server’s code and message',
      );
    } finally {
      uploadStatus = 201;
    }
  });

  test('a Wayland session: the desktop portal is asked on the child’s bus, as the child; its file is read, shrunk, uploaded and removed', async () => {
    const before = uploads().length;
    mkdirSync(path.join(sys.root, 'run/user/1000/wayland-0'), { recursive: true });
    logind.sessions([{ type: 'wayland', display: '' }]);
    try {
      portal.mode('absent');
      const absent = await fake.command('capture_screenshot', { linux_username: 'ann' });
      assert.equal(absent.success, false, 'no portal, no screenshot');
      assert.match(
        String(absent.error),
        /desktop portal cannot take screenshots.*ServiceUnknown/,
        'and the error says why',
      );

      portal.mode('deny');
      const denied = await fake.command('capture_screenshot', { linux_username: 'ann' });
      assert.equal(denied.success, false, 'the person declined');
      assert.match(
        String(denied.error),
        /portal refused the screenshot \(the person declined\)/,
        'and the error says so',
      );
      assert.equal(uploads().length, before, 'nothing was uploaded');

      portal.mode('ok');
      const answer = await fake.command('capture_screenshot', { linux_username: 'ann', request_id: 'req-2' });
      assert.equal(answer.success, true, `the capture succeeded: ${String(answer.error)}`);
      assert.deepEqual(
        {
          width: (answer.data as Record<string, unknown>).width,
          height: (answer.data as Record<string, unknown>).height,
        },
        { width: 1920, height: 1080 },
        'a 2560×1440 screen shrinks to 1920×1080',
      );
      const upload = uploads().at(-1) as RecordedRequest;
      assert.equal(upload.headers['x-hearth-request-id'], 'req-2', 'the upload names the request');
      const png = PNG.sync.read(upload.body);
      assert.deepEqual([...png.data.subarray(0, 3)], ORANGE, 'the portal’s picture was uploaded');
      assert.ok(!existsSync(portal.shot), 'the portal’s file is removed');
      const calls = portal.calls();
      assert.ok(calls.length >= 2 && calls.every((c) => c.uid === 1000), 'gdbus ran as ann');
      assert.ok(
        calls.every((c) => c.bus === `unix:path=${path.join(sys.root, 'run/user/1000/bus')}`),
        'on ann’s session bus',
      );
    } finally {
      logind.sessions([{ type: 'x11', display: x.display }]);
    }
  });

  test('the XWD reader agrees with Xvfb’s own framebuffer; wide screens shrink to 1920 px', () => {
    const dir = (x as unknown as { dir: string }).dir;
    const file = readdirSync(dir).find((f) => f.startsWith('Xvfb_screen')) as string;
    const decoded = decodeXwd(readFileSync(path.join(dir, file)));
    const screen = x.screen();
    assert.equal(decoded.width, screen.width, 'same width');
    assert.ok(decoded.data.equals(screen.rgba), 'same pixels');

    const wide = { width: 3840, height: 2160, data: Buffer.alloc(3840 * 2160 * 4, 0x80) };
    const small = shrink(wide, 1920);
    assert.equal(small.width, 1920, 'shrunk to 1920 px');
    assert.equal(small.height, 1080, 'proportions kept');
    assert.equal(small.data[0], 0x80, 'colours kept');
    const fitted = pngWithin(wide, 1920, 4 * 1024 * 1024);
    assert.equal(fitted.width, 1920, 'a flat 4K screen fits at 1920 px');
  });
});
