import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services.js';

export interface Task {
  name: string;
  everyMs: number;
  run(): Promise<string | undefined>;
}

export interface TaskState {
  name: string;
  last_run_at: string | null;
  last_duration_ms: number | null;
  last_error: string | null;
  last_result: string | null;
}

/** The first worker tasks; later work adds its own to this list. */
export function defaultTasks(services: Services): Task[] {
  return [
    {
      name: 'prune-idle-sessions',
      everyMs: 60 * 60 * 1000,
      run: async () => `deleted ${await services.auth.pruneIdleSessions()} idle sessions`,
    },
  ];
}

/** Runs each task on its interval, one at a time, recording how each run went. */
export class WorkerLoop {
  readonly state = new Map<string, TaskState>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly nextRun = new Map<string, number>();

  constructor(
    private readonly tasks: Task[],
    private readonly log: FastifyBaseLogger,
    private readonly tickMs = 1000,
  ) {
    for (const t of tasks) {
      this.state.set(t.name, {
        name: t.name,
        last_run_at: null,
        last_duration_ms: null,
        last_error: null,
        last_result: null,
      });
      this.nextRun.set(t.name, 0);
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = null));
    }, this.tickMs);
    this.timer.unref();
  }

  async tick(now = Date.now()): Promise<void> {
    for (const task of this.tasks) {
      if ((this.nextRun.get(task.name) ?? 0) > now) continue;
      this.nextRun.set(task.name, now + task.everyMs);
      const state = this.state.get(task.name);
      if (!state) continue;
      const started = performance.now();
      try {
        state.last_result = (await task.run()) ?? null;
        state.last_error = null;
      } catch (err) {
        state.last_error = err instanceof Error ? err.message : String(err);
        this.log.error({ err, task: task.name }, 'worker task failed');
      }
      state.last_run_at = new Date().toISOString();
      state.last_duration_ms = Math.round(performance.now() - started);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
