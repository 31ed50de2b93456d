import {
  CLOSE_CODES,
  COMMAND_TIMEOUT_MS,
  type CommandRequest,
  CommandResponseMessage,
  HelloMessage,
  UsageReportMessage,
  WS_HELLO_TIMEOUT_MS,
  WS_PING_INTERVAL_MS,
  WS_SILENCE_LIMIT_MS,
} from '@hearth/protocol';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';

import type { Kysely } from 'kysely';
import type { WebSocket } from 'ws';
import type { Config } from '../config.js';
import { DeviceRepository, type DeviceRow } from '../features/devices/repository.js';
import type { Bus } from '../platform/bus.js';
import { nowIso } from '../platform/clock.js';
import { newId, randomHex, safeEqual, sha256Hex } from '../platform/crypto.js';
import type { Database } from '../platform/db/schema.js';
import type { EventPublisher } from '../platform/events.js';
import { cacheTags, type ReadCache } from '../platform/read-cache.js';
import { compileStrict, describeErrors } from '../platform/validate.js';
import type { CommandQueue } from './queue.js';

/** The channel's clock (DESIGN §5); tests shorten it to watch liveness work. */
export interface ChannelTimings {
  helloMs: number;
  pingMs: number;
  silenceMs: number;
  sweepMs: number;
}

export const DEFAULT_TIMINGS: ChannelTimings = {
  helloMs: WS_HELLO_TIMEOUT_MS,
  pingMs: WS_PING_INTERVAL_MS,
  silenceMs: WS_SILENCE_LIMIT_MS,
  sweepMs: 1000,
};

export type CommandResult =
  | { status: 'ok'; data: unknown }
  | { status: 'error'; error: unknown }
  | { status: 'timeout' }
  | { status: 'offline' };

/** One agent socket. Kept small: the server holds tens of thousands of these. */
interface Connection {
  ws: WebSocket;
  state: 'hello' | 'pending' | 'authenticated' | 'closing';
  systemId: string | null;
  householdId: string | null;
  openedAt: number;
  lastSeen: number;
  lastPing: number;
  linuxUsers: Set<string> | null;
  platform: string;
  waiting: Map<string, (result: CommandResult) => void> | null;
  chain: Promise<void>;
}

/** A handler for an agent message type that later features register (alerts, inventory, …). */
export type MessageHandler = (
  device: AuthenticatedDevice,
  message: Record<string, unknown>,
) => Promise<unknown> | unknown;

/** Told when a queued command was delivered and answered (features record their sync state). */
export type AnsweredHandler = (
  systemId: string,
  command: string,
  args: Record<string, unknown>,
  result: CommandResult,
) => void;

export interface AuthenticatedDevice {
  systemId: string;
  householdId: string;
  linuxUsers: Set<string>;
  platform: string;
  send(message: unknown): void;
}

type InstanceMessage =
  | {
      kind: 'command';
      request_id: string;
      system_id: string;
      command: string;
      args: Record<string, unknown>;
      reply_to: string;
    }
  | { kind: 'command_result'; request_id: string; result: CommandResult }
  | { kind: 'approved' | 'rejected' | 'unenrolled'; system_id: string };

const validateHello = compileStrict<HelloMessage>(HelloMessage);
const validateResponse = compileStrict<CommandResponseMessage>(CommandResponseMessage);

const TOUCH_EVERY_MS = 30_000;

/**
 * Holds this instance's agent sockets: the hello handshake, enrollment and pairing, the command RPC,
 * liveness, and the route to sockets held by other instances through the bus.
 */
