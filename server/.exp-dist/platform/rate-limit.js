export class MemoryCounterStore {
  windows = new Map();
  sweeper;
  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }
  async peek(key) {
    const entry = this.windows.get(key);
    if (!entry || entry.resetAt <= Date.now()) return null;
    return { ...entry };
  }
  async hit(key, windowMs) {
    const now = Date.now();
    let entry = this.windows.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return { ...entry };
  }
  sweep() {
    const now = Date.now();
    for (const [key, entry] of this.windows) if (entry.resetAt <= now) this.windows.delete(key);
  }
  async close() {
    clearInterval(this.sweeper);
    this.windows.clear();
  }
}
export class RedisCounterStore {
  redis;
  prefix;
  constructor(redis, prefix = 'hearth:rl:') {
    this.redis = redis;
    this.prefix = prefix;
  }
  async peek(key) {
    const [[, count], [, ttl]] = await this.redis
      .multi()
      .get(this.prefix + key)
      .pttl(this.prefix + key)
      .exec();
    if (count === null || ttl <= 0) return null;
    return { count: Number(count), resetAt: Date.now() + ttl };
  }
  async hit(key, windowMs) {
    const k = this.prefix + key;
    // PEXPIRE NX starts the window on the first hit only.
    const [[, count], , [, ttl]] = await this.redis.multi().incr(k).pexpire(k, windowMs, 'NX').pttl(k).exec();
    return { count, resetAt: Date.now() + (ttl > 0 ? ttl : windowMs) };
  }
  async close() {}
}
//# sourceMappingURL=rate-limit.js.map
