import { ErrorBody } from '@hearth/protocol';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, preValidationHookHandler, RouteHandlerMethod } from 'fastify';
import type { HearthApp } from '../types.js';
import { type BearerDevice, requireDevice, requireSession, type SessionAuth } from './access.js';

/** The `:id` of most object routes. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** The documented error answers of a route, each with the error envelope. */
export function errorBodies<S extends number>(...statuses: S[]): Record<S, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody])) as Record<S, typeof ErrorBody>;
}

type Caller = 'session' | 'session:admin' | 'bearer';
type Actor<C extends Caller> = C extends 'bearer' ? BearerDevice : SessionAuth;
type Request<P extends TSchema, Q extends TSchema, B extends TSchema> = FastifyRequest<{
  Params: Static<P>;
  Querystring: Static<Q>;
  Body: Static<B>;
}>;

/**
 * An answer given to many requests (a kept answer): serialised once, by the route's own serialiser,
 * and then sent as that text instead of being serialised again for each request.
 */
export class KeptAnswer<T> {
  text: string | null = null;
  constructor(readonly value: T) {}
}

/** One route: its OpenAPI summary, what it takes and what it answers. */
export interface RouteShape<P extends TSchema, Q extends TSchema, B extends TSchema, R extends TSchema> {
  summary: string;
  params?: P;
  querystring?: Q;
  body?: B;
  /** The success answer; 200 unless `status` says otherwise. */
  reply: R;
  status?: 201 | 202;
  /** More documented answers, such as a 201 beside the 200 or a 303 redirect. */
  also?: Record<number, TSchema>;
  /** Instead of the group's error answers. */
  errors?: Record<number, TSchema>;
  /** Instead of the group's access. */
  access?: Caller;
  tags?: string[];
  /** Runs before validation: `optionalBody` lets no body (or JSON null) validate as `{}`. */
  preValidation?: preValidationHookHandler;
  ipLimit?: { max: number; windowMs: number };
}

/**
 * Registers routes that take their caller (a signed-in parent or an agent's device), make one
 * service call and answer with its result. The schema keeps the shape every hand-written route had:
 * tags, summary, params, querystring or body, then the responses.
 */
export function routeGroup<C extends Caller>(
  app: HearthApp,
  group: { access: C; tags: string[]; errors: Record<number, TSchema> },
) {
  const add =
    (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    <
      R extends TSchema,
      P extends TSchema = TSchema,
      Q extends TSchema = TSchema,
      B extends TSchema = TSchema,
    >(
      url: string,
      shape: RouteShape<P, Q, B, R>,
      run: (
        actor: Actor<C>,
        request: Request<P, Q, B>,
        reply: FastifyReply,
      ) => Promise<Static<R> | KeptAnswer<Static<R>>>,
    ): void => {
      const access = shape.access ?? group.access;
      const status = shape.status ?? 200;
      const schema = {
        tags: shape.tags ?? group.tags,
        summary: shape.summary,
        ...(shape.params ? { params: shape.params } : {}),
        ...(shape.querystring ? { querystring: shape.querystring } : {}),
        ...(shape.body ? { body: shape.body } : {}),
        response: { [status]: shape.reply, ...shape.also, ...(shape.errors ?? group.errors) },
      };
      const handler = async (request: Request<P, Q, B>, reply: FastifyReply) => {
        const actor = (access === 'bearer' ? requireDevice(request) : requireSession(request)) as Actor<C>;
        const result = await run(actor, request, reply);
        if (shape.status) reply.code(shape.status);
        if (!(result instanceof KeptAnswer)) return result;
        result.text ??= String(reply.serialize(result.value));
        // A string with a JSON content type is sent as it is, without the serialiser.
        reply.type('application/json; charset=utf-8');
        return result.text;
      };
      app.route({
        method,
        url,
        config: shape.ipLimit ? { access, ipLimit: shape.ipLimit } : { access },
        ...(shape.preValidation ? { preValidation: shape.preValidation } : {}),
        schema,
        handler: handler as RouteHandlerMethod,
      });
    };
  return { get: add('GET'), post: add('POST'), put: add('PUT'), patch: add('PATCH'), delete: add('DELETE') };
}
