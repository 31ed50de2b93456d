/**
 * Answers kept in this process for a short time (`freshMs`), for reads so hot that even the read
 * cache's tag bookkeeping is too much: owners' dashboards, children's usage snapshots. Its owner drops
 * keys (or everything) whenever it hears of a change — a live event, a read-cache invalidation — so
 * only what changes without either can show up to `freshMs` late. A value whose read overlapped a drop
 * is answered but not kept. At most `maxKeys` keys; the oldest go first.
 */
export class FreshCache<V> {
  private readonly kept = new Map<string, { value: V; readAt: number }>();
  /** Bumped by every drop: a read that started before one is not kept. */
  private generation = 0;

  constructor(
    private readonly freshMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** The kept value of `key` and when it was read, while fresh. */
  get(key: string, now = Date.now()): { value: V; readAt: number } | undefined {
    const entry = this.kept.get(key);
    return entry && now - entry.readAt < this.freshMs ? entry : undefined;
  }

  /** Reads `key` afresh and keeps it (unless a drop happened meanwhile). */
  async load(key: string, read: () => Promise<V>, now = Date.now()): Promise<V> {
    const generation = this.generation;
    const value = await read();
    if (generation === this.generation) {
      this.kept.delete(key);
      if (this.kept.size >= this.maxKeys) {
        const oldest = this.kept.keys().next().value;
        if (oldest !== undefined) this.kept.delete(oldest);
      }
      this.kept.set(key, { value, readAt: now });
    }
    return value;
  }

  drop(key: string): void {
    this.generation++;
    this.kept.delete(key);
  }

  clear(): void {
    this.generation++;
    this.kept.clear();
  }
}
