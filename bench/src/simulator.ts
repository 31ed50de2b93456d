import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';

/** A frame from the server: one JSON object with a type. */
export type Frame = { type: string } & Record<string, unknown>;

export interface CommandReply {
  success: boolean;
  data?: unknown;
  error?: unknown;
}

export interface SimAgentOptions {
  /** ws:// URL of the Hearth agent channel. */
  url: string;
  systemId?: string;
  hostname?: string;
  platform?: 'linux' | 'windows' | 'android' | 'xbox' | 'nintendo';
  agentVersion?: string;
  linuxUsers?: { username: string; display_name?: string }[];
  enrollmentToken?: string;
  secureToken?: string;
  /**
   * How the agent answers command_request; default: success with `{queued:true}` for refresh,
   * `{applied_version}` for set_time_policy, else `{}`.
   */
  respond?: (command: string, args: Record<string, unknown>) => CommandReply | Promise<CommandReply>;
  /** Reconnect after an unexpected close, with jittered exponential back-off. */
  reconnect?: boolean;
  backoffMs?: { base: number; max: number };
  /** Keep every received frame in `frames` (tests); off for large fleets. */
  record?: boolean;
  /** Source address for the socket (large fleets spread over 127.0.0.x to have ports enough). */
  localAddress?: string;
}

export interface CloseInfo {
  code: number;
  reason: string;
}

/**
 * A simulated Hearth agent: says hello, enrolls or authenticates, keeps the token it is given,
 * answers commands, and reconnects with jittered back-off when the server goes away.
 */
