import {
  type HelloMessage,
  REPORT_ABANDON_MS,
  WS_HELLO_TIMEOUT_MS,
  WS_PING_INTERVAL_MS,
  WS_SILENCE_LIMIT_MS,
} from '@hearth/protocol';

/**
 * The channel's clock (docs/protocol.md, "Liveness"); tests shorten parts of it to watch liveness
 * work, or half-received reports expire.
 */
export interface ChannelTimings {
  helloMs: number;
  pingMs: number;
  silenceMs: number;
  sweepMs: number;
  /** A half-received installed-apps report with no chunk for this long is dropped. */
  reportAbandonMs: number;
}

export const DEFAULT_TIMINGS: ChannelTimings = {
  helloMs: WS_HELLO_TIMEOUT_MS,
  pingMs: WS_PING_INTERVAL_MS,
  silenceMs: WS_SILENCE_LIMIT_MS,
  sweepMs: 1000,
  reportAbandonMs: REPORT_ABANDON_MS,
};

export type CommandResult =
  | { status: 'ok'; data: unknown }
  | { status: 'error'; error: unknown }
  | { status: 'timeout' }
  | { status: 'offline' };

/** The device behind an authenticated socket, as message handlers see it. */
export interface AuthenticatedDevice {
  systemId: string;
  householdId: string;
  linuxUsers: Set<string>;
  platform: string;
  send(message: unknown): void;
}

/** Told when a queued command was delivered and answered (features record their sync state). */
export type AnsweredHandler = (
  systemId: string,
  command: string,
  args: Record<string, unknown>,
  result: CommandResult,
) => void;

/** A parent's decision about a device, carried to the instance that holds its socket. */
export type Decision = 'approved' | 'rejected' | 'unenrolled';

export type SocketState = 'hello' | 'pending' | 'authenticated' | 'closing';

/** What a handshake may do with a socket; the channel keeps the bookkeeping behind each primitive. */
export interface HandshakeSocket {
  /** This instance, as written to `agent_device.connected_instance`. */
  readonly instanceId: string;
  /** The client's address, for limits on enrolment. */
  readonly address: string;
  readonly state: SocketState;
  readonly systemId: string | null;
  readonly householdId: string | null;
  send(message: unknown): void;
  close(code: number, reason: string): void;
  /** Makes this the device's socket (closing an older one), pending a parent or authenticated. */
  bind(
    systemId: string,
    householdId: string,
    hello: Pick<HelloMessage, 'linux_users' | 'platform'>,
    state: 'pending' | 'authenticated',
  ): void;
  /** A pending socket starts taking every message type. */
  authenticate(): void;
  /** Sends the device's durable queue without holding up its frames. */
  flushQueue(): void;
  /** Hands the socket its queued `command` entries one by one; answered ones leave the queue. */
  deliverQueued(systemId: string, command: string, timeoutMs: number): Promise<void>;
  /** Runs work that must not hold up this socket's frames (it waits for the agent's answers). */
  detach(work: Promise<unknown>): void;
}

/**
 * Decides what a hello means (paired, pending a parent, refused), carries out a parent's decision on
 * the instance that holds the socket, and hears when a device's socket goes. The devices feature
 * provides it.
 */
export interface Handshake {
  hello(socket: HandshakeSocket, hello: HelloMessage): Promise<void>;
  decided(socket: HandshakeSocket, decision: Decision): Promise<void>;
  /** A device's socket held here went away (not at shutdown). */
  disconnected(systemId: string, householdId: string): void;
}
