import type { FastifyBaseLogger } from 'fastify';

import { Redis } from 'ioredis';
import { AgentChannel } from './agent-channel/channel.js';
import { isConsole, PolicySyncRepository } from './agent-channel/policy-sync.js';
import { CommandQueue } from './agent-channel/queue.js';
import type { ChannelTimings } from './agent-channel/types.js';
import type { Config } from './config.js';
import { AccessRepository } from './features/access/repository.js';
import { AccessService } from './features/access/service.js';
import { registerAgentMessages as registerAlertMessages } from './features/alerts/agent-messages.js';
import { AlertRepository } from './features/alerts/repository.js';
import { AlertService } from './features/alerts/service.js';
import { OnlineAccountService } from './features/approvals/online-account-service.js';
import { ApprovalRepository } from './features/approvals/repository.js';
import { ApprovalService } from './features/approvals/service.js';
import { SignupService } from './features/approvals/signup-service.js';
import { SessionRepository } from './features/auth/repository.js';
import { AuthService } from './features/auth/service.js';
import { registerAgentMessages as registerBlocklistMessages } from './features/blocklists/agent-messages.js';
import { DomainPolicyService } from './features/blocklists/policy.js';
import { BlocklistRepository } from './features/blocklists/repository.js';
import { SourceService } from './features/blocklists/sources.js';
import { ListStore } from './features/blocklists/store.js';
import { createNintendoProvider } from './features/consoles/providers/nintendo.js';
import { createXboxProvider } from './features/consoles/providers/xbox.js';
import { ConsoleRepository } from './features/consoles/repository.js';
import { ConsoleService } from './features/consoles/service.js';
import { DashboardService } from './features/dashboard/service.js';
import { DevicePolicyRepository } from './features/device-policies/repository.js';
import { DevicePolicyService } from './features/device-policies/service.js';
import { registerAgentMessages as registerDeviceMessages } from './features/devices/agent-messages.js';
import { registerEnrolment } from './features/devices/enrolment.js';
import { DeviceRepository, DeviceTokenRepository } from './features/devices/repository.js';
import { DeviceService } from './features/devices/service.js';
import { audienceReader } from './features/events/audience.js';
import { EventHub } from './features/events/hub.js';
import { HouseholdRepository } from './features/household/repository.js';
import { HouseholdService } from './features/household/service.js';
import { registerAgentMessages as registerInventoryMessages } from './features/inventory/agent-messages.js';
import { AppPolicyService } from './features/inventory/policy.js';
import { AppPolicyRepository } from './features/inventory/policy-repository.js';
import { InventoryRepository } from './features/inventory/repository.js';
import { InventoryService } from './features/inventory/service.js';
import { PairingService } from './features/pairing/service.js';
import { ScreenshotRepository } from './features/screenshots/repository.js';
import { ScreenshotService } from './features/screenshots/service.js';
import { registerAgentMessages as registerTimeMessages } from './features/time/agent-messages.js';
import { TimeRepository } from './features/time/repository.js';
import { TimeService } from './features/time/service.js';
import { registerAgentMessages as registerUsageMessages } from './features/usage/agent-messages.js';
import { UsageRepository } from './features/usage/repository.js';
import { UsageService } from './features/usage/service.js';
import { UserRepository } from './features/users/repository.js';
import { type ReleasedAccount, UserService } from './features/users/service.js';
import { type Bus, MemoryBus, RedisBus } from './platform/bus.js';
import { SecretBox } from './platform/crypto.js';
import type { Db } from './platform/db/database.js';
import { EventPublisher } from './platform/events.js';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from './platform/rate-limit.js';
import { ReadCache } from './platform/read-cache.js';
import { SafeFetcher } from './platform/safe-fetch.js';
import { ensureSecretKey } from './platform/secret-key.js';
import { WorkerRepository } from './worker/repository.js';
import { WorkerState } from './worker/state.js';

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
  /** Which objects (children, devices, mappings, requests, alerts) a parent may use. */
  access: AccessService;
  auth: AuthService;
  household: HouseholdService;
  users: UserService;
  devices: DeviceService;
  pairing: PairingService;
  alerts: AlertService;
  approvals: ApprovalService;
  signups: SignupService;
  onlineAccounts: OnlineAccountService;
  inventory: InventoryService;
  appPolicy: AppPolicyService;
  eventHub: EventHub;
  dashboard: DashboardService;
  /** Weekly schedules, adjustments, the pause, today's usage and set_time_policy delivery. */
  time: TimeService;
  usage: UsageService;
  /** Blocklist sources: manual lists and URL lists fetched through the safe fetch (DESIGN §11). */
  blocklists: SourceService;
  /** Each child's compiled domain policy, its delivery, the agents' fetch and the domain check. */
  domainPolicy: DomainPolicyService;
  /** Linux and Android device policies and their delivery (DESIGN §12). */
  devicePolicies: DevicePolicyService;
  /** Captures, uploads, the gallery, retention and periodic captures (DESIGN §12). */
  screenshots: ScreenshotService;
  /** Linked console accounts, imported consoles and their sync (DESIGN §13). */
  consoles: ConsoleService;
  worker: WorkerState;
  /** Fetches URLs parents type (blocklist sources) without reaching the server's own network (DESIGN §8). */
  safeFetcher: SafeFetcher;
  /** Bearer requests per device per minute (600; over it, 429 with Retry-After). */
  limitDevice(systemId: string): Promise<number | null>;
  limitIp(key: string, max: number, windowMs: number): Promise<number | null>;
  close(): Promise<void>;
}

