import {
  CLOSE_CODES,
  FRAME_BURST,
  FRAME_BYTES_BURST,
  FRAME_BYTES_PER_SECOND,
  FRAME_RATE_PER_SECOND,
  HelloMessage,
  MAX_REFUSED_FRAMES_PER_MINUTE,
  WS_SILENCE_LIMIT_MS,
} from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { WebSocket } from 'ws';
import type { Bus } from '../platform/bus.js';
import { nowIso } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Database } from '../platform/db/schema.js';
import { compileStrict, describeErrors } from '../platform/validate.js';
import {
  abandonWaiting,
  type Connection,
  closeSocket,
  newConnection,
  sendError,
  sendFrame,
} from './connection.js';
import { deliverQueued, flushQueue } from './delivery.js';
import { type Frame, MessageRegistry, parseFrame, REFUSED } from './dispatch.js';
import { Liveness } from './liveness.js';
import { PresenceRepository } from './presence-repository.js';
import type { CommandQueue } from './queue.js';
import { type InstanceMessage, instanceTopic, RemoteCommands, requestOn, takeResponse } from './rpc.js';
import {
  type AnsweredHandler,
  type AuthenticatedDevice,
  type ChannelTimings,
  type CommandResult,
  DEFAULT_TIMINGS,
  type Decision,
  type Handshake,
  type HandshakeSocket,
} from './types.js';

const validateHello = compileStrict<HelloMessage>(HelloMessage);

/** Reading a socket pauses while this many frames (or bytes) wait to be handled, and resumes when none do. */
const BACKLOG_FRAMES = 64;
const MiB = 1024 * 1024;
const BACKLOG_BYTES = 4 * MiB;

/** Takes one frame of `bytes` from the socket's budget; false when either bucket runs dry. */
function takeFrame(conn: Connection, now: number, bytes: number): boolean {
  const elapsed = now - conn.refilledAt;
  if (elapsed > 0) {
    conn.tokens = Math.min(FRAME_BURST, conn.tokens + (elapsed * FRAME_RATE_PER_SECOND) / 1000);
    conn.byteTokens = Math.min(
      FRAME_BYTES_BURST,
      conn.byteTokens + (elapsed * FRAME_BYTES_PER_SECOND) / 1000,
    );
    conn.refilledAt = now;
  }
  conn.tokens -= 1;
  conn.byteTokens -= bytes;
  return conn.tokens >= 0 && conn.byteTokens >= 0;
}

/**
 * The agent channel (docs/protocol.md): this instance's agent sockets, their liveness, frame
 * dispatch to the messages features register, the command RPC, and the route to sockets other
 * instances hold. What a hello means is the devices feature's handshake.
 */
export class AgentChannel {
  readonly instanceId = newId();
  private readonly connections = new Map<string, Connection>();
  private readonly unidentified = new Set<Connection>();
  private readonly messages = new MessageRegistry();
  private readonly answered: AnsweredHandler[] = [];
  private readonly presence: PresenceRepository;
  private readonly remote: RemoteCommands;
  private readonly liveness: Liveness;
  private handshake: Handshake | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private closed = false;
  /** The channel's clock; features read the parts that are theirs (the report abandon time). */
  readonly timings: ChannelTimings;

  constructor(
    db: Kysely<Database>,
    private readonly bus: Bus,
    private readonly queue: CommandQueue,
    private readonly log: FastifyBaseLogger,
    timings: Partial<ChannelTimings> = {},
  ) {
    this.timings = { ...DEFAULT_TIMINGS, ...timings };
    this.presence = new PresenceRepository(db);
    this.remote = new RemoteCommands(bus, this.instanceId);
    this.liveness = new Liveness(this.timings, this.presence, log);
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(instanceTopic(this.instanceId), (m) =>
      this.onInstanceMessage(m as InstanceMessage),
    );
    this.sweeper = setInterval(
      () => this.liveness.sweep(this.unidentified, this.connections),
      this.timings.sweepMs,
    );
    this.sweeper.unref();
  }

