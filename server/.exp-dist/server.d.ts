import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { type Services } from './services.js';
import type { HearthApp } from './types.js';
import { WorkerLoop } from './worker/loop.js';
export interface RunningServer {
  app: HearthApp;
  services: Services;
  url: string;
  worker: WorkerLoop | null;
  close(): Promise<void>;
}
/** Opens storage, migrates, builds the app and listens; `close` undoes all of it in order. */
export declare function startServer(
  config: Config,
  options?: {
    worker?: boolean;
    logger?: FastifyServerOptions['logger'];
  },
): Promise<RunningServer>;
