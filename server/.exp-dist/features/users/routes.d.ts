import type { FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';
/** Form posts from a browser get a redirect; API clients that send or accept JSON get JSON. */
export declare function wantsJson(request: FastifyRequest): boolean;
export declare function userRoutes(app: HearthApp, { users }: Services): void;
