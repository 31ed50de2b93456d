import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { AgentHub, type ChannelTimings } from './agent-channel/hub.js';
import { CommandQueue } from './agent-channel/queue.js';
import type { Config } from './config.js';
import { AuthService } from './features/auth/service.js';
import { DeviceService } from './features/devices/service.js';
import { HouseholdService } from './features/household/service.js';
import { PairingService } from './features/pairing/service.js';
import { UserService } from './features/users/service.js';
import { type Bus, MemoryBus, RedisBus } from './platform/bus.js';
import type { Db } from './platform/db/database.js';
import { EventPublisher } from './platform/events.js';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from './platform/rate-limit.js';

/** Everything a route module may call; built once per process. */
export interface Services {
  config: Config;
  db: Db;
  log: FastifyBaseLogger;
  bus: Bus;
  counters: CounterStore;
  events: EventPublisher;
  queue: CommandQueue;
  hub: AgentHub;
  auth: AuthService;
  household: HouseholdService;
  users: UserService;
  devices: DeviceService;
  pairing: PairingService;
  /** Bearer requests per device per minute (DESIGN §8). */
  limitDevice(systemId: string): Promise<number | null>;
  close(): Promise<void>;
}

const BEARER_PER_MINUTE = 600;

export function buildServices(
  config: Config,
  db: Db,
  log: FastifyBaseLogger,
  timings?: ChannelTimings,
): Services {
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2 }) : null;
  const counters: CounterStore = redis ? new RedisCounterStore(redis) : new MemoryCounterStore();
  const bus: Bus = config.redisUrl ? new RedisBus(config.redisUrl) : new MemoryBus();
  const events = new EventPublisher(bus, log);
  const queue = new CommandQueue(db.kysely);
  const hub = new AgentHub(db.kysely, bus, queue, events, config, log, timings);
  return {
    config,
    db,
    log,
    bus,
    counters,
    events,
    queue,
    hub,
    auth: new AuthService(db.kysely, counters),
    household: new HouseholdService(db.kysely),
    users: new UserService(db.kysely, hub),
    devices: new DeviceService(db.kysely, hub, queue, events),
    pairing: new PairingService(db.kysely, config),
    async limitDevice(systemId) {
      const window = await counters.hit(`bearer:${systemId}`, 60_000);
      return window.count > BEARER_PER_MINUTE ? Math.ceil((window.resetAt - Date.now()) / 1000) : null;
    },
    async close() {
      await hub.close();
      await counters.close();
      await bus.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