  /** The devices feature decides what a hello means; there is exactly one handshake. */
  setHandshake(handshake: Handshake): void {
    this.handshake = handshake;
  }

  /** Features add agent message types here (docs/protocol.md, "Adding an agent message"). */
  readonly on: MessageRegistry['on'] = (type, schema, handler, onInvalid) =>
    this.messages.on(type, schema, handler, onInvalid);

  onAnswered(handler: AnsweredHandler): void {
    this.answered.push(handler);
  }

  isLocal(systemId: string): boolean {
    return this.connections.get(systemId)?.state === 'authenticated';
  }

  /**
   * Online anywhere: held here, or held by the instance the database names and heard from within the
   * silence limit (an instance that died without cleaning up stops counting after that).
   */
  isOnline(row: {
    system_id: string;
    status: string;
    connected_instance?: string | null;
    last_seen_at: string | null;
  }): boolean {
    if (row.status === 'rejected' || row.status === 'unenrolled') return false;
    if (this.connections.has(row.system_id)) return true;
    const seen = row.last_seen_at ? Date.parse(row.last_seen_at) : 0;
    return (
      !!row.connected_instance &&
      row.connected_instance !== this.instanceId &&
      Date.now() - seen < this.timings.silenceMs
    );
  }

  get size(): number {
    return this.connections.size + this.unidentified.size;
  }

  accept(ws: WebSocket, address: string): void {
    // The channel closes before the listener does; an agent that reconnects in between is told to go, or
    // its open socket would hold the server's close for ever.
    if (this.closed) {
      ws.close(1001, 'server shutting down');
      return;
    }
    const conn = newConnection(ws, address);
    this.unidentified.add(conn);
    ws.on('message', (data, isBinary) => {
      // What follows a close (the rest of a flood) costs nothing more.
      if (conn.state === 'closing') return;
      const now = Date.now();
      conn.lastSeen = now;
      const bytes = (data as Buffer).length;
      if (!takeFrame(conn, now, bytes))
        return closeSocket(
          conn,
          CLOSE_CODES.tooMany,
          `too many frames: at most ${FRAME_BURST} (${FRAME_BYTES_BURST / MiB} MiB) at once, ${FRAME_RATE_PER_SECOND} (${FRAME_BYTES_PER_SECOND / MiB} MiB) a second`,
        );
      if (isBinary) return closeSocket(conn, CLOSE_CODES.badMessage, 'binary frames are not accepted');
      conn.backlog += 1;
      conn.backlogBytes += bytes;
      if (conn.backlog > BACKLOG_FRAMES || conn.backlogBytes > BACKLOG_BYTES) ws.pause();
      const text = data.toString();
      // One agent's frames are handled in the order they came (a usage total, then the next one).
      conn.chain = conn.chain
        .then(() => this.onMessage(conn, text))
        .catch((err) => {
          this.log.error({ err, system_id: conn.systemId }, 'agent message failed');
          sendError(conn, 'internal_error', 'The server could not handle that message.');
        })
        .then(() => {
          conn.backlog -= 1;
          conn.backlogBytes -= bytes;
          if (conn.backlog === 0 && ws.isPaused) ws.resume();
        });
    });
    ws.on('pong', () => {
      conn.lastSeen = Date.now();
    });
    ws.on('close', () => this.onClose(conn));
    ws.on('error', () => {});
  }

  private async onMessage(conn: Connection, text: string): Promise<void> {
    if (conn.state === 'closing') return;
    const frame = parseFrame(text);
    if (typeof frame === 'string') return closeSocket(conn, CLOSE_CODES.badMessage, frame);
    if (conn.state === 'hello') {
      if (frame.type !== 'hello')
        return closeSocket(conn, CLOSE_CODES.badMessage, 'the first frame must be hello');
      return this.onHello(conn, frame);
    }
    if (frame.type === 'hello')
      return this.refuse(conn, 'duplicate_hello', 'hello was already received on this socket.');
    // Answers are taken from any socket that was asked something (an unenrolled agent answers its unenroll).
    if (frame.type === 'command_response') {
      if (takeResponse(conn, frame) === REFUSED) this.countRefusal(conn);
      return;
    }
    if (conn.state !== 'authenticated') {
      return this.refuse(conn, 'not_paired', 'This device is waiting for a parent to approve it.');
    }
    const handler = this.messages.get(frame.type);
    if (!handler) return this.refuse(conn, 'unknown_type', `Unknown message type "${frame.type}".`);
    if ((await handler(this.deviceOf(conn), frame)) === REFUSED) this.countRefusal(conn);
  }

