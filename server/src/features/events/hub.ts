import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Bus } from '../../platform/bus.js';
import { EVENTS_CHANNEL, eventTime, type HouseholdEvent } from '../../platform/events.js';

/** Who a stream is for: owners and admins see everything; members what concerns their children. */
export interface StreamAudience {
  sessionId: string;
  /** Children a member may see; null for owners and admins. */
  children: Set<string> | null;
  /** Devices mapped to those children; null for owners and admins. */
  devices: Set<string> | null;
}

interface Stream extends StreamAudience {
  res: ServerResponse;
}

export interface EventHubOptions {
  /** Events kept per household for Last-Event-ID resume. */
  replay: number;
  /** Households whose recent events are kept (least recently active dropped first). */
  households: number;
  heartbeatMs: number;
}

const DEFAULTS: EventHubOptions = { replay: 256, households: 10_000, heartbeatMs: 15_000 };

function frame(event: HouseholdEvent): string {
  return `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * Server-Sent Events for dashboards: every instance hears every household's events on the bus, keeps
 * the most recent ones for resuming, and writes them to the streams it holds.
 */
export class EventHub {
  private readonly recent = new Map<string, HouseholdEvent[]>();
  private readonly streams = new Map<string, Set<Stream>>();
  private unsubscribe: (() => Promise<void>) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly options: EventHubOptions;

  constructor(
    private readonly bus: Bus,
    private readonly log: FastifyBaseLogger,
    /** Whether a session still exists: a stream ends within a heartbeat once its session does. */
    private readonly sessionAlive: (sessionId: string) => Promise<boolean>,
    options: Partial<EventHubOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(EVENTS_CHANNEL, (m) => this.onEvent(m as HouseholdEvent));
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  get openStreams(): number {
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  private onEvent(event: HouseholdEvent): void {
    if (!event?.household_id || !event.id) return;
    let list = this.recent.get(event.household_id);
    if (list) this.recent.delete(event.household_id);
    else list = [];
    list.push(event);
    if (list.length > this.options.replay) list.splice(0, list.length - this.options.replay);
    this.recent.set(event.household_id, list);
    if (this.recent.size > this.options.households) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    const streams = this.streams.get(event.household_id);
    if (!streams) return;
    // Encoded once, written to every stream.
    const bytes = Buffer.from(frame(event));
    for (const stream of streams) if (this.visible(stream, event)) stream.res.write(bytes);
  }

  private visible(stream: Stream, event: HouseholdEvent): boolean {
    if (!stream.children) return true;
    const child = 'managed_user_id' in event.data ? event.data.managed_user_id : undefined;
    if (typeof child === 'string') return stream.children.has(child);
    const device = 'system_id' in event.data ? event.data.system_id : undefined;
    return typeof device === 'string' && !!stream.devices?.has(device);
  }

  /** Starts a stream on a raw response: headers, missed events since `lastEventId`, then live events. */
  open(
    householdId: string,
    res: ServerResponse,
    audience: StreamAudience,
    lastEventId: string | undefined,
  ): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    const stream: Stream = { res, ...audience };
    if (lastEventId) {
      const list = this.recent.get(householdId) ?? [];
      const at = list.findIndex((e) => e.id === lastEventId);
      const since = eventTime(lastEventId);
      const missed = at >= 0 ? list.slice(at + 1) : list.filter((e) => eventTime(e.id) > since);
      for (const event of missed) if (this.visible(stream, event)) res.write(frame(event));
    }
    let set = this.streams.get(householdId);
    if (!set) {
      set = new Set();
      this.streams.set(householdId, set);
    }
    set.add(stream);
    const remove = () => {
      const current = this.streams.get(householdId);
      current?.delete(stream);
      if (current?.size === 0) this.streams.delete(householdId);
    };
    res.on('close', remove);
    res.on('error', remove);
  }

  private beat(): void {
    const sessions = new Map<string, Stream[]>();
    for (const set of this.streams.values()) {
      for (const stream of set) {
        stream.res.write(': heartbeat\n\n');
        const list = sessions.get(stream.sessionId) ?? [];
        list.push(stream);
        sessions.set(stream.sessionId, list);
      }
    }
    for (const [sessionId, streams] of sessions) {
      this.sessionAlive(sessionId).then(
        (alive) => {
          if (!alive) for (const stream of streams) stream.res.end();
        },
        (err) => this.log.warn({ err }, 'could not check a stream session'),
      );
    }
  }

  async close(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.unsubscribe?.().catch((err) => this.log.warn({ err }, 'event hub unsubscribe failed'));
    for (const set of this.streams.values()) for (const stream of set) stream.res.end();
    this.streams.clear();
  }
}
