import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../platform/crypto.js';
import type { Services } from '../services.js';
import type { WorkerState } from './state.js';

export interface Task {
  name: string;
  everyMs: number;
  run(): Promise<string | undefined>;
}

const LEASE_RENEW_MS = 5_000;

/** The first worker tasks; later work adds its own to this list. */
export function defaultTasks(services: Services): Task[] {
  return [
    {
      name: 'prune-idle-sessions',
      everyMs: 60 * 60 * 1000,
      run: async () => `deleted ${await services.auth.pruneIdleSessions()} idle sessions`,
    },
    {
      name: 'prune-alerts',
      everyMs: 6 * 60 * 60 * 1000,
      run: async () =>
        `deleted ${await services.alerts.pruneOlderThan(services.config.alertRetentionDays)} alerts older than ${services.config.alertRetentionDays} days`,
    },
    {
      name: 'expire-command-queue',
      everyMs: 60 * 1000,
      run: async () => `dropped ${await services.queue.prune()} expired or undeliverable commands`,
    },
    {
      // Each url source is fetched again once its last attempt is a day old (DESIGN §11).
      name: 'refresh-blocklists',
      everyMs: 10 * 60 * 1000,
      run: () => services.blocklists.refreshDue(),
    },
    {
      // An expired (or removed) domain_unblock grant raises the child's domain policy version.
      name: 'expire-domain-grants',
      everyMs: 60 * 1000,
      run: () => services.domainPolicy.expireGrants(),
    },
    {
      // Each linked console account every 5 minutes, sooner after a change of a child's week, later
      // while its vendor fails (DESIGN §13); the run looks for due accounts often.
      name: 'sync-consoles',
      everyMs: 15 * 1000,
      run: () => services.consoles.syncDue(),
    },
    {
      name: 'prune-screenshots',
      everyMs: 60 * 60 * 1000,
      run: () => services.screenshots.prune(),
    },
    {
      // Each mapping with screenshot_interval_minutes > 0, on its online device, when due (DESIGN §12).
      name: 'periodic-screenshots',
      everyMs: 60 * 1000,
      run: () => services.screenshots.capturePeriodic(),
    },
    {
      name: 'prune-console-sign-ins',
      everyMs: 6 * 60 * 60 * 1000,
      run: async () => `deleted ${await services.consoles.pruneLogins()} unfinished console sign-ins`,
    },
  ];
}

/**
 * Runs each task on its interval, one at a time, while this process holds the worker lease; with
 * several instances exactly one of them works.
 */
export class WorkerLoop {
  readonly holder = `worker-${newId()}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly nextRun = new Map<string, number>();
  private lastLease = 0;
  private held = false;

  constructor(
    private readonly tasks: Task[],
    private readonly state: WorkerState,
    private readonly log: FastifyBaseLogger,
    private readonly tickMs = 1000,
  ) {
    for (const t of tasks) this.nextRun.set(t.name, 0);
  }

  get isLeader(): boolean {
    return this.held;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = null));
    }, this.tickMs);
    this.timer.unref();
  }

  async tick(now = Date.now()): Promise<void> {
    if (now - this.lastLease >= LEASE_RENEW_MS || !this.held) {
      this.lastLease = now;
      try {
        const lease = await this.state.lease(this.holder, now);
        this.held = lease.held;
        if (lease.held && lease.restartRequestedAt) {
          for (const t of this.tasks) this.nextRun.set(t.name, 0);
          await this.state.clearRestart(lease.restartRequestedAt);
          this.log.info('worker tasks restarted on request');
        }
      } catch (err) {
        this.held = false;
        this.log.error({ err }, 'worker lease failed');
      }
    }
    if (!this.held) return;
    for (const task of this.tasks) {
      if ((this.nextRun.get(task.name) ?? 0) > now) continue;
      this.nextRun.set(task.name, now + task.everyMs);
      const started = performance.now();
      let result: string | null = null;
      let error: string | null = null;
      try {
        result = (await task.run()) ?? null;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        this.log.error({ err, task: task.name }, 'worker task failed');
      }
      const durationMs = Math.round(performance.now() - started);
      await this.state
        .recordRun(task, { at: new Date().toISOString(), durationMs, result, error })
        .catch((err) => this.log.error({ err }, 'could not record task run'));
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    if (this.held) await this.state.release(this.holder).catch(() => {});
    this.held = false;
  }
}