  /** Answers a frame the channel will not take, and counts it against the socket. */
  private refuse(conn: Connection, code: string, message: string): void {
    sendError(conn, code, message);
    this.countRefusal(conn);
  }

  /** A socket that keeps sending what is refused is closed 4400 (docs/protocol.md, "Budgets"). */
  private countRefusal(conn: Connection): void {
    const now = Date.now();
    if (now - conn.refusedSince >= 60_000) {
      conn.refused = 0;
      conn.refusedSince = now;
    }
    conn.refused += 1;
    if (conn.refused > MAX_REFUSED_FRAMES_PER_MINUTE)
      closeSocket(
        conn,
        CLOSE_CODES.badMessage,
        `too many refused frames: more than ${MAX_REFUSED_FRAMES_PER_MINUTE} in a minute`,
      );
  }

  private deviceOf(conn: Connection): AuthenticatedDevice {
    return {
      systemId: conn.systemId ?? '',
      householdId: conn.householdId ?? '',
      linuxUsers: conn.linuxUsers ?? new Set(),
      platform: conn.platform,
      send: (message) => sendFrame(conn, message),
    };
  }

  private async onHello(conn: Connection, frame: Frame): Promise<void> {
    if (!validateHello(frame))
      return closeSocket(
        conn,
        CLOSE_CODES.badMessage,
        `invalid hello: ${describeErrors(validateHello.errors)}`,
      );
    if (!this.handshake) throw new Error('The agent channel has no handshake.');
    conn.state = 'pending'; // no second hello while this one is checked
    await this.handshake.hello(this.socketOf(conn), frame as HelloMessage);
  }

  /** The primitives a handshake gets for one socket. */
  private socketOf(conn: Connection): HandshakeSocket {
    return {
      instanceId: this.instanceId,
      address: conn.address,
      get state() {
        return conn.state;
      },
      get systemId() {
        return conn.systemId;
      },
      get householdId() {
        return conn.householdId;
      },
      send: (message) => sendFrame(conn, message),
      close: (code, reason) => closeSocket(conn, code, reason),
      bind: (systemId, householdId, hello, state) => this.bind(conn, systemId, householdId, hello, state),
      authenticate: () => {
        conn.state = 'authenticated';
      },
      flushQueue: () => this.detach(flushQueue(conn, this.queue, this.answered)),
      deliverQueued: (systemId, command, timeoutMs) =>
        deliverQueued(conn, this.queue, systemId, command, timeoutMs),
      detach: (work) => this.detach(work),
    };
  }

  private bind(
    conn: Connection,
    systemId: string,
    householdId: string,
    hello: Pick<HelloMessage, 'linux_users' | 'platform'>,
    state: 'pending' | 'authenticated',
  ): void {
    this.unidentified.delete(conn);
    const previous = this.connections.get(systemId);
    if (previous && previous !== conn) {
      this.connections.delete(systemId);
      closeSocket(previous, 1000, 'replaced by a newer connection');
    }
    conn.systemId = systemId;
    conn.householdId = householdId;
    conn.linuxUsers = new Set(hello.linux_users.map((u) => u.username));
    conn.platform = hello.platform;
    conn.state = state;
    this.connections.set(systemId, conn);
  }

  private detach(work: Promise<unknown>): void {
    work.catch((err) => this.log.error({ err }, 'agent channel task failed'));
  }

