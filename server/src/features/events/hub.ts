import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { SessionAuth } from '../../platform/access.js';
import type { Bus } from '../../platform/bus.js';
import { EVENTS_CHANNEL, eventTime, type HouseholdEvent } from '../../platform/events.js';
import { cacheTags } from '../../platform/read-cache.js';

/** Who a stream is for: owners and admins see everything; members what concerns their children. */
export interface StreamAudience {
  /** Children a member may see; null for owners and admins. */
  children: Set<string> | null;
  /** Devices mapped to those children; null for owners and admins. */
  devices: Set<string> | null;
}

/**
 * What a session's parent may hear now, read afresh (role and grants as they are in the database);
 * null once the session may hear nothing: signed out, the parent removed, or their password changed.
 */
export type AudienceOf = (actor: SessionAuth) => Promise<StreamAudience | null>;

interface Stream {
  actor: SessionAuth;
  res: ServerResponse;
  audience: StreamAudience;
  /**
   * Events held while the audience is being read (at open, and after a change of who may see what):
   * they are written, or not, once the new audience is known. Null when nothing is being read.
   */
  held: HouseholdEvent[] | null;
  /** Bumped by each read of the audience: only the latest one settles the stream. */
  reads: number;
}

const NOBODY: StreamAudience = { children: new Set(), devices: new Set() };
const SESSION_TAG = cacheTags.session('');
const PARENT_TAG = cacheTags.parent('');
const CHILDREN_TAG = cacheTags.children('');

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
  private readonly listeners: ((householdId: string) => void)[] = [];
  private unsubscribe: (() => Promise<void>) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Set once the server stops: streams opened after that end at once. */
  private stopping = false;
  private readonly options: EventHubOptions;

  constructor(
    private readonly bus: Bus,
    private readonly log: FastifyBaseLogger,
    /** Whether a session still exists: a stream ends within a heartbeat once its session does. */
    private readonly sessionAlive: (sessionId: string) => Promise<boolean>,
    /** Who a stream's parent may hear: read when it opens and again when their access changes. */
    private readonly audienceOf: AudienceOf,
    options: Partial<EventHubOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(EVENTS_CHANNEL, (m) => this.heard(m as HouseholdEvent));
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Hears that a household had a live event, on every instance (what kept views of it follow). */
  onEvent(listener: (householdId: string) => void): void {
    this.listeners.push(listener);
  }

  get openStreams(): number {
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  private heard(event: HouseholdEvent): void {
    if (!event?.household_id || !event.id) return;
    for (const listener of this.listeners) listener(event.household_id);
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
    for (const stream of streams) {
      if (stream.held) this.hold(stream, event);
      else if (this.visible(stream, event)) stream.res.write(bytes);
    }
  }

  private visible(stream: Stream, event: HouseholdEvent): boolean {
    const { children, devices } = stream.audience;
    if (!children) return true;
    const child = 'managed_user_id' in event.data ? event.data.managed_user_id : undefined;
    if (typeof child === 'string') return children.has(child);
    const device = 'system_id' in event.data ? event.data.system_id : undefined;
    return typeof device === 'string' && !!devices?.has(device);
  }

  private hold(stream: Stream, event: HouseholdEvent): void {
    const held = stream.held ?? [];
    stream.held = held;
    held.push(event);
    // A read that takes this long has failed in all but name: the client reconnects and resumes.
    if (held.length > 2 * this.options.replay) stream.res.end();
  }

  /**
   * Who may see what changed: a parent's role or grants, a session, or a household's children or
   * mappings. It hears the read cache's invalidations, which every such write makes after it commits
   * and which reach every instance over the bus, ahead of any event published after the write; `null`
   * means anything may have changed (the bus came back after a break). Each stream concerned holds
   * its events, reads its audience afresh, and then writes only what the new audience may see — or
   * ends, when the session may see nothing any more.
   */
  accessChanged(tags: readonly string[] | null): void {
    if (tags === null) {
      for (const set of this.streams.values()) for (const stream of set) this.readAudience(stream);
      return;
    }
    for (const tag of tags) {
      if (tag.startsWith(CHILDREN_TAG)) {
        for (const stream of this.streams.get(tag.slice(CHILDREN_TAG.length)) ?? [])
          this.readAudience(stream);
      } else if (tag.startsWith(PARENT_TAG) || tag.startsWith(SESSION_TAG)) {
        const parent = tag.startsWith(PARENT_TAG) ? tag.slice(PARENT_TAG.length) : null;
        const session = parent === null ? tag.slice(SESSION_TAG.length) : null;
        for (const set of this.streams.values())
          for (const stream of set)
            if (stream.actor.parentId === parent || stream.actor.sessionId === session)
              this.readAudience(stream);
      }
    }
  }

  private readAudience(stream: Stream): void {
    const read = ++stream.reads;
    stream.held ??= [];
    this.audienceOf(stream.actor).then(
      (audience) => {
        if (read !== stream.reads || stream.res.writableEnded) return;
        const held = stream.held ?? [];
        stream.held = null;
        if (!audience) {
          stream.res.end();
          return;
        }
        stream.audience = audience;
        for (const event of held) if (this.visible(stream, event)) stream.res.write(frame(event));
      },
      (err) => {
        this.log.warn({ err }, 'could not read a stream audience; ending the stream');
        stream.res.end();
      },
    );
  }

  /**
   * Starts a stream on a raw response: headers at once; then, once the parent's audience is read,
   * the missed events since `lastEventId` and the live ones it may see (held meanwhile).
   */
  open(actor: SessionAuth, res: ServerResponse, lastEventId: string | undefined): void {
    const householdId = actor.householdId;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    // A stream opened while the server stops ends at once; the browser comes back after the retry.
    if (this.stopping) {
      res.end();
      return;
    }
    const stream: Stream = { actor, res, audience: NOBODY, held: [], reads: 0 };
    if (lastEventId) {
      const list = this.recent.get(householdId) ?? [];
      const at = list.findIndex((e) => e.id === lastEventId);
      const since = eventTime(lastEventId);
      stream.held = at >= 0 ? list.slice(at + 1) : list.filter((e) => eventTime(e.id) > since);
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
    this.readAudience(stream);
  }

  private beat(): void {
    const sessions = new Map<string, Stream[]>();
    for (const set of this.streams.values()) {
      for (const stream of set) {
        stream.res.write(': heartbeat\n\n');
        const list = sessions.get(stream.actor.sessionId) ?? [];
        list.push(stream);
        sessions.set(stream.actor.sessionId, list);
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

  /**
   * Ends every open stream. The server calls this before it stops listening: a stream never ends by
   * itself, so one open admin tab would otherwise hold the server's close for ever.
   */
  endStreams(): void {
    this.stopping = true;
    for (const set of this.streams.values()) for (const stream of set) stream.res.end();
    this.streams.clear();
  }

  async close(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.unsubscribe?.().catch((err) => this.log.warn({ err }, 'event hub unsubscribe failed'));
    this.endStreams();
  }
}
