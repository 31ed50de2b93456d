import type { TaskStatusView } from '@hearth/protocol';
import type { Task } from './loop.js';
import type { WorkerRepository } from './repository.js';

const LEASE = 'main';
export const LEASE_TTL_MS = 30_000;

/** The worker's shared state in the database: the lease that elects one worker, and each task's last run. */
export class WorkerState {
  constructor(private readonly repo: WorkerRepository) {}

  /** Takes or renews the lease; false while another worker holds an unexpired one. */
  async lease(
    holder: string,
    now = Date.now(),
  ): Promise<{ held: boolean; restartRequestedAt: string | null }> {
    const at = new Date(now).toISOString();
    const expires = new Date(now + LEASE_TTL_MS).toISOString();
    if (!(await this.repo.renewLease(LEASE, holder, at, expires)))
      await this.repo.insertLease(LEASE, holder, at, expires);
    const row = await this.repo.lease(LEASE);
    return { held: row?.holder === holder, restartRequestedAt: row?.restart_requested_at ?? null };
  }

  release(holder: string): Promise<void> {
    return this.repo.releaseLease(LEASE, holder);
  }

  clearRestart(requestedAt: string): Promise<void> {
    return this.repo.clearRestart(LEASE, requestedAt);
  }

  /** Asks the worker to run every task again; with no worker yet, the first one to start does. */
  async requestRestart(): Promise<{ restart_requested: boolean; requested_at: string }> {
    const at = new Date().toISOString();
    await this.repo.requestRestart(LEASE, at);
    return { restart_requested: true, requested_at: at };
  }

  recordRun(
    task: Task,
    run: { at: string; durationMs: number; result: string | null; error: string | null },
  ): Promise<void> {
    return this.repo.recordRun({ name: task.name, everyMs: task.everyMs, ...run });
  }

  async status(now = Date.now()): Promise<TaskStatusView> {
    const lease = await this.repo.lease(LEASE);
    const tasks = await this.repo.tasks();
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