  private onClose(conn: Connection): void {
    this.unidentified.delete(conn);
    abandonWaiting(conn);
    const { systemId, householdId } = conn;
    if (!systemId || this.connections.get(systemId) !== conn) return;
    this.connections.delete(systemId);
    if (this.closed) return;
    this.presence
      .markDisconnected(systemId, this.instanceId, nowIso())
      .catch((err) => this.log.warn({ err }, 'could not mark device offline'));
    if (householdId) this.handshake?.disconnected(systemId, householdId);
  }

  /** Sends a command to a socket held here and waits for its answer. */
  private rpcLocal(systemId: string, command: string, args: Record<string, unknown>): Promise<CommandResult> {
    const conn = this.connections.get(systemId);
    if (conn?.state !== 'authenticated') return Promise.resolve({ status: 'offline' });
    return requestOn(conn, command, args);
  }

  /** Sends a command wherever the device's socket is: here, or on the instance the database names. */
  async rpc(systemId: string, command: string, args: Record<string, unknown>): Promise<CommandResult> {
    if (this.isLocal(systemId)) return this.rpcLocal(systemId, command, args);
    const device = await this.presence.holder(systemId);
    const holder = device?.connected_instance;
    const fresh = device?.last_seen_at && Date.now() - Date.parse(device.last_seen_at) < WS_SILENCE_LIMIT_MS;
    if (!holder || holder === this.instanceId || !fresh) return { status: 'offline' };
    return this.remote.send(holder, systemId, command, args);
  }

  /**
   * Sends a frame that needs no answer (a push such as `time_status`) to an authenticated device,
   * here or on the instance that holds its socket; a device offline everywhere misses it.
   */
  async push(systemId: string, frame: Record<string, unknown>): Promise<void> {
    if (this.isLocal(systemId)) return this.pushLocal(systemId, frame);
    const device = await this.presence.holder(systemId);
    const holder = device?.connected_instance;
    if (!holder || holder === this.instanceId) return;
    await this.bus.publish(instanceTopic(holder), {
      kind: 'frame',
      system_id: systemId,
      frame,
    } satisfies InstanceMessage);
  }

  private pushLocal(systemId: string, frame: Record<string, unknown>): void {
    const conn = this.connections.get(systemId);
    if (conn?.state === 'authenticated') sendFrame(conn, frame);
  }

  /** Tells whichever instance holds the device's socket about a parent's decision. */
  async notifyDecision(systemId: string, kind: Decision): Promise<void> {
    if (this.connections.has(systemId)) return this.applyDecision(systemId, kind);
    const device = await this.presence.holder(systemId);
    if (device?.connected_instance && device.connected_instance !== this.instanceId) {
      await this.bus.publish(instanceTopic(device.connected_instance), {
        kind,
        system_id: systemId,
      } satisfies InstanceMessage);
    }
  }

  private async applyDecision(systemId: string, kind: Decision): Promise<void> {
    const conn = this.connections.get(systemId);
    if (!conn || !this.handshake) return;
    await this.handshake.decided(this.socketOf(conn), kind);
  }

  private async onInstanceMessage(message: InstanceMessage): Promise<void> {
    try {
      if (message.kind === 'command') {
        const result = await this.rpcLocal(message.system_id, message.command, message.args);
        await this.bus.publish(instanceTopic(message.reply_to), {
          kind: 'command_result',
          request_id: message.request_id,
          result,
        } satisfies InstanceMessage);
      } else if (message.kind === 'command_result') {
        this.remote.settle(message.request_id, message.result);
      } else if (message.kind === 'frame') {
        this.pushLocal(message.system_id, message.frame);
      } else {
        await this.applyDecision(message.system_id, message.kind);
      }
    } catch (err) {
      this.log.error({ err }, 'bus message failed');
    }
  }

  /** Closes every socket (server shutdown) and forgets this instance's claims on devices. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.unsubscribe?.();
    for (const conn of [...this.connections.values(), ...this.unidentified]) {
      abandonWaiting(conn);
      try {
        conn.ws.close(1001, 'server shutting down');
      } catch {
        conn.ws.terminate();
      }
    }
    this.connections.clear();
    this.unidentified.clear();
    await this.presence.releaseInstance(this.instanceId).catch(() => {});
  }
}
