import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ALLOW_LOOPBACK, hostsList, ListServer } from '../../server/test/blocklists-fixture.js';
import {
  createHousehold,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { POLICY_PART_BYTES } from '../src/domain-policy.js';
import { encodeFrame, FrameReader, MAX_TO_CHROME } from '../src/native-host.js';
import { IpcClient, startApprovedAgent } from './approved-agent.js';
import { AGENT_DIR, type AgentProcess, makeSysroot, ROOT, type Sysroot } from './harness.js';

const isRoot = process.getuid?.() === 0;
const ANN = 1000;
const BEN = 1001;
const CAT = 1002;

/** A short node script run as another account (root only): what that account can reach. */
function probeAs(uid: number, dir: string, socket: string): Promise<{ list: string; connect: string }> {
  const script = `
    const fs = require('node:fs'), net = require('node:net');
    const out = {};
    try { fs.readdirSync(${JSON.stringify(dir)}); out.list = 'ok'; } catch (e) { out.list = e.code; }
    const s = net.createConnection(${JSON.stringify(socket)});
    s.on('connect', () => { out.connect = 'ok'; s.destroy(); console.log(JSON.stringify(out)); });
    s.on('error', (e) => { out.connect = e.code; console.log(JSON.stringify(out)); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { uid, gid: uid, cwd: '/' });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`probe exited ${code}`)),
    );
  });
}

/** The native host as Chrome runs it: its own process, the extension's origin as argument, as the child. */
class NativeHost {
  readonly messages: Record<string, unknown>[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly reader = new FrameReader(16 * 1024 * 1024);
  private waiters: {
    test: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];

  constructor(env: Record<string, string>, uid?: number) {
    this.child = spawn(
      process.execPath,
      [
        '--conditions=hearth-source',
        '--import',
        'tsx',
        path.join(AGENT_DIR, 'src/native-host-main.ts'),
        'chrome-extension://abcdefghijklmnopabcdefghijklmnop/',
      ],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(uid !== undefined ? { uid, gid: uid } : {}),
      },
    );
    this.child.stdout?.on('data', (d: Buffer) => {
      for (const m of this.reader.push(d) ?? []) {
        const message = m as Record<string, unknown>;
        this.messages.push(message);
        this.waiters = this.waiters.filter((w) => {
          if (!w.test(message)) return true;
          w.resolve(message);
          return false;
        });
      }
    });
    this.child.stderr?.on('data', (d: Buffer) => {
      this.stderr += d.toString();
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  send(message: unknown): void {
    this.child.stdin?.write(encodeFrame(message));
  }

  raw(bytes: Buffer): void {
    this.child.stdin?.write(bytes);
  }

  next(test: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const found = this.messages.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  end(): void {
    this.child.stdin?.end();
  }
}

describe('the IPC sockets and the native-messaging host, against the real server and agent', () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  let systemId: string;
  const running: AgentProcess[] = [];
  const clients: IpcClient[] = [];
  const hosts: NativeHost[] = [];
  const sock = (uid: number) => path.join(sys.runDir, 'users', String(uid), 'ipc.sock');
  const connect = async (uid: number) => {
    const c = await IpcClient.connect(sock(uid));
    clients.push(c);
    return c;
  };
  /** Runs as the account when we are root (the real layout); otherwise names the socket outright. */
  const nativeHost = (uid: number, env: Record<string, string> = {}) => {
    const h = isRoot
      ? new NativeHost({ HEARTH_AGENT_RUN_DIR: sys.runDir, ...env }, uid)
      : new NativeHost({ HEARTH_AGENT_IPC_SOCKET: sock(uid), ...env });
    hosts.push(h);
    return h;
  };

  before(async () => {
    // The big-policy test serves its list from loopback.
    server = await startTestServer({ name: 'sqlite' }, ALLOW_LOOPBACK);
    home = await createHousehold(server, 'IPC home');
    sys = makeSysroot([
      { username: 'ann', uid: ANN },
      { username: 'ben', uid: BEN },
      { username: 'cat', uid: CAT },
    ]);
    // mkdtemp makes the temporary root 0700; a real / lets every account walk to /run.
    chmodSync(sys.root, 0o755);
    ({ systemId } = await startApprovedAgent(server, home, sys, running));
  });
  after(async () => {
    for (const c of clients) c.close();
    for (const h of hosts) h.end();
    await Promise.all(hosts.map((h) => h.exited));
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    sys?.cleanup();
  });

  test('one socket per account, reachable only by that account', {
    skip: !isRoot && 'needs root to own files as other accounts',
  }, async () => {
    for (const uid of [ANN, BEN]) {
      const dir = statSync(path.dirname(sock(uid)));
      assert.equal(dir.mode & 0o777, 0o700);
      assert.equal(dir.uid, uid);
      const file = statSync(sock(uid));
      assert.ok(file.isSocket());
      assert.equal(file.mode & 0o777, 0o600);
      assert.equal(file.uid, uid);
    }
    assert.deepEqual(await probeAs(BEN, path.dirname(sock(ANN)), sock(ANN)), {
      list: 'EACCES',
      connect: 'EACCES',
    });
    assert.deepEqual(await probeAs(BEN, path.dirname(sock(BEN)), sock(BEN)), { list: 'ok', connect: 'ok' });
  });

  test('bad JSON and unknown types answer errors; a line over 1 MiB closes the connection', async () => {
    const c = await connect(ANN);
    c.socket.write('{"id": 1, "type": \n');
    assert.deepEqual(await c.next((l) => l.error === 'bad_json'), { id: null, ok: false, error: 'bad_json' });
    c.socket.write('[1,2]\n');
    assert.deepEqual(await c.next((l) => l.error === 'bad_message'), {
      id: null,
      ok: false,
      error: 'bad_message',
    });
    assert.deepEqual(await c.request({ type: 'SELF_DESTRUCT' }), {
      id: 'r1',
      ok: false,
      error: 'unknown_type',
    });
    assert.deepEqual(await c.request({ type: 'ACCESS_REQUEST', reason: 'bogus', message: 'hi' }), {
      id: 'r2',
      ok: false,
      error: 'invalid',
    });
    // The connection still serves after all that.
    assert.equal((await c.request({ type: 'GET_POLICY' })).version, 0);

    const long = await connect(ANN);
    long.socket.write(Buffer.alloc(1024 * 1024 + 16, 'a'));
    assert.equal((await long.next((l) => l.error === 'line_too_long')).ok, false);
    await long.whenClosed();
  });

  test('an access request is sent as the socket’s account, whatever the message says', async () => {
    const c = await connect(BEN);
    const answer = await c.request({
      type: 'ACCESS_REQUEST',
      reason: 'locked',
      message: '  Can I finish my level?  ',
      linux_username: 'ann',
    });
    assert.deepEqual(answer, { id: 'r1', ok: true });
    const list = await home.client.get(`/api/access-request?system_id=${systemId}`);
    assert.equal(list.status, 200);
    const item = list.body.items.find(
      (i: { payload: { message?: string } }) => i.payload.message === 'Can I finish my level?',
    );
    assert.ok(item, JSON.stringify(list.body));
    assert.equal(item.linux_username, 'ben');
  });

  test('GET_POLICY serves the kept domain policy; a change is pushed to that account only (IPC and native host)', async () => {
    const ann = await connect(ANN);
    const ben = await connect(BEN);
    assert.deepEqual(await ann.request({ type: 'GET_POLICY' }), {
      id: 'r1',
      version: 0,
      block: [],
      allow: [],
      part: 0,
      parts: 1,
    });
    const host = nativeHost(ANN);
    host.send({ id: 7, type: 'GET_POLICY' });
    assert.deepEqual(await host.next((m) => m.id === 7), {
      id: 7,
      version: 0,
      block: [],
      allow: [],
      part: 0,
      parts: 1,
    });

    const child = (await home.client.post('/api/user/create', { name: 'Ann' })).body.id as string;
    const source = (
      await home.client.post('/blocklists/sources/add', {
        name: 'Games',
        kind: 'manual',
        domains: ['games.example'],
      })
    ).body.id as string;
    assert.equal(
      (await home.client.post(`/managed-users/${child}/blocklists/update`, { source_ids: [source] })).status,
      200,
    );
    const mapped = await home.client.post(`/managed-users/${child}/mappings/add`, {
      system_id: systemId,
      linux_username: 'ann',
    });
    assert.ok(mapped.status < 300, mapped.text);

    const pushed = await ann.next((l) => l.type === 'POLICY_CHANGED');
    assert.ok(Number(pushed.version) >= 1);
    const relayed = await host.next((m) => m.type === 'POLICY_CHANGED');
    assert.equal(relayed.version, pushed.version);
    const policy = await ann.request({ type: 'GET_POLICY' });
    assert.equal(policy.version, pushed.version);
    assert.ok((policy.block as string[]).includes('games.example'));
    assert.equal(policy.parts, 1);
    host.send({ id: 'p2', type: 'GET_POLICY', part: 0 });
    assert.deepEqual((await host.next((m) => m.id === 'p2')).block, policy.block);

    // Ben's connection heard nothing and still sees no policy.
    assert.deepEqual(await ben.request({ type: 'GET_POLICY' }), {
      id: 'r1',
      version: 0,
      block: [],
      allow: [],
      part: 0,
      parts: 1,
    });
    assert.ok(!ben.lines.some((l) => l.type === 'POLICY_CHANGED'));
  });

  test('a 200,000-domain policy crosses the native host in parts under 1 MiB, reassembled as the server serves it; a bad part is refused', async () => {
    const lists = await new ListServer().start();
    try {
      // Realistic names (as bench/src/blocklists.ts makes them): ~2.9 MiB of JSON, several parts.
      const tlds = ['com', 'net', 'org', 'io', 'de', 'info', 'co.uk', 'fr'];
      const domains = Array.from(
        { length: 200_000 },
        (_, i) =>
          `${i % 5 === 0 ? 'ads.' : ''}${(Math.imul(i, 2654435761) >>> 0).toString(36)}.${tlds[i % tlds.length]}`,
      );
      const url = lists.set('/big.txt', { body: hostsList(domains) });
      const source = await home.client.post('/blocklists/sources/add', { name: 'Big', kind: 'url', url });
      assert.equal(source.status, 201, source.text);
      const refreshed = await home.client.post(`/blocklists/sources/${source.body.id}/refresh`, {});
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(refreshed.body.source.domain_count, domains.length);

      const cat = await connect(CAT);
      const child = (await home.client.post('/api/user/create', { name: 'Cat' })).body.id as string;
      const assigned = await home.client.post(`/managed-users/${child}/blocklists/update`, {
        source_ids: [source.body.id],
        allow_domains: ['allowed.example'],
      });
      assert.equal(assigned.status, 200, assigned.text);
      const mapped = await home.client.post(`/managed-users/${child}/mappings/add`, {
        system_id: systemId,
        linux_username: 'cat',
      });
      assert.ok(mapped.status < 300, mapped.text);
      await cat.next((l) => l.type === 'POLICY_CHANGED');

      // What the extension's worker does: part 0 says how many parts; a new version starts again.
      const host = nativeHost(CAT);
      let asked = 0;
      const ask = async (part: number) => {
        const id = `part-${asked++}`;
        host.send({ id, type: 'GET_POLICY', part });
        return host.next((m) => m.id === id);
      };
      let block: string[] = [];
      let allow: string[] = [];
      let version = -1;
      let parts = 1;
      const sizes: number[] = [];
      for (let part = 0; part < parts; part++) {
        const answer = await ask(part);
        assert.notEqual(answer.ok, false, JSON.stringify(answer).slice(0, 200));
        if (part > 0 && answer.version !== version) {
          part = -1;
          block = [];
          allow = [];
          continue;
        }
        sizes.push(Buffer.byteLength(JSON.stringify(answer)));
        assert.equal(answer.part, part);
        ({ version, parts } = answer as { version: number; parts: number });
        block = block.concat(answer.block as string[]);
        allow = allow.concat(answer.allow as string[]);
      }
      assert.ok(parts >= 4, `${parts} parts`);
      for (const size of sizes) assert.ok(size < MAX_TO_CHROME && size < POLICY_PART_BYTES + 1024, `${size}`);

      const token = readFileSync(path.join(sys.stateDir, 'token'), 'utf8').trim();
      const served = await fetch(`${server.url}/api/agent/domain-policy?linux_username=cat`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(served.status, 200);
      const expected = (await served.json()) as { version: number; block: string[]; allow: string[] };
      assert.equal(expected.block.length, domains.length);
      assert.equal(version, expected.version);
      assert.deepEqual(block, expected.block);
      assert.deepEqual(allow, expected.allow);
      assert.deepEqual(allow, ['allowed.example']);

      for (const part of [parts, -1, 1.5, '1', null]) {
        host.send({ id: `bad-${String(part)}`, type: 'GET_POLICY', part });
        assert.deepEqual(await host.next((m) => m.id === `bad-${String(part)}`), {
          id: `bad-${String(part)}`,
          ok: false,
          error: 'invalid',
        });
      }
      assert.deepEqual(await cat.request({ type: 'GET_POLICY', part: parts }), {
        id: 'r1',
        ok: false,
        error: 'invalid',
      });
    } finally {
      await lists.close();
    }
  });

  test('the native host relays requests and answers in Chrome’s framing', async () => {
    const host = nativeHost(BEN);
    host.send({ id: 1, type: 'ACCESS_REQUEST', reason: 'filtered', message: 'I need this for school' });
    assert.deepEqual(await host.next((m) => m.id === 1), { id: 1, ok: true });
    host.send({ id: 2, type: 'CHECK_REGISTRATION', domain: 'accounts.example.com' });
    const checked = await host.next((m) => m.id === 2);
    assert.deepEqual(Object.keys(checked).sort(), ['allowed', 'id', 'pending']);
    assert.equal(typeof checked.allowed, 'boolean');
    host.send({
      id: 3,
      type: 'REQUEST_REGISTRATION',
      domain: 'accounts.example.com',
      url: 'https://accounts.example.com/signup',
    });
    const asked = await host.next((m) => m.id === 3);
    assert.equal(asked.ok, true);
    assert.equal(typeof asked.status, 'string');
    host.send({ id: 4, type: 'CHECK_REGISTRATION', domain: 'accounts.example.com' });
    const again = await host.next((m) => m.id === 4);
    assert.ok(again.allowed === true || again.pending === true, JSON.stringify(again));
    host.send({
      id: 5,
      type: 'LOGIN_DETECTED',
      domain: 'accounts.example.com',
      username: 'ben@example.com',
      password: 'hunter2',
    });
    assert.deepEqual(await host.next((m) => m.id === 5), { id: 5, ok: true });
    host.send({ id: 6, type: 'NOPE' });
    assert.deepEqual(await host.next((m) => m.id === 6), { id: 6, ok: false, error: 'unknown_type' });
    host.end();
    assert.equal(await host.exited, 0);
    const logins = await home.client.get('/api/online-accounts');
    assert.equal(logins.status, 200);
    assert.ok(JSON.stringify(logins.body).includes('ben@example.com'), 'the login reached the server');
    assert.ok(!JSON.stringify(logins.body).includes('hunter2'), 'the password did not');
  });

  test('the native host says agent_unreachable without a daemon, and leaves on garbage', async () => {
    const lonely = isRoot
      ? nativeHost(ANN, { HEARTH_AGENT_RUN_DIR: path.join(sys.root, 'no-such-run') })
      : nativeHost(ANN, { HEARTH_AGENT_IPC_SOCKET: path.join(sys.root, 'no-such.sock') });
    lonely.send({ id: 'x', type: 'GET_POLICY' });
    assert.deepEqual(await lonely.next((m) => m.id === 'x'), {
      id: 'x',
      ok: false,
      error: 'agent_unreachable',
    });
    lonely.end();
    assert.equal(await lonely.exited, 0);

    const oversized = nativeHost(ANN);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(2 * 1024 * 1024, 0);
    oversized.raw(head);
    assert.equal(await oversized.exited, 1);
    assert.match(oversized.stderr, /not native-messaging framing/);
    assert.doesNotMatch(oversized.stderr, /at .*\(/, 'no stack trace');

    const garbage = nativeHost(ANN);
    garbage.raw(Buffer.concat([Buffer.from([5, 0, 0, 0]), Buffer.from('{oops')]));
    assert.equal(await garbage.exited, 1);
  });
});
