// The agent's end of DESIGN §5: one WebSocket to the server's /ws, `hello`, pairing, commands and
// pushes, reconnecting with jittered exponential back-off. A frame that is not what the contract says
// is logged and ignored; the daemon never dies of what the server sends.
import { EventEmitter } from 'node:events';
import { CLOSE_CODES, WS_MAX_FRAME_BYTES } from '@hearth/protocol';
import WebSocket from 'ws';
import type { Logger } from './log.js';

export type Frame = { type: string } & Record<string, unknown>;
export type CommandHandler = (args: Record<string, unknown>) => unknown;

export interface HelloFields {
  system_id: string;
  hostname: string;
  platform: 'linux';
  agent_version: string;
  linux_users: { username: string; display_name?: string }[];
}

export interface ChannelOptions {
  wsUrl: string;
  log: Logger;
  hello: () => HelloFields;
  /** The device token, or null while the device waits for approval. */
  secureToken: () => string | null;
  enrollmentToken: () => string | null;
  backoff?: { baseMs: number; maxMs: number };
}

export interface ChannelEvents {
  authenticated: [];
  disconnected: [code: number];
  pending: [];
  approved: [token: string];
  rejected: [code: number, reason: string];
}

/** Connected this long, the next drop starts the back-off again from its base. */
const STABLE_MS = 30_000;

export class Channel extends EventEmitter<ChannelEvents> {
  private ws: WebSocket | null = null;
  private authed = false;
  private stopped = true;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private openedAt = 0;
  private readonly commands = new Map<string, CommandHandler>();
  private readonly pushes = new Map<string, (frame: Frame) => void>();

  constructor(private readonly options: ChannelOptions) {
    super();
  }

  get authenticated(): boolean {
    return this.authed;
  }

  onCommand(name: string, handler: CommandHandler): void {
    this.commands.set(name, handler);
  }

  onPush(type: string, handler: (frame: Frame) => void): void {
    this.pushes.set(type, handler);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'agent stopping');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000).unref();
    });
  }

  /** Says hello again on a new socket (the accounts changed); the usual back-off applies. */
  reconnect(reason: string): void {
    this.ws?.close(1000, reason);
  }

  /** Sends on the authenticated socket; resolves once the socket took the frame. */
  send(frame: Frame): Promise<void> {
    const ws = this.ws;
    if (!ws || !this.authed || ws.readyState !== WebSocket.OPEN)
      return Promise.reject(new Error('not connected'));
    return new Promise((resolve, reject) =>
      ws.send(JSON.stringify(frame), (err) => (err ? reject(err) : resolve())),
    );
  }

  private connect(): void {
    if (this.stopped) return;
    const { log } = this.options;
    const ws = new WebSocket(this.options.wsUrl, {
      maxPayload: WS_MAX_FRAME_BYTES,
      handshakeTimeout: 15_000,
    });
    this.ws = ws;
    this.authed = false;
    ws.on('open', () => {
      this.openedAt = Date.now();
      const token = this.options.secureToken();
      const enrollment = token ? null : this.options.enrollmentToken();
      if (!token && !enrollment) {
        log.error('no device token and no enrolment token: run "hearth-agent enroll" again');
        ws.close(1000);
        return;
      }
      ws.send(
        JSON.stringify({
          type: 'hello',
          ...this.options.hello(),
          ...(token ? { secure_token: token } : { enrollment_token: enrollment }),
        }),
      );
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return log.warn('binary frame from the server ignored');
      let frame: Frame;
      try {
        frame = JSON.parse(data.toString());
        if (!frame || typeof frame !== 'object' || typeof frame.type !== 'string') throw new Error('no type');
      } catch {
        return log.warn('unreadable frame from the server ignored', { bytes: (data as Buffer).length });
      }
      this.receive(ws, frame);
    });
    ws.on('error', (err) => log.debug('channel error', { err }));
    ws.on('close', (code, reasonBuf) => {
      if (this.ws !== ws) return;
      const was = this.authed;
      this.authed = false;
      this.ws = null;
      const reason = reasonBuf.toString();
      if (was || code !== 1006) log.info('disconnected from the server', { code, reason });
      this.emit('disconnected', code);
      if (code === CLOSE_CODES.authFailed || code === CLOSE_CODES.deviceRejected)
        this.emit('rejected', code, reason);
      if (Date.now() - this.openedAt > STABLE_MS && this.openedAt) this.attempt = 0;
      this.schedule(
        code === CLOSE_CODES.authFailed ||
          code === CLOSE_CODES.deviceRejected ||
          code === CLOSE_CODES.tooMany,
      );
    });
  }

  private schedule(slow: boolean): void {
    if (this.stopped) return;
    const { baseMs, maxMs } = this.options.backoff ?? { baseMs: 1000, maxMs: 60_000 };
    const ceiling = slow ? maxMs : Math.min(maxMs, baseMs * 2 ** Math.min(this.attempt, 20));
    this.attempt++;
    // Full jitter in the upper half: a town's agents coming back after an outage spread out.
    const delay = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private receive(ws: WebSocket, frame: Frame): void {
    const { log } = this.options;
    switch (frame.type) {
      case 'auth_result':
        if (frame.success === true) this.becomeAuthenticated();
        else log.error('the server refused the device token');
        return;
      case 'pairing_status':
        if (frame.status === 'pending') {
          log.info('waiting for a parent to approve this device');
          this.emit('pending');
        } else if (frame.status === 'rejected') log.error('a parent rejected this device');
        return;
      case 'pairing_approved': {
        const token = frame.secure_token;
        if (typeof token !== 'string') {
          log.warn('pairing_approved without a token ignored');
          return;
        }
        this.emit('approved', token);
        this.becomeAuthenticated();
        return;
      }
      case 'command_request':
        void this.runCommand(ws, frame);
        return;
      default: {
        const push = this.pushes.get(frame.type);
        if (!push) {
          log.debug('frame of unknown type ignored', { type: frame.type });
          return;
        }
        try {
          push(frame);
        } catch (err) {
          log.warn('push handler failed', { type: frame.type, err });
        }
      }
    }
  }

  private becomeAuthenticated(): void {
    if (this.authed) return;
    this.authed = true;
    this.options.log.info('connected to the server');
    this.emit('authenticated');
  }

  private async runCommand(ws: WebSocket, frame: Frame): Promise<void> {
    const requestId = frame.request_id;
    if (typeof requestId !== 'string' || typeof frame.command !== 'string') {
      return this.options.log.warn('command_request without request_id or command ignored');
    }
    const args =
      frame.args && typeof frame.args === 'object' && !Array.isArray(frame.args)
        ? (frame.args as Record<string, unknown>)
        : {};
    const handler = this.commands.get(frame.command);
    let answer: Frame;
    if (!handler) {
      answer = {
        type: 'command_response',
        request_id: requestId,
        success: false,
        error: `unsupported command: ${frame.command}`,
      };
    } else {
      try {
        const data = await handler(args);
        answer = {
          type: 'command_response',
          request_id: requestId,
          success: true,
          ...(data === undefined ? {} : { data }),
        };
      } catch (err) {
        this.options.log.warn('command failed', { command: frame.command, err });
        answer = {
          type: 'command_response',
          request_id: requestId,
          success: false,
          error: (err as Error).message ?? String(err),
        };
      }
    }
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(answer));
  }
}
