import type { Redis } from 'ioredis';

export interface WindowCount {
  count: number;
  /** Epoch milliseconds at which the window ends. */
  resetAt: number;
}

/**
 * Fixed-window counters. The in-process store serves one instance; the Redis store shares the
 * counts between instances when HEARTH_REDIS_URL is set.
 */
export interface CounterStore {
  peek(key: string): Promise<WindowCount | null>;
  /** Counts one more in the key's window (starting it when none is open), atomically. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** Takes back one hit of the open window (none when the window has passed); never below zero. */
  release(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, WindowCount>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  async peek(key: string): Promise<WindowCount | null> {
    const entry = this.windows.get(key);
    if (!entry || entry.resetAt <= Date.now()) return null;
    return { ...entry };
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    let entry = this.windows.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return { ...entry };
  }

  async release(key: string): Promise<void> {
    const entry = this.windows.get(key);
    if (entry && entry.resetAt > Date.now() && entry.count > 0) entry.count -= 1;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.windows) if (entry.resetAt <= now) this.windows.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.windows.clear();
  }
}

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'hearth:rl:',
  ) {}

  async peek(key: string): Promise<WindowCount | null> {
    const [[, count], [, ttl]] = (await this.redis
      .multi()
      .get(this.prefix + key)
      .pttl(this.prefix + key)
      .exec()) as [[null, string | null], [null, number]];
    if (count === null || ttl <= 0) return null;
    return { count: Number(count), resetAt: Date.now() + ttl };
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const k = this.prefix + key;
    // PEXPIRE NX starts the window on the first hit only.
    const [[, count], , [, ttl]] = (await this.redis
      .multi()
      .incr(k)
      .pexpire(k, windowMs, 'NX')
      .pttl(k)
      .exec()) as [[null, number], [null, number], [null, number]];
    return { count, resetAt: Date.now() + (ttl > 0 ? ttl : windowMs) };
  }

  async release(key: string): Promise<void> {
    // One script, so a window that expires meanwhile is not revived as a key without an expiry.
    await this.redis.eval(RELEASE_SCRIPT, 1, this.prefix + key);
  }

  async close(): Promise<void> {}
}

const RELEASE_SCRIPT = `
if redis.call('pttl', KEYS[1]) > 0 and tonumber(redis.call('get', KEYS[1])) > 0 then
  return redis.call('decr', KEYS[1])
end
return 0`;
