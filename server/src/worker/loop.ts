import type { TaskStatusView } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { newId } from '../platform/crypto.js';
import type { Database } from '../platform/db/schema.js';
import type { Services } from '../services.js';

export interface Task {
  name: string;
  everyMs: number;
  run(): Promise<string | undefined>;
}

const LEASE = 'main';
const LEASE_TTL_MS = 30_000;
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
  ];
}

/** The worker's shared state in the database: the lease that elects one worker, and each task's last run. */
export class WorkerState {
  constructor(private readonly db: Kysely<Database>) {}

  /** Takes or renews the lease; false while another worker holds an unexpired one. */
  async lease(
    holder: string,
    now = Date.now(),
  ): Promise<{ held: boolean; restartRequestedAt: string | null }> {
    const at = new Date(now).toISOString();
    const expires = new Date(now + LEASE_TTL_MS).toISOString();
    const updated = await this.db
      .updateTable('worker_lease')
      .set({ holder, expires_at: expires, heartbeat_at: at })
      .where('name', '=', LEASE)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', at)]))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      await this.db
        .insertInto('worker_lease')
        .values({ name: LEASE, holder, expires_at: expires, heartbeat_at: at, restart_requested_at: null })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    }
    const row = await this.db
      .selectFrom('worker_lease')
      .selectAll()
      .where('name', '=', LEASE)
      .executeTakeFirst();
    return { held: row?.holder === holder, restartRequestedAt: row?.restart_requested_at ?? null };
  }

  async release(holder: string): Promise<void> {
    await this.db.deleteFrom('worker_lease').where('name', '=', LEASE).where('holder', '=', holder).execute();
  }

  async clearRestart(requestedAt: string): Promise<void> {
    await this.db
      .updateTable('worker_lease')
      .set({ restart_requested_at: null })
      .where('name', '=', LEASE)
      .where('restart_requested_at', '=', requestedAt)
      .execute();
  }

  async requestRestart(): Promise<{ restart_requested: boolean; requested_at: string }> {
    const at = new Date().toISOString();
    const r = await this.db
      .updateTable('worker_lease')
      .set({ restart_requested_at: at })
      .where('name', '=', LEASE)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) {
      // No worker has run yet: leave the request for the first one.
      await this.db
        .insertInto('worker_lease')
        .values({ name: LEASE, holder: '', expires_at: at, heartbeat_at: at, restart_requested_at: at })
        .onConflict((oc) => oc.column('name').doUpdateSet({ restart_requested_at: at }))
        .execute();
    }
    return { restart_requested: true, requested_at: at };
  }

  async recordRun(
    task: Task,
    run: { at: string; durationMs: number; result: string | null; error: string | null },
  ): Promise<void> {
    const failed = run.error ? 1 : 0;
    await this.db
      .insertInto('worker_task')
      .values({
        name: task.name,
        every_ms: task.everyMs,
        last_run_at: run.at,
        last_duration_ms: run.durationMs,
        last_error: run.error,
        last_result: run.result,
        runs: 1,
        failures: failed,
      })
      .onConflict((oc) =>
        oc.column('name').doUpdateSet((eb) => ({
          every_ms: task.everyMs,
          last_run_at: run.at,
          last_duration_ms: run.durationMs,
          last_error: run.error,
          last_result: run.result,
          runs: eb('worker_task.runs', '+', 1),
          failures: eb('worker_task.failures', '+', failed),
        })),
      )
      .execute();
  }

  async status(now = Date.now()): Promise<TaskStatusView> {
    const lease = await this.db
      .selectFrom('worker_lease')
      .selectAll()
      .where('name', '=', LEASE)
      .executeTakeFirst();
    const tasks = await this.db.selectFrom('worker_task').selectAll().orderBy('name').execute();
    const heartbeat = lease?.holder ? lease.heartbeat_at : null;
    return {
      worker: {
        holder: lease?.holder || null,
        heartbeat_at: heartbeat,
        alive: !!heartbeat && now - Date.parse(heartbeat) < LEASE_TTL_MS,
      },
      tasks: tasks.map((t) => ({
        ...t,
        every_ms: Number(t.every_ms),
        runs: Number(t.runs),
        failures: Number(t.failures),
      })),
    };
  }
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
