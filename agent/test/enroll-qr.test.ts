import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import {
  createHousehold,
  enrollmentToken,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { AgentProcess, agentEnv, makeSysroot, type Sysroot } from './harness.js';

describe('hearth-agent enroll --qr with the pairing QR a parent saved', () => {
  let server: TestServer;
  let home: Household;
  let files: string;
  const sysroots: Sysroot[] = [];
  const running: AgentProcess[] = [];
  const agent = (sys: Sysroot, args: string[]) => {
    const p = new AgentProcess(args, agentEnv(sys));
    running.push(p);
    return p;
  };
  const sysroot = () => {
    const sys = makeSysroot([{ username: 'ann', uid: 1000 }]);
    sysroots.push(sys);
    return sys;
  };

  before(async () => {
    server = await startTestServer();
    home = await createHousehold(server, 'QR home');
    files = mkdtempSync(path.join(tmpdir(), 'hearth-qr-'));
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    for (const sys of sysroots) sys.cleanup();
    rmSync(files, { recursive: true, force: true });
  });

  test('the PNG from /api/pairing/qr.png gives the server and token; the service then pairs with them', async () => {
    const res = await fetch(`${server.url}/api/pairing/qr.png`, {
      headers: { cookie: home.client.cookie ?? '' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    const qr = path.join(files, 'pairing.png');
    writeFileSync(qr, Buffer.from(await res.arrayBuffer()));

    const sys = sysroot();
    const enrolling = agent(sys, ['enroll', '--qr', qr, '--no-wait']);
    assert.equal(await enrolling.exited, 0, enrolling.stderr);
    const identity = JSON.parse(readFileSync(path.join(sys.stateDir, 'identity.json'), 'utf8')).data;
    assert.equal(identity.server_url, server.url);
    const token = await enrollmentToken(home);
    assert.equal(identity.enrollment_token, token);
    assert.ok(!enrolling.stdout.includes(token), 'the enrolment token is never printed');

    // What the installed service does next: pair with the stored proof and wait for a parent.
    const daemon = agent(sys, ['run']);
    await daemon.waitForLog('waiting for a parent to approve this device');
    assert.equal((await home.client.post(`/api/device/approve/${identity.system_id}`)).status, 200);
    await daemon.waitForLog('device approved; token stored');
    await daemon.waitForLog('connected to the server');
  });

  test('a PNG without a QR code is refused with a reason, and nothing is stored', async () => {
    const blank = new PNG({ width: 64, height: 64 });
    blank.data.fill(255);
    const file = path.join(files, 'blank.png');
    writeFileSync(file, PNG.sync.write(blank));
    const sys = sysroot();
    const enrolling = agent(sys, ['enroll', '--qr', file, '--no-wait']);
    assert.equal(await enrolling.exited, 1);
    assert.match(enrolling.stderr, /no QR code found in the image/);
    assert.throws(() => readFileSync(path.join(sys.stateDir, 'identity.json')));
  });
});