const BEARER_PER_MINUTE = 600;

export function buildServices(
  config: Config,
  db: Db,
  log: FastifyBaseLogger,
  timings?: Partial<ChannelTimings>,
): Services {
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2 }) : null;
  const counters: CounterStore = redis ? new RedisCounterStore(redis) : new MemoryCounterStore();
  const bus: Bus = config.redisUrl ? new RedisBus(config.redisUrl) : new MemoryBus();
  const events = new EventPublisher(bus, log);
  const cache = new ReadCache(bus);
  const safeFetcher = new SafeFetcher({
    allowCidrs: config.fetchAllowCidrs,
    dnsServers: config.fetchDnsServers,
  });
  const queue = new CommandQueue(db.kysely);
  const channel = new AgentChannel(db.kysely, bus, queue, log, timings);
  const access = new AccessService(new AccessRepository(db.kysely), cache);
  const userRepo = new UserRepository(db);
  const deviceRepo = new DeviceRepository(db.kysely);
  const householdRepo = new HouseholdRepository(db.kysely);
  const approvalRepo = new ApprovalRepository(db);
  // Unlinking an account (or removing its child) lifts a pause on screen and the child's app and
  // time rules on its device, now or when it next connects.
  const releaseAccounts = async (accounts: ReleasedAccount[]): Promise<void> => {
    for (const account of accounts) {
      const device = await deviceRepo.bySystemId(account.system_id);
      // A console has no agent to hear a release: its vendor keeps the limits until a parent changes them.
      if (device?.status !== 'approved' || isConsole(device)) continue;
      await devices.command(account.system_id, 'dismiss_overlay', { linux_username: account.linux_username });
      await appPolicy.release(account.system_id, account.linux_username);
      await time.release(device, account.linux_username);
      await domainPolicy.release(account.system_id, account.linux_username);
      await devicePolicies.release(device, account.linux_username);
    }
  };
  // A newly mapped account hears the child's current time and domain policies.
  const users = new UserService(userRepo, deviceRepo, access, cache, releaseAccounts, async (childId) => {
    await time.mappingAdded(childId);
    await domainPolicy.mappingAdded(childId);
  });
  const devices = new DeviceService(
    deviceRepo,
    new DeviceTokenRepository(db),
    access,
    channel,
    queue,
    events,
    cache,
  );
  const alerts = new AlertService(new AlertRepository(db), userRepo, access, events, counters, cache);
  const auth = new AuthService(new SessionRepository(db), householdRepo, counters, cache);
  const eventHub = new EventHub(
    bus,
    log,
    (sessionId) => auth.sessionExists(sessionId),
    audienceReader({
      access,
      sessionExists: (sessionId) => auth.sessionExists(sessionId),
      parentRole: async (householdId, parentId) =>
        (await householdRepo.getParent(householdId, parentId))?.role,
    }),
  );
  const time = new TimeService(
    new TimeRepository(db),
    access,
    devices,
    channel,
    cache,
    (householdId, date) => userRepo.usageOfHousehold(householdId, date),
    events,
    log,
  );
  const devicePolicies = new DevicePolicyService(
    new DevicePolicyRepository(db.kysely),
    access,
    devices,
    events,
    log,
  );
  const screenshots = new ScreenshotService(
    new ScreenshotRepository(db.kysely),
    access,
    devices,
    channel,
    events,
    {
      dataDir: config.dataDir,
      storage: config.screenshotStorage,
      retentionDays: config.screenshotRetentionDays,
    },
    log,
  );
  const blocklistRepo = new BlocklistRepository(db);
  const listStore = new ListStore((id) => blocklistRepo.content(id));
  const domainPolicy = new DomainPolicyService(blocklistRepo, listStore, access, devices, cache, log);
  const blocklists = new SourceService(
    blocklistRepo,
    listStore,
    safeFetcher,
    (childIds) => domainPolicy.sourcesChanged(childIds),
    cache,
    log,
  );
  const approvals = new ApprovalService(
    approvalRepo,
    access,
    events,
    cache,
    (childId, minutes, requestId, parentId) => time.addApprovedTime(childId, minutes, requestId, parentId),
    // An approved domain_unblock becomes an allow in the child's domain policy at once.
    (childId) => domainPolicy.grantsChanged(childId),
  );
  const dashboard = new DashboardService(
    access,
    users,
    devices,
    alerts,
    (actor) => approvals.countPending(actor),
    (actor) => time.householdToday(actor),
  );
  // A change of who may see what reaches the streams as the cache hears it, on every instance; the
  // dashboards kept for a moment hear it too, and every live event.
  cache.onDrop((tags) => {
    eventHub.accessChanged(tags);
    dashboard.cacheDropped(tags);
    time.forgetKept();
  });
  eventHub.onEvent((householdId) => {
    dashboard.eventHeard(householdId);
    time.forgetKept();
  });
  const inventory = new InventoryService(new InventoryRepository(db.kysely), access, devices, events);
  const appPolicy = new AppPolicyService(new AppPolicyRepository(db.kysely), access, devices);
  registerEnrolment(channel, {
    devices: deviceRepo,
    households: householdRepo,
    cache,
    events,
    counters,
    config,
  });
  const usageRepo = new UsageRepository(db);
  const consoles = new ConsoleService(
    new ConsoleRepository(db.kysely),
    {
      xbox: createXboxProvider({ authBase: config.xboxAuthBase, apiBase: config.xboxApiBase }),
      nintendo: createNintendoProvider({
        authBase: config.nintendoAuthBase,
        apiBase: config.nintendoApiBase,
        appVersion: config.nintendoAppVersion,
      }),
    },
    new SecretBox(ensureSecretKey(config.dataDir, config.secretKey), 'console-credentials'),
    access,
    devices,
    time,
    new PolicySyncRepository(db.kysely, 'time_policy_sync'),
    usageRepo,
    events,
    cache,
    log,
  );
  time.consoles = consoles;
  registerUsageMessages(channel, {
    usage: usageRepo,
    log,
    // Cross-device totals: the child's other online devices hear the sum (DESIGN §10).
    onRecorded: (device, report) => time.onUsageRecorded(device, report.linux_username),
  });
  registerTimeMessages(channel, { time, log });
  registerBlocklistMessages(channel, {
    policy: domainPolicy,
    log,
    onDevicePolicyApplied: (device, message) => devicePolicies.onApplied(device, message),
  });
  channel.onAnswered((systemId, command, args, result) => {
    devicePolicies
      .onAnswered(
        systemId,
        command,
        args,
        result,
        async (id) => (await deviceRepo.bySystemId(id))?.household_id,
      )
      .catch((err) => log.warn({ err }, 'could not record device policy sync'));
  });
  registerAlertMessages(channel, { alerts });
  registerDeviceMessages(channel, { devices: deviceRepo, events, log });
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
    access,
    auth,
    household: new HouseholdService(householdRepo, userRepo, cache),
    users,
    devices,
    pairing: new PairingService(householdRepo, config),
    alerts,
    approvals,
    signups: new SignupService(approvalRepo, access, approvals, cache, (mappingId) =>
      domainPolicy.grantRemoved(mappingId),
    ),
    onlineAccounts: new OnlineAccountService(approvalRepo, access, cache),
    inventory,
    appPolicy,
    eventHub,
    dashboard,
    time,
    usage: new UsageService(usageRepo, access),
    blocklists,
    domainPolicy,
    devicePolicies,
    screenshots,
    consoles,
    worker: new WorkerState(new WorkerRepository(db.kysely)),
    safeFetcher,
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
      await consoles.idle();
      await blocklists.close();
      await channel.close();
      await eventHub.close();
      await cache.close();

      await counters.close();
      await bus.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
