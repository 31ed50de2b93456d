import type { Bus } from './bus.js';

/**
 * In-process copies of the hottest reads — the session behind a cookie, a household's children, the
 * device behind a bearer token, an account's sign-up state — kept right by invalidation, not by time.
 * Each entry carries tags naming what it was read from; every write that changes one of those things
 * calls `invalidate` with the tag after the write has committed and before it answers. That drops the
 * entry here at once and, over the bus, on every other instance. Messages lost while the bus was
 * away (a Redis reconnect) empty the whole cache; a lifetime of a minute bounds anything else, such
 * as a row edited by hand in the database.
 */
export const cacheTags = {
  session: (sessionId: string) => `session:${sessionId}`,
  parent: (parentId: string) => `parent:${parentId}`,
  /** A household's children list: the children, their mappings, the mapped devices' names. */
  children: (householdId: string) => `children:${householdId}`,
  /** What a device's bearer token stands for, and everything read through one device's accounts. */
  device: (systemId: string) => `device:${systemId}`,
  /** A mapping's sign-up settings, pending sign-up requests and grants. */
  mapping: (mappingId: string) => `mapping:${mappingId}`,
  /** A household's newest alerts and unread count, as the dashboard shows them. */
  alerts: (householdId: string) => `alerts:${householdId}`,
  /** Every household's alerts at once (the worker's pruning). */
  allAlerts: () => 'alerts',
  /** A household's count of pending approval requests. */
  approvals: (householdId: string) => `approvals:${householdId}`,
  /** A child's domain policy: its own entries, its sources, its domain_unblock grants. */
  domainPolicy: (managedUserId: string) => `domain-policy:${managedUserId}`,
  /** A blocklist source's name and content. */
  blocklistSource: (sourceId: string) => `blocklist-source:${sourceId}`,
};

export interface ReadCacheOptions {
  /** Longest an entry lives without being invalidated. */
  ttlMs: number;
  /** Entries kept at most, over all spaces; the oldest go first. */
  maxEntries: number;
}

interface Entry {
  key: string;
  value: unknown;
  tags: readonly string[];
  expiresAt: number;
}

const CHANNEL = 'read-cache:invalidate';

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTag = new Map<string, Set<string>>();
  /** Bumped by every invalidation: a read that overlapped one is not stored. */
  private generation = 0;
  private unsubscribe: (() => Promise<void>) | null = null;
  private readonly dropListeners: ((tags: readonly string[] | null) => void)[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly options: ReadCacheOptions = { ttlMs: 60_000, maxEntries: 50_000 },
  ) {}

  /** Listens for invalidations from other instances. */
  async start(): Promise<void> {
    if (this.unsubscribe) return;
    this.bus.onReconnect(() => this.clear());
    this.unsubscribe = await this.bus.subscribe(CHANNEL, (message) => {
      const tags = (message as { tags?: unknown }).tags;
      if (Array.isArray(tags)) this.drop(tags.filter((t): t is string => typeof t === 'string'));
    });
  }

  async close(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = null;
    this.clear();
  }

  /**
   * Hears every invalidation, made here or on another instance, as it is applied (`null`: the whole
   * cache was emptied). The tags say what changed, so others who keep state derived from the same
   * rows (the live-event streams' audiences) can follow.
   */
  onDrop(listener: (tags: readonly string[] | null) => void): void {
    this.dropListeners.push(listener);
  }

  space<V>(name: string): CacheSpace<V> {
    return new CacheSpace<V>(this, `${name}\u0000`);
  }

  /** Drops every entry with one of these tags here and on the other instances. Call after the write. */
  async invalidate(...tags: string[]): Promise<void> {
    if (!tags.length) return;
    this.drop(tags);
    await this.bus.publish(CHANNEL, { tags });
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.byTag.clear();
    for (const listener of this.dropListeners) listener(null);
  }

  get size(): number {
    return this.entries.size;
  }

  /** @internal */
  read(key: string): unknown {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.remove(entry);
      return undefined;
    }
    return entry.value;
  }

  /** @internal */
  currentGeneration(): number {
    return this.generation;
  }

  /** @internal Stores a value read while the generation stayed `generation`. */
  store(key: string, value: unknown, tags: readonly string[], generation: number): void {
    if (generation !== this.generation) return;
    const old = this.entries.get(key);
    if (old) this.remove(old);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.values().next().value;
      if (oldest) this.remove(oldest);
    }
    const entry: Entry = { key, value, tags, expiresAt: Date.now() + this.options.ttlMs };
    this.entries.set(key, entry);
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) {
        keys = new Set();
        this.byTag.set(tag, keys);
      }
      keys.add(key);
    }
  }

  private drop(tags: readonly string[]): void {
    this.generation++;
    for (const listener of this.dropListeners) listener(tags);
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      for (const key of [...keys]) {
        const entry = this.entries.get(key);
        if (entry) this.remove(entry);
      }
      this.byTag.delete(tag);
    }
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      keys.delete(entry.key);
      if (!keys.size) this.byTag.delete(tag);
    }
  }
}

/** One kind of cached read, keyed within its own name. */
export class CacheSpace<V> {
  constructor(
    private readonly cache: ReadCache,
    private readonly prefix: string,
  ) {}

  get(key: string): V | undefined {
    return this.cache.read(this.prefix + key) as V | undefined;
  }

  /**
   * The cached value, or `load`'s. The loaded value is kept under the tags `load` names — not at all
   * when it names none (`null`: say, an unknown token) — and only if no invalidation happened while it
   * was being read, so a read that raced a write is never kept.
   */
  async load(key: string, load: () => Promise<{ value: V; tags: readonly string[] | null }>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const generation = this.cache.currentGeneration();
    const { value, tags } = await load();
    if (tags) this.cache.store(this.prefix + key, value, tags, generation);
    return value;
  }
}
