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
export declare function defaultTasks(services: Services): Task[];
/** Runs each task on its interval, one at a time, recording how each run went. */
export declare class WorkerLoop {
  private readonly tasks;
  private readonly log;
  private readonly tickMs;
  readonly state: Map<string, TaskState>;
  private timer;
  private running;
  private readonly nextRun;
  constructor(tasks: Task[], log: FastifyBaseLogger, tickMs?: number);
  start(): void;
  tick(now?: number): Promise<void>;
  stop(): Promise<void>;
}
