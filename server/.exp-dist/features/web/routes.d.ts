import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HearthApp } from '../../types.js';
/** The built admin UI, found beside the server in the repository unless HEARTH_WEB_DIR says otherwise. */
export declare function defaultWebDir(): string;
export declare function webRoutes(
  app: HearthApp,
  webDir: string,
): Promise<(req: FastifyRequest, reply: FastifyReply) => boolean>;
