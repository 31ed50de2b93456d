import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
/**
 * Bodies are validated strictly (no type coercion, unknown fields rejected rather than stripped);
 * query strings and path parameters arrive as text, so they are coerced.
 */
export declare function installValidators(app: FastifyInstance): void;
export declare function sendError(reply: FastifyReply, err: HttpError): FastifyReply;
export type Fallback = (req: FastifyRequest, reply: FastifyReply) => boolean;
/**
 * One handler writes every error as `{error:{code,message}}`, 404 and 405 included. Install it before
 * any route so the 405 lookup sees them all; `fallbacks` may gain handlers later (the admin UI).
 */
export declare function installErrorHandling(app: FastifyInstance, fallbacks: Fallback[]): void;