export class SimAgent extends EventEmitter {
  readonly systemId: string;
  secureToken: string | undefined;
  state: 'idle' | 'connecting' | 'pending' | 'authenticated' | 'closed' = 'idle';
  readonly frames: Frame[] = [];
  commandsAnswered = 0;
  connects = 0;
  lastClose: CloseInfo | null = null;
  private ws: WebSocket | null = null;
  private stopped = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: SimAgentOptions) {
    super();
    this.setMaxListeners(0);
    this.systemId = options.systemId ?? randomUUID();
    this.secureToken = options.secureToken;
  }

  get socket(): WebSocket | null {
    return this.ws;
  }

  hello(): Frame {
    return {
      type: 'hello',
      system_id: this.systemId,
      hostname: this.options.hostname ?? `sim-${this.systemId.slice(0, 8)}`,
      platform: this.options.platform ?? 'linux',
      agent_version: this.options.agentVersion ?? '0.57.0',
      linux_users: this.options.linuxUsers ?? [{ username: 'kid' }],
      ...(this.secureToken
        ? { secure_token: this.secureToken }
        : { enrollment_token: this.options.enrollmentToken }),
    };
  }

  /**
   * Opens the socket and says hello; resolves with the server's answer (auth_result, pairing_status or
   * pairing_approved), or `{type:'closed', code, reason}` when the socket closed first.
   */
  connect(): Promise<Frame> {
    this.stopped = false;
    this.state = 'connecting';
    this.connects += 1;
    const ws = new WebSocket(this.options.url, {
      perMessageDeflate: false,
      localAddress: this.options.localAddress,
    });

    this.ws = ws;
    const answered = new Promise<Frame>((resolve) => {
      const onFrame = (frame: Frame) => {
        if (
          frame.type === 'auth_result' ||
          frame.type === 'pairing_status' ||
          frame.type === 'pairing_approved'
        ) {
          this.off('frame', onFrame);
          this.off('close', onClose);
          resolve(frame);
        }
      };
      const onClose = (info: CloseInfo) => {
        this.off('frame', onFrame);
        resolve({ type: 'closed', ...info });
      };
      this.on('frame', onFrame);
      this.once('close', onClose);
    });
    ws.on('open', () => ws.send(JSON.stringify(this.hello())));
    ws.on('message', (data) => this.onFrame(data.toString()));
    ws.on('close', (code, reason) => this.onClose(ws, code, reason.toString()));
    ws.on('error', (err) => this.emit('socket_error', err));
    return answered;
  }

  private onFrame(text: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(text) as Frame;
    } catch {
      return;
    }
    if (this.options.record !== false) this.frames.push(frame);
    if (frame.type === 'auth_result' && frame.success) {
      this.state = 'authenticated';
      this.attempt = 0;
    } else if (frame.type === 'pairing_status' && frame.status === 'pending') {
      this.state = 'pending';
    } else if (frame.type === 'pairing_approved') {
      this.secureToken = String(frame.secure_token);
      this.state = 'authenticated';
      this.attempt = 0;
    } else if (frame.type === 'command_request') {
      void this.answer(frame);
    }
    this.emit('frame', frame);
  }

  private async answer(frame: Frame): Promise<void> {
    const command = String(frame.command);
    const args = (frame.args ?? {}) as Record<string, unknown>;
    const reply = this.options.respond
      ? await this.options.respond(command, args)
      : {
          success: true,
          data:
            command === 'refresh_installed_apps'
              ? { queued: true }
              : command === 'set_time_policy'
                ? { applied_version: args.version }
                : {},
        };
    this.commandsAnswered += 1;
    this.send({ type: 'command_response', request_id: frame.request_id, ...reply });
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return;
    this.lastClose = { code, reason };
    this.state = 'closed';
    this.emit('close', this.lastClose);
    // 4401/4403 are final answers; anything else is worth another try.
    if (this.options.reconnect && !this.stopped && code !== 4401 && code !== 4403) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const { base, max } = this.options.backoffMs ?? { base: 500, max: 30_000 };
    const ceiling = Math.min(max, base * 2 ** this.attempt);
    this.attempt += 1;
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) void this.connect();
    }, delay);
  }

  send(message: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN)
      this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /**
   * Waits for the next frame that matches; start waiting before the action that causes it. The bound is
   * generous: tests run on two busy cores.
   */
  waitFor(match: string | ((frame: Frame) => boolean), timeoutMs = 15_000): Promise<Frame> {
    const test = typeof match === 'string' ? (f: Frame) => f.type === match : match;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('frame', onFrame);
        reject(
          new Error(`no matching frame within ${timeoutMs} ms (last: ${JSON.stringify(this.frames.at(-1))})`),
        );
      }, timeoutMs);
      const onFrame = (frame: Frame) => {
        if (!test(frame)) return;
        clearTimeout(timer);
        this.off('frame', onFrame);
        resolve(frame);
      };
      this.on('frame', onFrame);
    });
  }

  waitForClose(timeoutMs = 15_000): Promise<CloseInfo> {
    if (this.state === 'closed' && this.lastClose) return Promise.resolve(this.lastClose);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`socket still open after ${timeoutMs} ms`)), timeoutMs);
      this.once('close', (info: CloseInfo) => {
        clearTimeout(timer);
        resolve(info);
      });
    });
  }

  /** Closes for good (no reconnect). */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'bye');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000).unref();
    });
  }

  /** Drops the connection without a closing handshake, as a lost network would. */
  drop(): void {
    this.ws?.terminate();
  }
}

/** Starts many agents with bounded concurrency; returns them once each has its first answer. */
export async function startFleet(
  count: number,
  make: (i: number) => SimAgentOptions,
  concurrency = 200,
): Promise<SimAgent[]> {
  const agents = Array.from({ length: count }, (_, i) => new SimAgent(make(i)));
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < agents.length) {
        const agent = agents[next++];
        if (agent) await agent.connect();
      }
    }),
  );
  return agents;
}

/** Says hello on every agent with at most `concurrency` handshakes in flight; resolves when all have answers. */
export async function connectAll(
  list: SimAgent[],
  concurrency: number,
): Promise<{ authenticated: number; failed: number }> {
  let next = 0;
  let authenticated = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, list.length) }, async () => {
      while (next < list.length) {
        const agent = list[next++];
        if (!agent) continue;
        const answer: Frame = await agent.connect().catch(() => ({ type: 'closed' }));
        if (answer.type === 'auth_result' && answer.success === true) authenticated++;
        else failed++;
      }
    }),
  );
  return { authenticated, failed };
}