export class AgentHub {
  readonly instanceId = newId();
  private readonly connections = new Map<string, Connection>();
  private readonly unidentified = new Set<Connection>();
  private readonly remoteWaits = new Map<string, (result: CommandResult) => void>();
  private readonly handlers = new Map<string, MessageHandler>();
  private readonly answered: AnsweredHandler[] = [];
  private readonly devices: DeviceRepository;
  private sweeper: NodeJS.Timeout | null = null;
  private lastTouch = Date.now();
  private unsubscribe: (() => Promise<void>) | null = null;
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly bus: Bus,
    private readonly queue: CommandQueue,
    private readonly events: EventPublisher,
    private readonly cache: ReadCache,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    private readonly timings: ChannelTimings = DEFAULT_TIMINGS,
  ) {
    this.devices = new DeviceRepository(db);
    this.on<UsageReportMessage>('usage_report', UsageReportMessage, (device, report) =>
      this.onUsageReport(device, report),
    );
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(`instance:${this.instanceId}`, (m) =>
      this.onInstanceMessage(m as InstanceMessage),
    );
    this.sweeper = setInterval(() => this.sweep(), this.timings.sweepMs);
    this.sweeper.unref();
  }

  onAnswered(handler: AnsweredHandler): void {
    this.answered.push(handler);
  }

  /** Features add agent message types here; frames that fail the schema get an error frame. */
  on<T>(
    type: string,
    schema: TSchema,
    handler: (device: AuthenticatedDevice, message: T) => Promise<unknown> | unknown,
    onInvalid?: (device: AuthenticatedDevice, message: Record<string, unknown>, why: string) => void,
  ): void {
    const validate = compileStrict<T>(schema);
    this.handlers.set(type, (device, message) => {
      if (!validate(message)) {
        const why = `${type}: ${describeErrors(validate.errors)}`;
        if (onInvalid) onInvalid(device, message, why);
        else device.send({ type: 'error', code: 'invalid_message', message: why });
        return;
      }
      return handler(device, message as T);
    });
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

  accept(ws: WebSocket): void {
    const now = Date.now();
    const conn: Connection = {
      ws,
      state: 'hello',
      systemId: null,
      householdId: null,
      openedAt: now,
      lastSeen: now,
      lastPing: now,
      linuxUsers: null,
      platform: '',
      waiting: null,
      chain: Promise.resolve(),
    };

    this.unidentified.add(conn);
    ws.on('message', (data, isBinary) => {
      conn.lastSeen = Date.now();
      if (isBinary) return this.closeSocket(conn, CLOSE_CODES.badMessage, 'binary frames are not accepted');
      const text = data.toString();
      // One agent's frames are handled in the order they came (a usage total, then the next one).
      conn.chain = conn.chain
        .then(() => this.onMessage(conn, text))
        .catch((err) => {
          this.log.error({ err, system_id: conn.systemId }, 'agent message failed');
          this.sendError(conn, 'internal_error', 'The server could not handle that message.');
        });
    });
    ws.on('pong', () => {
      conn.lastSeen = Date.now();
    });
    ws.on('close', () => this.onClose(conn));
    ws.on('error', () => {});
  }

  private send(conn: Connection, message: unknown): void {
    if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(message));
  }

  private sendError(conn: Connection, code: string, message: string): void {
    this.send(conn, { type: 'error', code, message });
  }

  private closeSocket(conn: Connection, code: number, reason: string): void {
    if (conn.state === 'closing') return;
    conn.state = 'closing';
    try {
      conn.ws.close(code, reason.slice(0, 120));
    } catch {
      conn.ws.terminate();
    }
    // A peer that never completes the closing handshake is cut off.
    setTimeout(() => conn.ws.terminate(), 5000).unref();
  }

  private async onMessage(conn: Connection, text: string): Promise<void> {
    if (conn.state === 'closing') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.closeSocket(conn, CLOSE_CODES.badMessage, 'frames must be JSON');
    }
    if (
      !message ||
      typeof message !== 'object' ||
      Array.isArray(message) ||
      typeof (message as { type?: unknown }).type !== 'string'
    ) {
      return this.closeSocket(conn, CLOSE_CODES.badMessage, 'frames must be objects with a type');
    }
    const typed = message as { type: string } & Record<string, unknown>;
    if (conn.state === 'hello') {
      if (typed.type !== 'hello')
        return this.closeSocket(conn, CLOSE_CODES.badMessage, 'the first frame must be hello');
      return this.onHello(conn, typed);
    }
    if (typed.type === 'hello')
      return this.sendError(conn, 'duplicate_hello', 'hello was already received on this socket.');
    // Answers are taken from any socket that was asked something (an unenrolled agent answers its unenroll).
    if (typed.type === 'command_response') {
      if (!validateResponse(typed))
        return this.sendError(
          conn,
          'invalid_message',
          `command_response: ${describeErrors(validateResponse.errors)}`,
        );
      const resolve = conn.waiting?.get(typed.request_id);
      if (!resolve) return;
      conn.waiting?.delete(typed.request_id);
      return resolve(
        typed.success
          ? { status: 'ok', data: typed.data ?? null }
          : { status: 'error', error: typed.error ?? null },
      );
    }
    if (conn.state !== 'authenticated') {
      return this.sendError(conn, 'not_paired', 'This device is waiting for a parent to approve it.');
    }
    const handler = this.handlers.get(typed.type);
    if (!handler) return this.sendError(conn, 'unknown_type', `Unknown message type "${typed.type}".`);
    await handler(this.deviceOf(conn), typed);
  }

  private deviceOf(conn: Connection): AuthenticatedDevice {
    return {
      systemId: conn.systemId ?? '',
      householdId: conn.householdId ?? '',
      linuxUsers: conn.linuxUsers ?? new Set(),
      platform: conn.platform,
      send: (message) => this.send(conn, message),
    };
  }

  private async onHello(conn: Connection, raw: Record<string, unknown>): Promise<void> {
    if (!validateHello(raw))
      return this.closeSocket(
        conn,
        CLOSE_CODES.badMessage,
        `invalid hello: ${describeErrors(validateHello.errors)}`,
      );
    const hello = raw as HelloMessage;
    conn.state = 'pending'; // no second hello while this one is checked
    const device = await this.devices.bySystemId(hello.system_id);
    const at = nowIso();
    const reported = {
      hostname: hello.hostname,
      agent_version: hello.agent_version,
      linux_users: JSON.stringify(hello.linux_users),
      last_seen_at: at,
      updated_at: at,
    };

    if (hello.secure_token) {
      const matches =
        !!device?.secure_token_hash && safeEqual(sha256Hex(hello.secure_token), device.secure_token_hash);
      if (!device || !matches) {
        this.send(conn, { type: 'auth_result', success: false, error: 'invalid_token' });
        return this.closeSocket(conn, CLOSE_CODES.authFailed, 'authentication failed');
      }
      if (device.status !== 'approved') {
        this.send(conn, { type: 'auth_result', success: false, error: `device_${device.status}` });
        const status = device.status;
        // Detached: the agent's answer arrives as a later frame, which waits behind this one.
        this.detach(
          (status === 'unenrolled'
            ? this.deliverUnenroll(conn, device.system_id)
            : Promise.resolve()
          ).finally(() => this.closeSocket(conn, CLOSE_CODES.deviceRejected, `device ${status}`)),
        );
        return;
      }
      await this.devices.update(device.system_id, { ...reported, connected_instance: this.instanceId });
      await this.forgetChanged(device, reported);
      this.bind(conn, device.system_id, device.household_id, hello);
      this.send(conn, { type: 'auth_result', success: true, system_id: device.system_id });
      this.events.publish(device.household_id, 'device_status', {
        system_id: device.system_id,
        status: 'approved',
        online: true,
      });
      this.detach(this.flushQueue(conn));
      return;
    }

    const householdId = await this.householdForEnrollment(hello.enrollment_token);
    if (!householdId) {
      this.send(conn, { type: 'auth_result', success: false, error: 'invalid_enrollment_token' });
      return this.closeSocket(conn, CLOSE_CODES.authFailed, 'no valid enrollment token');
    }
    if (device && device.household_id !== householdId) {
      this.send(conn, { type: 'pairing_status', status: 'rejected' });
      return this.closeSocket(conn, CLOSE_CODES.deviceRejected, 'this device belongs to another household');
    }
    if (device?.status === 'rejected') {
      this.send(conn, { type: 'pairing_status', status: 'rejected' });
      return this.closeSocket(conn, CLOSE_CODES.deviceRejected, 'device rejected');
    }
    if (device?.status === 'approved' && !device.secure_token_hash) {
      // Approved while it was away: the token is made now, on the instance that holds the socket.
      await this.devices.update(device.system_id, { ...reported, connected_instance: this.instanceId });
      await this.forgetChanged(device, reported);
      this.bind(conn, device.system_id, householdId, hello, 'pending');
      return this.issueToken(conn);
    }
    if (!device) {
      await this.devices.insert({
        system_id: hello.system_id,
        household_id: householdId,
        hostname: hello.hostname,
        display_name: null,
        platform: hello.platform,
        status: 'pending',
        agent_version: hello.agent_version,
        linux_users: JSON.stringify(hello.linux_users),
        secure_token_hash: null,
        last_seen_at: at,
        created_at: at,
        updated_at: at,
        connected_instance: this.instanceId,
      });
    } else {
      // Re-enrollment (after unenroll, or a device that lost its token) asks a parent again.
      const changes = {
        ...reported,
        platform: hello.platform,
        status: 'pending' as const,
        secure_token_hash: null,
        decided_at: null,
        connected_instance: this.instanceId,
      };
      await this.devices.update(device.system_id, changes);
      await this.forgetChanged(device, changes);
    }
    this.bind(conn, hello.system_id, householdId, hello, 'pending');
    this.send(conn, { type: 'pairing_status', status: 'pending' });
    this.events.publish(householdId, 'device_pending', {
      system_id: hello.system_id,
      hostname: hello.hostname,
      platform: hello.platform,
    });
  }

  /**
   * Drops cached reads a hello made stale, comparing the stored row with what was just written over
   * it: the device behind its token (platform, version, accounts, status, token) and the household's
   * children list (which shows hostname and platform).
   */
  private async forgetChanged(before: DeviceRow, written: Partial<DeviceRow>): Promise<void> {
    const changed = (key: keyof DeviceRow) => key in written && written[key] !== before[key];
    const named = changed('hostname') || changed('platform');
    const tags: string[] = [];
    if (named || (['agent_version', 'linux_users', 'status', 'secure_token_hash'] as const).some(changed))
      tags.push(cacheTags.device(before.system_id));
    if (named) tags.push(cacheTags.children(before.household_id));
    await this.cache.invalidate(...tags);
  }

  private async householdForEnrollment(token: string | undefined): Promise<string | null> {
    if (!token) return null;
    if (this.config.agentToken && safeEqual(token, this.config.agentToken)) {
      const first = await this.db
        .selectFrom('household')
        .select('id')
        .orderBy('created_at', 'asc')
        .limit(1)
        .executeTakeFirst();
      return first?.id ?? null;
    }
    const row = await this.db
      .selectFrom('household')
      .select(['id', 'enrollment_token'])
      .where('enrollment_token', '=', token)
      .executeTakeFirst();
    return row && safeEqual(row.enrollment_token, token) ? row.id : null;
  }

  private bind(
    conn: Connection,
    systemId: string,
    householdId: string,
    hello: HelloMessage,
    state: Connection['state'] = 'authenticated',
  ) {
    this.unidentified.delete(conn);
    const previous = this.connections.get(systemId);
    if (previous && previous !== conn) {
      this.connections.delete(systemId);
      this.closeSocket(previous, 1000, 'replaced by a newer connection');
    }
    conn.systemId = systemId;
    conn.householdId = householdId;
    conn.linuxUsers = new Set(hello.linux_users.map((u) => u.username));
    conn.platform = hello.platform;
    conn.state = state;
    this.connections.set(systemId, conn);
  }

  private async issueToken(conn: Connection): Promise<void> {
    if (!conn.systemId || !conn.householdId) return;
    const hex = randomHex(32);
    await this.devices.update(conn.systemId, { secure_token_hash: sha256Hex(hex), updated_at: nowIso() });
    await this.cache.invalidate(cacheTags.device(conn.systemId));
    conn.state = 'authenticated';
    this.send(conn, { type: 'pairing_approved', system_id: conn.systemId, secure_token: hex });
    this.events.publish(conn.householdId, 'device_status', {
      system_id: conn.systemId,
      status: 'approved',
      online: true,
    });
    this.detach(this.flushQueue(conn));
  }

  private onClose(conn: Connection): void {
    this.unidentified.delete(conn);
    for (const resolve of conn.waiting?.values() ?? []) resolve({ status: 'offline' });
    conn.waiting = null;
    const { systemId, householdId } = conn;
    if (!systemId || this.connections.get(systemId) !== conn) return;
    this.connections.delete(systemId);
    if (this.closed) return;
    this.devices
      .markDisconnected(systemId, this.instanceId, nowIso())
      .catch((err) => this.log.warn({ err }, 'could not mark device offline'));
    if (householdId)
      this.events.publish(householdId, 'device_status', { system_id: systemId, online: false });
  }

  private sweep(): void {
    const now = Date.now();
    for (const conn of this.unidentified) {
      if (conn.state === 'hello' && now - conn.openedAt > this.timings.helloMs)
        this.closeSocket(conn, CLOSE_CODES.helloTimeout, 'no hello in time');
    }
    const seen: string[] = [];
    for (const conn of this.connections.values()) {
      if (now - conn.lastSeen > this.timings.silenceMs) {
        conn.ws.terminate();
        continue;
      }
      if (now - conn.lastPing >= this.timings.pingMs) {
        conn.lastPing = now;
        try {
          conn.ws.ping();
        } catch {
          // closing already
        }
      }
      if (conn.state === 'authenticated' && conn.systemId && conn.lastSeen > this.lastTouch)
        seen.push(conn.systemId);
    }
    if (now - this.lastTouch >= TOUCH_EVERY_MS) {
      const since = this.lastTouch;
      this.lastTouch = now;
      const fresh = seen.filter((id) => (this.connections.get(id)?.lastSeen ?? 0) > since);
      if (fresh.length)
        this.devices
          .touchMany(fresh, new Date(now).toISOString())
          .catch((err) => this.log.warn({ err }, 'could not record last seen'));
    }
  }

  /** Sends a command to a socket held here and waits for its answer. */
  private rpcLocal(systemId: string, command: string, args: Record<string, unknown>): Promise<CommandResult> {
    const conn = this.connections.get(systemId);
    if (conn?.state !== 'authenticated') return Promise.resolve({ status: 'offline' });
    return this.rpcOn(conn, command, args);
  }

  private rpcOn(
    conn: Connection,
    command: string,
    args: Record<string, unknown>,
    requestId = newId(),
    timeoutMs = COMMAND_TIMEOUT_MS,
  ): Promise<CommandResult> {
    if (conn.ws.readyState !== conn.ws.OPEN) return Promise.resolve({ status: 'offline' });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        conn.waiting?.delete(requestId);
        resolve({ status: 'timeout' });
      }, timeoutMs);
      conn.waiting ??= new Map();
      conn.waiting.set(requestId, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      const request: CommandRequest = { type: 'command_request', request_id: requestId, command, args };
      this.send(conn, request);
    });
  }

  /** Sends a command wherever the device's socket is: here, or on the instance the database names. */
  async rpc(systemId: string, command: string, args: Record<string, unknown>): Promise<CommandResult> {
    if (this.isLocal(systemId)) return this.rpcLocal(systemId, command, args);
    const device = await this.devices.bySystemId(systemId);
    const holder = device?.connected_instance;
    const fresh = device?.last_seen_at && Date.now() - Date.parse(device.last_seen_at) < WS_SILENCE_LIMIT_MS;
    if (!holder || holder === this.instanceId || !fresh) return { status: 'offline' };
    const requestId = newId();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.remoteWaits.delete(requestId);
        resolve({ status: 'timeout' });
      }, COMMAND_TIMEOUT_MS + 1000);
      this.remoteWaits.set(requestId, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      const message: InstanceMessage = {
        kind: 'command',
        request_id: requestId,
        system_id: systemId,
        command,
        args,
        reply_to: this.instanceId,
      };
      this.bus.publish(`instance:${holder}`, message).catch(() => {
        this.remoteWaits.delete(requestId);
        clearTimeout(timer);
        resolve({ status: 'offline' });
      });
    });
  }

  /** Tells whichever instance holds the device's socket about a parent's decision. */
  async notifyDecision(systemId: string, kind: 'approved' | 'rejected' | 'unenrolled'): Promise<void> {
    if (this.connections.has(systemId)) return this.applyDecision(systemId, kind);
    const device = await this.devices.bySystemId(systemId);
    if (device?.connected_instance && device.connected_instance !== this.instanceId) {
      await this.bus.publish(`instance:${device.connected_instance}`, {
        kind,
        system_id: systemId,
      } satisfies InstanceMessage);
    }
  }

  private async applyDecision(systemId: string, kind: 'approved' | 'rejected' | 'unenrolled'): Promise<void> {
    const conn = this.connections.get(systemId);
    if (!conn) return;
    if (kind === 'approved') {
      if (conn.state === 'pending') await this.issueToken(conn);
    } else if (kind === 'rejected') {
      this.send(conn, { type: 'pairing_status', status: 'rejected' });
      this.closeSocket(conn, CLOSE_CODES.deviceRejected, 'device rejected');
    } else {
      await this.deliverUnenroll(conn, systemId);
      this.closeSocket(conn, CLOSE_CODES.deviceRejected, 'device unenrolled');
    }
  }

  /** Hands an unenrolled device its queued `unenroll` command, waiting briefly for the answer. */
  /** Runs work that must not hold up this socket's frame handling (it waits for the agent's answers). */
  private detach(work: Promise<unknown>): void {
    work.catch((err) => this.log.error({ err }, 'agent channel task failed'));
  }

  private async deliverUnenroll(conn: Connection, systemId: string): Promise<void> {
    const rows = (await this.queue.due(systemId)).filter((r) => r.command === 'unenroll');
    if (!rows.length) return;
    for (const row of rows) {
      const result = await this.rpcOn(conn, row.command, JSON.parse(row.args), row.id, 2000);
      if (result.status === 'ok' || result.status === 'error') await this.queue.remove(row.id);
    }
  }

  private async onInstanceMessage(message: InstanceMessage): Promise<void> {
    try {
      if (message.kind === 'command') {
        const result = await this.rpcLocal(message.system_id, message.command, message.args);
        await this.bus.publish(`instance:${message.reply_to}`, {
          kind: 'command_result',
          request_id: message.request_id,
          result,
        } satisfies InstanceMessage);
      } else if (message.kind === 'command_result') {
        this.remoteWaits.get(message.request_id)?.(message.result);
        this.remoteWaits.delete(message.request_id);
      } else {
        await this.applyDecision(message.system_id, message.kind);
      }
    } catch (err) {
      this.log.error({ err }, 'bus message failed');
    }
  }

  /** Sends every live queued command in order; each leaves the queue once the agent answers it. */
  private async flushQueue(conn: Connection): Promise<void> {
    const systemId = conn.systemId;
    if (!systemId) return;
    const rows = await this.queue.due(systemId);
    if (!rows.length) return;
    await this.queue.markAttempt(rows.map((r) => r.id));
    await Promise.all(
      rows.map(async (row) => {
        const args = JSON.parse(row.args);
        const result = await this.rpcOn(conn, row.command, args, row.id);
        if (result.status === 'ok' || result.status === 'error') {
          await this.queue.remove(row.id);
          for (const handler of this.answered) handler(systemId, row.command, args, result);
        }
      }),
    );
  }

  private async onUsageReport(device: AuthenticatedDevice, report: UsageReportMessage): Promise<void> {
    if (!device.linuxUsers.has(report.linux_username)) {
      device.send({
        type: 'error',
        code: 'unknown_account',
        message: `The account "${report.linux_username}" was not in this device's hello.`,
      });
      return;
    }
    await this.devices.recordUsage(
      device.systemId,
      report.linux_username,
      report.date,
      report.seconds_used,
      nowIso(),
    );
  }

  /** Closes every socket (server shutdown) and forgets this instance's claims on devices. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.unsubscribe?.();
    for (const conn of [...this.connections.values(), ...this.unidentified]) {
      for (const resolve of conn.waiting?.values() ?? []) resolve({ status: 'offline' });
      conn.waiting = null;
      try {
        conn.ws.close(1001, 'server shutting down');
      } catch {
        conn.ws.terminate();
      }
    }
    this.connections.clear();
    this.unidentified.clear();
    await this.devices.releaseInstance(this.instanceId).catch(() => {});
  }
}
