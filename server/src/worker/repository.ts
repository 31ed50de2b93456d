import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';

/** One worker run of a task, as recorded. */
export interface TaskRun {
  name: string;
  everyMs: number;
  at: string;
  durationMs: number;
  result: string | null;
  error: string | null;
}

/** The worker lease rows and the task run log. */
export class WorkerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Takes the lease for `holder` if it holds it already or it has expired; false otherwise. */
  async renewLease(name: string, holder: string, at: string, expiresAt: string): Promise<boolean> {
    const updated = await this.db
      .updateTable('worker_lease')
      .set({ holder, expires_at: expiresAt, heartbeat_at: at })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', at)]))
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Creates the lease for `holder` unless another instance created it first. */
  async insertLease(name: string, holder: string, at: string, expiresAt: string): Promise<void> {
    await this.db
      .insertInto('worker_lease')
      .values({ name, holder, expires_at: expiresAt, heartbeat_at: at, restart_requested_at: null })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }

  lease(name: string) {
    return this.db.selectFrom('worker_lease').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('worker_lease').where('name', '=', name).where('holder', '=', holder).execute();
  }

  async clearRestart(name: string, requestedAt: string): Promise<void> {
    await this.db
      .updateTable('worker_lease')
      .set({ restart_requested_at: null })
      .where('name', '=', name)
      .where('restart_requested_at', '=', requestedAt)
      .execute();
  }

  /** Marks a restart request on the lease, creating the lease row when no worker has run yet. */
  async requestRestart(name: string, at: string): Promise<void> {
    const r = await this.db
      .updateTable('worker_lease')
      .set({ restart_requested_at: at })
      .where('name', '=', name)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return;
    await this.db
      .insertInto('worker_lease')
      .values({ name, holder: '', expires_at: at, heartbeat_at: at, restart_requested_at: at })
      .onConflict((oc) => oc.column('name').doUpdateSet({ restart_requested_at: at }))
      .execute();
  }

  async recordRun(run: TaskRun): Promise<void> {
    const failed = run.error ? 1 : 0;
    await this.db
      .insertInto('worker_task')
      .values({
        name: run.name,
        every_ms: run.everyMs,
        last_run_at: run.at,
        last_duration_ms: run.durationMs,
        last_error: run.error,
        last_result: run.result,
        runs: 1,
        failures: failed,
      })
      .onConflict((oc) =>
        oc.column('name').doUpdateSet((eb) => ({
          every_ms: run.everyMs,
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

  tasks() {
    return this.db.selectFrom('worker_task').selectAll().orderBy('name').execute();
  }
}
