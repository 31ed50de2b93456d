import type { FastifyBaseLogger } from 'fastify';

import { Redis } from 'ioredis';
import { AgentChannel } from './agent-channel/channel.js';
import { CommandQueue } from './agent-channel/queue.js';
import type { ChannelTimings } from './agent-channel/types.js';
import type { Config } from './config.js';
import { registerAgentMessages as registerAlertMessages } from './features/alerts/agent-messages.js';
import { AlertService } from './features/alerts/service.js';
import { ApprovalService } from './features/approvals/service.js';
import { AuthService } from './features/auth/service.js';
import { DashboardService } from './features/dashboard/service.js';
import { registerEnrolment } from './features/devices/enrolment.js';
import { DeviceRepository } from './features/devices/repository.js';
import { DeviceService } from './features/devices/service.js';
import { EventHub } from './features/events/hub.js';
import { HouseholdRepository } from './features/household/repository.js';
import { HouseholdService } from './features/household/service.js';
import { registerAgentMessages as registerInventoryMessages } from './features/inventory/agent-messages.js';
import { AppPolicyService } from './features/inventory/policy.js';
import { InventoryService } from './features/inventory/service.js';
import { PairingService } from './features/pairing/service.js';
import { registerAgentMessages as registerUsageMessages } from './features/usage/agent-messages.js';
import { UsageRepository } from './features/usage/repository.js';
import { UserService } from './features/users/service.js';
import { type Bus, MemoryBus, RedisBus } from './platform/bus.js';
import type { Db } from './platform/db/database.js';
import { EventPublisher } from './platform/events.js';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from './platform/rate-limit.js';
import { ReadCache } from './platform/read-cache.js';
import { WorkerState } from './worker/loop.js';

/** Everything a route module may call; built once per process. */
export interface Services {
  config: Config;
  db: Db;
  log: FastifyBaseLogger;
  bus: Bus;
  counters: CounterStore;
  /** Hot reads kept in memory between the writes that change them. */
  cache: ReadCache;
  events: EventPublisher;
  queue: CommandQueue;
  /** The agents' WebSocket channel. */
  channel: AgentChannel;
  auth: AuthService;
  household: HouseholdService;
  users: UserService;
  devices: DeviceService;
  pairing: PairingService;
  alerts: AlertService;
  approvals: ApprovalService;
  inventory: InventoryService;
  appPolicy: AppPolicyService;
  eventHub: EventHub;
  dashboard: DashboardService;
  worker: WorkerState;
  /** Bearer requests per device per minute (DESIGN §8). */
  limitDevice(systemId: string): Promise<number | null>;
  limitIp(key: string, max: number, windowMs: number): Promise<number | null>;
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
  const cache = new ReadCache(bus);
  const queue = new CommandQueue(db.kysely);
  const channel = new AgentChannel(db.kysely, bus, queue, log, timings);
  const users = new UserService(db, channel, cache);
  const devices = new DeviceService(db, channel, queue, events, cache);
  const alerts = new AlertService(db.kysely, events);
  const auth = new AuthService(db, counters, cache);
  const eventHub = new EventHub(bus, log, (sessionId) => auth.sessionExists(sessionId));
  const approvals = new ApprovalService(db, users, events, cache);
  const inventory = new InventoryService(db.kysely, users, devices, events);
  const appPolicy = new AppPolicyService(db.kysely, users, devices);
  registerEnrolment(channel, {
    devices: new DeviceRepository(db.kysely),
    households: new HouseholdRepository(db.kysely),
    cache,
    events,
    config,
  });
  registerUsageMessages(channel, { usage: new UsageRepository(db.kysely) });
  registerAlertMessages(channel, { alerts });
  const stopInventoryMessages = registerInventoryMessages(channel, { inventory, appPolicy, log });
  return {
    config,
    db,
    log,
    bus,
    counters,
    cache,
    events,
    queue,
    channel,
    auth,
    household: new HouseholdService(db.kysely, cache),
    users,
    devices,
    pairing: new PairingService(db.kysely, config),
    alerts,
    approvals,
    inventory,
    appPolicy,

    eventHub,
    dashboard: new DashboardService(users, devices, alerts, (actor) => approvals.countPending(actor)),

    worker: new WorkerState(db.kysely),
    async limitIp(key, max, windowMs) {
      const window = await counters.hit(`ip:${key}`, windowMs);
      return window.count > max ? Math.ceil((window.resetAt - Date.now()) / 1000) : null;
    },
    async limitDevice(systemId) {
      const window = await counters.hit(`bearer:${systemId}`, 60_000);
      return window.count > BEARER_PER_MINUTE ? Math.ceil((window.resetAt - Date.now()) / 1000) : null;
    },
    async close() {
      stopInventoryMessages();
      await channel.close();
      await eventHub.close();
      await cache.close();

      await counters.close();
      await bus.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
