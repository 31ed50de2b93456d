import { Redis } from 'ioredis';
import { AuthService } from './features/auth/service.js';
import { HouseholdService } from './features/household/service.js';
import { UserService } from './features/users/service.js';
import { MemoryCounterStore, RedisCounterStore } from './platform/rate-limit.js';
export function buildServices(config, db) {
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 })
    : null;
  const counters = redis ? new RedisCounterStore(redis) : new MemoryCounterStore();
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
//# sourceMappingURL=services.js.map
