import { FRAME_BURST, FRAME_BYTES_BURST } from '@hearth/protocol';
import type { WebSocket } from 'ws';
import type { CommandResult, SocketState } from './types.js';

/** One agent socket. Kept small: the server holds tens of thousands of these. */
export interface Connection {
  ws: WebSocket;
  /** The client's address as Fastify sees it (HEARTH_TRUST_PROXY decides whose). */
  address: string;
  state: SocketState;
  systemId: string | null;
  householdId: string | null;
  openedAt: number;
  lastSeen: number;
  lastPing: number;
  linuxUsers: Set<string> | null;
  platform: string;
  /** Commands sent on this socket, by request id, waiting for their `command_response`. */
  waiting: Map<string, (result: CommandResult) => void> | null;
  /** The frames being handled, one after another. */
  chain: Promise<void>;
  /** Frame budget: frames and bytes left in the buckets, and when they were last refilled. */
  tokens: number;
  byteTokens: number;
  refilledAt: number;
  /** Frames the channel refused in the minute that started at `refusedSince`. */
  refused: number;
  refusedSince: number;
  /** Frames received and not yet handled, and their bytes: reading pauses while there are too many. */
  backlog: number;
  backlogBytes: number;
}

export function newConnection(ws: WebSocket, address: string): Connection {
  const now = Date.now();
  return {
    ws,
    address,
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
    tokens: FRAME_BURST,
    byteTokens: FRAME_BYTES_BURST,
    refilledAt: now,
    refused: 0,
    refusedSince: now,
    backlog: 0,
    backlogBytes: 0,
  };
}

export function sendFrame(conn: Connection, message: unknown): void {
  if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(message));
}

export function sendError(conn: Connection, code: string, message: string): void {
  sendFrame(conn, { type: 'error', code, message });
}

export function closeSocket(conn: Connection, code: number, reason: string): void {
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

/** Every command still waiting on this socket learns that it went offline. */
export function abandonWaiting(conn: Connection): void {
  for (const resolve of conn.waiting?.values() ?? []) resolve({ status: 'offline' });
  conn.waiting = null;
}
