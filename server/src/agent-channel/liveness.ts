import { CLOSE_CODES } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { type Connection, closeSocket } from './connection.js';
import type { PresenceRepository } from './presence-repository.js';
import type { ChannelTimings } from './types.js';

/** `last_seen_at` is written in batches this far apart, not on every frame. */
const TOUCH_EVERY_MS = 30_000;

/**
 * The periodic sweep: closes sockets that sent no hello in time, cuts off silent ones, pings the
 * rest, and records in one batch which devices were heard from.
 */
export class Liveness {
  private lastTouch = Date.now();

  constructor(
    private readonly timings: ChannelTimings,
    private readonly presence: PresenceRepository,
    private readonly log: FastifyBaseLogger,
  ) {}

  sweep(unidentified: Iterable<Connection>, connections: ReadonlyMap<string, Connection>): void {
    const now = Date.now();
    for (const conn of unidentified) {
      if (conn.state === 'hello' && now - conn.openedAt > this.timings.helloMs)
        closeSocket(conn, CLOSE_CODES.helloTimeout, 'no hello in time');
    }
    const seen: string[] = [];
    for (const conn of connections.values()) {
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
      const fresh = seen.filter((id) => (connections.get(id)?.lastSeen ?? 0) > since);
      if (fresh.length)
        this.presence
          .touchMany(fresh, new Date(now).toISOString())
          .catch((err) => this.log.warn({ err }, 'could not record last seen'));
    }
  }
}
