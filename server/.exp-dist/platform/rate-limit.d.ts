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
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}
export declare class MemoryCounterStore implements CounterStore {
  private readonly windows;
  private readonly sweeper;
  constructor(sweepEveryMs?: number);
  peek(key: string): Promise<WindowCount | null>;
  hit(key: string, windowMs: number): Promise<WindowCount>;
  private sweep;
  close(): Promise<void>;
}
export declare class RedisCounterStore implements CounterStore {
  private readonly redis;
  private readonly prefix;
  constructor(redis: Redis, prefix?: string);
  peek(key: string): Promise<WindowCount | null>;
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}
