import { type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Services } from './services.js';
import type { HearthApp } from './types.js';
export interface BuildAppOptions {
  config: Config;
  services: Services;
  logger?: FastifyServerOptions['logger'];
}
/** Builds the Fastify app from its parts; no side effects until `listen`. */
export declare function buildApp({ config, services, logger }: BuildAppOptions): Promise<HearthApp>;
