import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createHousehold,
  enrollmentToken,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { newIdentity, writeIdentity, writeToken } from '../src/identity.js';
import { createLogger } from '../src/log.js';
import { StateStore } from '../src/state.js';
import { AgentProcess, agentEnv, makeSysroot, type Sysroot } from './harness.js';

describe('a damaged state directory is set aside, never believed and never a crash loop', () => {
  let server: TestServer;
  let home: Household;
  const roots: Sysroot[] = [];
  const running: AgentProcess[] = [];
  const start = (sys: Sysroot, args: string[]) => {
    const p = new AgentProcess(args, agentEnv(sys));
    running.push(p);
    return p;
  };
  const sysroot = () => {
    const sys = makeSysroot([{ username: 'ann', uid: 1000 }]);
    roots.push(sys);
    new StateStore(sys.stateDir, createLogger('error')).ensure();
    return sys;
  };

  before(async () => {
    server = await startTestServer();
    home = await createHousehold(server, 'State home');
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    for (const sys of roots) sys.cleanup();
  });

  test('a truncated identity: the service logs it, waits for enrolment, and pairs once enrolled again', async () => {
    const sys = sysroot();
    const state = new StateStore(sys.stateDir, createLogger('error'));
    writeIdentity(state, newIdentity(server.url, await enrollmentToken(home)));
    const file = path.join(sys.stateDir, 'identity.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 40));

    const daemon = start(sys, ['run']);
    await daemon.waitForLog('state file damaged; ignoring it', (l) => l.file === 'identity.json');
    await daemon.waitForLog('not enrolled yet: waiting for "hearth-agent enroll"');
    assert.ok(existsSync(`${file}.damaged`), 'the damaged file is kept aside for a person to read');
    const status = start(sys, ['status']);
    assert.equal(await status.exited, 3);
    assert.match(status.stdout, /Not enrolled/);

    const enrol = start(sys, [
      'enroll',
      '--server',
      server.url,
      '--token',
      await enrollmentToken(home),
      '--no-wait',
    ]);
    assert.equal(await enrol.exited, 0);
    await daemon.waitForLog('waiting for a parent to approve this device');
    assert.equal(daemon.exitCode, null);
  });

  test('an edited identity (checksum no longer matches) is not believed either', async () => {
    const sys = sysroot();
    const state = new StateStore(sys.stateDir, createLogger('error'));
    writeIdentity(state, newIdentity(server.url, 'x'));
    const file = path.join(sys.stateDir, 'identity.json');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(server.url.replace('http://', ''), 'evil.example:80'),
    );
    const daemon = start(sys, ['run']);
    await daemon.waitForLog('state file damaged; ignoring it', (l) => l.file === 'identity.json');
    await daemon.waitForLog('not enrolled yet: waiting for "hearth-agent enroll"');
  });

  test('a damaged token file and a damaged outbox: logged, set aside, the daemon keeps running', async () => {
    const sys = sysroot();
    const state = new StateStore(sys.stateDir, createLogger('error'));
    writeIdentity(state, newIdentity(server.url));
    writeToken(state, 'a'.repeat(64));
    writeFileSync(path.join(sys.stateDir, 'token'), 'aaaa\n');
    writeFileSync(path.join(sys.stateDir, 'outbox.json'), '{"sha256":"00","data":{"next":1,"entries":[]}}');
    const daemon = start(sys, ['run']);
    await daemon.waitForLog('state file damaged; ignoring it', (l) => l.file === 'outbox.json');
    await daemon.waitForLog('secret file damaged; ignoring it', (l) => l.file === 'token');
    await daemon.waitForLog('no device token and no enrolment token: run "hearth-agent enroll" again');
    assert.equal(daemon.exitCode, null);
  });
});
