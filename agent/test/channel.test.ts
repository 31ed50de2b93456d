import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type WebSocket, WebSocketServer } from 'ws';
import { writeIdentity, writeToken } from '../src/identity.js';
import { createLogger } from '../src/log.js';
import { StateStore } from '../src/state.js';
import { AgentProcess, agentEnv, Conditions, makeSysroot, type Sysroot } from './harness.js';

/** A server that speaks just enough of DESIGN §5 to authenticate, then does what each test tells it. */
class FakeServer {
  readonly wss: WebSocketServer;
  readonly hellos: Record<string, unknown>[] = [];
  readonly frames: Record<string, unknown>[] = [];
  sockets: WebSocket[] = [];
  private readonly conditions = new Conditions();
  onHello: (ws: WebSocket, hello: Record<string, unknown>) => void = (ws) =>
    ws.send(JSON.stringify({ type: 'auth_result', success: true }));

  constructor() {
    this.wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws' });
    this.wss.on('connection', (ws) => {
      this.sockets.push(ws);
      ws.on('message', (data) => {
        const frame = JSON.parse(data.toString());
        if (frame.type === 'hello') {
          this.hellos.push(frame);
          this.onHello(ws, frame);
        } else this.frames.push(frame);
        this.conditions.wake();
      });
      this.conditions.wake();
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  latest(): WebSocket {
    return this.sockets[this.sockets.length - 1] as WebSocket;
  }

  /** Resolves once `test` holds, checked at every frame; fails after WAIT_BOUND_MS. */
  until(test: () => boolean): Promise<void> {
    return this.conditions.until(test, 'a frame');
  }

  close(): Promise<void> {
    for (const s of this.wss.clients) s.terminate();
    return new Promise((r) => this.wss.close(() => r()));
  }
}

describe('the agent channel survives a server that misbehaves', () => {
  let fake: FakeServer;
  let sys: Sysroot;
  let agent: AgentProcess;
  const token = randomBytes(32).toString('hex');

  before(async () => {
    fake = new FakeServer();
    await new Promise((r) => fake.wss.once('listening', r));
    sys = makeSysroot([{ username: 'ann', uid: 1000 }]);
    const state = new StateStore(sys.stateDir, createLogger('error'));
    state.ensure();
    writeIdentity(state, { server_url: fake.url, system_id: randomUUID() });
    writeToken(state, token);
    agent = new AgentProcess(['run'], agentEnv(sys));
  });
  after(async () => {
    await agent?.stop();
    await fake?.close();
    sys?.cleanup();
  });

  test('hello carries the device token, the accounts and the version', async () => {
    await agent.waitForLog('connected to the server');
    const hello = fake.hellos[0] as Record<string, unknown>;
    assert.equal(hello.secure_token, token);
    assert.equal(hello.platform, 'linux');
    assert.deepEqual(hello.linux_users, [{ username: 'ann' }]);
    assert.ok(!agent.stderr.includes(token), 'the token is not logged');
  });

  test('garbage frames are logged and ignored; commands keep working', async () => {
    const ws = fake.latest();
    ws.send('not json at all');
    ws.send('{"no":"type"}');
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    ws.send(JSON.stringify({ type: 'command_request', command: 'show_overlay' }));
    ws.send(JSON.stringify({ type: 'command_request', request_id: 'r1', command: 'make_coffee', args: {} }));
    await fake.until(() => fake.frames.some((f) => f.request_id === 'r1'));
    const answer = fake.frames.find((f) => f.request_id === 'r1') as Record<string, unknown>;
    assert.equal(answer.success, false);
    assert.match(String(answer.error), /unsupported command/);
    assert.ok(agent.lines.some((l) => l.msg === 'unreadable frame from the server ignored'));
    assert.ok(agent.lines.some((l) => l.msg === 'binary frame from the server ignored'));
    assert.equal(fake.sockets.length, 1, 'no reconnect was needed');
  });

  test('a frame over 1 MiB closes the socket and the agent comes back', async () => {
    const before = fake.hellos.length;
    fake.latest().send(JSON.stringify({ type: 'time_status', pad: 'x'.repeat(1024 * 1024 + 10) }));
    await fake.until(() => fake.hellos.length > before);
    assert.equal(agent.exitCode, null);
  });

  test('a socket cut in the middle of a frame: the agent reconnects', async () => {
    const before = fake.hellos.length;
    const raw = (fake.latest() as unknown as { _socket: import('node:net').Socket })._socket;
    // A text frame header announcing 100 bytes, then only 3 of them, then the connection drops.
    raw.write(Buffer.from([0x81, 100, 0x7b, 0x22, 0x74]));
    raw.destroy();
    await fake.until(() => fake.hellos.length > before);
    await agent.waitForLog('connected to the server', () => fake.hellos.length > before);
  });

  test('a refused token: the agent says so and retries at its slowest pace, without crashing', async () => {
    const before = fake.hellos.length;
    fake.onHello = (ws) => {
      ws.send(JSON.stringify({ type: 'auth_result', success: false }));
      ws.close(4401, 'authentication failed');
    };
    fake.latest().close(1012, 'restart');
    await fake.until(() => fake.hellos.length >= before + 2);
    assert.ok(agent.lines.some((l) => l.msg === 'the server refused the device token'));
    assert.equal(agent.exitCode, null);
  });
});
