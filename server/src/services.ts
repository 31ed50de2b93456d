import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { AuthService } from './features/auth/service.js';
import { HouseholdService } from './features/household/service.js';
import { UserService } from './features/users/service.js';
import type { Db } from './platform/db/database.js';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from './platform/rate-limit.js';

/** Everything a route module may call; built once per app. */
export interface Services {
  config: Config;
  db: Db;
  counters: CounterStore;
  auth: AuthService;
  household: HouseholdService;
  users: UserService;
  close(): Promise<void>;
}

export function buildServices(config: Config, db: Db): Services {
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 })
    : null;
  const counters: CounterStore = redis ? new RedisCounterStore(redis) : new MemoryCounterStore();
  return {
    config,
    db,
    counters,
    auth: new AuthService(db.kysely, counters),
    household: new HouseholdService(db.kysely),
    users: new UserService(db.kysely),
    async close() {
      await counters.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
