/** The first worker tasks; later work adds its own to this list. */
export function defaultTasks(services) {
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
  tasks;
  log;
  tickMs;
  state = new Map();
  timer = null;
  running = null;
  nextRun = new Map();
  constructor(tasks, log, tickMs = 1000) {
    this.tasks = tasks;
    this.log = log;
    this.tickMs = tickMs;
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
  start() {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = null));
    }, this.tickMs);
    this.timer.unref();
  }
  async tick(now = Date.now()) {
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
  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
//# sourceMappingURL=loop.js.map
