import assert from 'node:assert/strict';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createHousehold,
  enrollmentToken,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { AgentProcess, agentEnv, makeSysroot, ROOT, type Sysroot } from './harness.js';

describe('hearth-agent enroll and run against the real server', () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  const running: AgentProcess[] = [];
  const agent = (args: string[], extra: Record<string, string> = {}) => {
    const p = new AgentProcess(args, agentEnv(sys, extra));
    running.push(p);
    return p;
  };

  before(async () => {
    server = await startTestServer();
    home = await createHousehold(server, 'Agent home');
    sys = makeSysroot([
      { username: 'ann', uid: 1000, display_name: 'Ann Example' },
      { username: 'ben', uid: 1001 },
      { username: 'svc', uid: 1002, shell: '/usr/sbin/nologin' },
    ]);
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    sys?.cleanup();
  });

  test('enrol → a parent approves → the token is kept 0600 → the daemon says hello with the human accounts', async () => {
    const token = await enrollmentToken(home);
    const enrolling = agent(['enroll', '--server', server.url, '--token', token]);
    await enrolling.waitFor(() => enrolling.stdout.includes('Waiting for a parent'), 'waiting line');
    const identity = JSON.parse(readFileSync(path.join(sys.stateDir, 'identity.json'), 'utf8')).data;
    const pending = await home.client.get('/api/devices/pending');
    assert.equal(pending.status, 200);
    assert.ok(JSON.stringify(pending.body).includes(identity.system_id), 'the device waits for approval');

    assert.equal((await home.client.post(`/api/device/approve/${identity.system_id}`)).status, 200);
    assert.equal(await enrolling.exited, 0);
    assert.match(enrolling.stdout, /Approved/);

    const tokenFile = path.join(sys.stateDir, 'token');
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    assert.equal(statSync(sys.stateDir).mode & 0o777, 0o700);
    const secure = readFileSync(tokenFile, 'utf8').trim();
    assert.match(secure, /^[0-9a-f]{64}$/);
    assert.equal(
      JSON.parse(readFileSync(path.join(sys.stateDir, 'identity.json'), 'utf8')).data.enrollment_token,
      undefined,
    );

    const daemon = agent(['run']);
    await daemon.waitForLog('connected to the server');
    const device = await home.client.get(`/api/devices/${identity.system_id}`);
    assert.equal(device.status, 200);
    assert.equal(device.body.hostname, 'family-laptop');
    assert.equal(
      device.body.agent_version,
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
    );
    const names = (device.body.linux_users as { username: string; display_name?: string }[])
      .map((u) => u.username)
      .sort();
    assert.deepEqual(names, ['ann', 'ben']);

    const status = agent(['status', '--json']);
    assert.equal(await status.exited, 0);
    const report = JSON.parse(status.stdout);
    assert.equal(report.approved, true);
    assert.equal(report.daemon.connected, true);

    // A new account on the device (useradd replaces /etc/passwd): the server hears of it at once.
    const passwd = path.join(sys.root, 'etc/passwd');
    writeFileSync(
      `${passwd}+`,
      `${readFileSync(passwd, 'utf8')}cara:x:1003:1003:Cara,,,:/home/cara:/bin/zsh\n`,
    );
    renameSync(`${passwd}+`, passwd);
    await daemon.waitForLog('the device accounts changed; saying hello again');
    await daemon.waitFor(
      () => daemon.lines.filter((l) => l.msg === 'connected to the server').length >= 2,
      'second hello',
    );
    const again = await home.client.get(`/api/devices/${identity.system_id}`);
    assert.deepEqual((again.body.linux_users as { username: string }[]).map((u) => u.username).sort(), [
      'ann',
      'ben',
      'cara',
    ]);

    for (const p of [enrolling, daemon, status]) {
      assert.ok(!p.stderr.includes(secure) && !p.stdout.includes(secure), 'the device token is never logged');
      assert.ok(
        !p.stderr.includes(token) && !p.stdout.includes(token),
        'the enrolment token is never logged',
      );
    }
  });

  test('an enrolment token that starts with a dash is taken as the token, not as an option', async () => {
    const other = makeSysroot([{ username: 'ann', uid: 1000 }]);
    try {
      const p = new AgentProcess(
        ['enroll', '--server', server.url, '--token', '-Ab_9', '--no-wait'],
        agentEnv(other),
      );
      running.push(p);
      assert.equal(await p.exited, 0, p.stderr);
      const kept = JSON.parse(readFileSync(path.join(other.stateDir, 'identity.json'), 'utf8')).data;
      assert.equal(kept.enrollment_token, '-Ab_9');
      assert.equal(kept.server_url, server.url);
    } finally {
      other.cleanup();
    }
  });
});
