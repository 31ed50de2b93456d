// A loopback stand-in for the Hearth server, for agent tests of commands the real server does not send
// on demand: the /ws channel (authenticates any device token, records every frame, sends commands), and
// the few bearer routes those commands use, each recording what it was sent.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { writeIdentity, writeToken } from '../src/identity.js';
import { createLogger } from '../src/log.js';
import { StateStore } from '../src/state.js';
import { Conditions, type Sysroot } from './harness.js';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Route = (req: RecordedRequest, res: ServerResponse) => void;

export class FakeHearth {
  readonly http: Server;
  readonly wss: WebSocketServer;
  readonly frames: Record<string, unknown>[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly token = randomBytes(32).toString('hex');
  readonly routes = new Map<string, Route>();
  private socket: WebSocket | null = null;
  private readonly conditions = new Conditions();
  private next = 1;

  constructor() {
    this.http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const recorded = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks),
        };
        this.requests.push(recorded);
        this.conditions.wake();
        const route = this.routes.get(`${recorded.method} ${recorded.url.split('?')[0]}`);
        if (route && req.headers.authorization === `Bearer ${this.token}`) return route(recorded, res);
        res.writeHead(route ? 401 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: route ? 'unauthorized' : 'not_found', message: 'no' } }));
      });
    });
    this.wss = new WebSocketServer({ server: this.http, path: '/ws' });
    this.wss.on('connection', (ws) => {
      ws.on('close', () => {
        if (this.socket === ws) this.socket = null;
      });
      ws.on('message', (data) => {
        const frame = JSON.parse(data.toString()) as Record<string, unknown>;
        if (frame.type === 'hello') {
          const ok = frame.secure_token === this.token;
          ws.send(JSON.stringify({ type: 'auth_result', success: ok, system_id: frame.system_id }));
          if (ok) this.socket = ws;
          else ws.close(4401, 'authentication failed');
        } else this.frames.push(frame);
        this.conditions.wake();
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  /** Enrols `sys` with this server: an identity and a device token in its state directory. */
  enrol(sys: Sysroot): void {
    const state = new StateStore(sys.stateDir, createLogger('error'));
    state.ensure();
    writeIdentity(state, { server_url: this.url, system_id: randomUUID() });
    writeToken(state, this.token);
  }

  json(method: string, path: string, answer: (req: RecordedRequest) => [number, unknown]): void {
    this.routes.set(`${method} ${path}`, (req, res) => {
      const [status, body] = answer(req);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  }

  /**
   * Resolves once `test` holds, checked at every frame and request; fails after WAIT_BOUND_MS (an agent
   * that crashed or a frame that never comes), naming `what`.
   */
  until(test: () => boolean, what = 'a frame or request'): Promise<void> {
    return this.conditions.until(test, what);
  }

  /** Sends a command on the authenticated socket; resolves with the agent's command_response. */
  async command(command: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.until(() => this.socket !== null, 'the agent to connect');
    const request_id = `cmd-${this.next++}`;
    this.socket?.send(JSON.stringify({ type: 'command_request', request_id, command, args }));
    const answered = () =>
      this.frames.find((f) => f.type === 'command_response' && f.request_id === request_id);
    await this.until(() => !!answered(), `the answer to ${command}`);
    return answered() as Record<string, unknown>;
  }

  /** The first frame after index `from` that passes `test`. */
  async frame(test: (f: Record<string, unknown>) => boolean, from = 0): Promise<Record<string, unknown>> {
    const find = () => this.frames.slice(from).find(test);
    await this.until(() => !!find(), 'a frame from the agent');
    return find() as Record<string, unknown>;
  }

  async close(): Promise<void> {
    for (const s of this.wss.clients) s.terminate();
    await new Promise<void>((r) => this.wss.close(() => r()));
    await new Promise<void>((r) => this.http.close(() => r()));
  }
}
