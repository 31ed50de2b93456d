import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { type ErrorAnswer, type ErrorDetail, HttpError } from './errors.js';
import { plainValidation } from './plain-errors.js';
import { coercingAjv, strictAjv } from './validate.js';

/** Bodies are validated strictly; query strings and path parameters are coerced from text. */
export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strictAjv.compile(schema) : coercingAjv.compile(schema),
  );
}

// Fastify's own client errors, translated into the envelope's vocabulary.
const FASTIFY_CLIENT_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'The request body is larger than the 1 MiB limit.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    400,
    'Send the body as JSON (application/json) or as a form (application/x-www-form-urlencoded).',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'The JSON body is empty.'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'The body is not valid JSON.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'The Content-Length header does not match the body.'],
  FST_ERR_BAD_URL: [400, 'The URL is malformed.'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'The request could not be routed.'],
};

export function sendError(reply: FastifyReply, err: ErrorAnswer): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  const body: { code: string; message: string; details?: ErrorDetail[] } = {
    code: err.code,
    message: err.message,
  };
  if (err.details?.length) body.details = err.details;
  return reply.code(err.statusCode).type('application/json; charset=utf-8').send({ error: body });
}

export type Fallback = (req: FastifyRequest, reply: FastifyReply) => boolean;

/**
 * One handler writes every error as `{error:{code,message}}`, 404 and 405 included. Install it before
 * any route so the 405 lookup sees them all; `fallbacks` may gain handlers later (the admin UI).
 */
export function installErrorHandling(app: FastifyInstance, fallbacks: Fallback[]): void {
  // A second router only answers "does this path exist under another method?" for 405s.
  const shapes = FindMyWay({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false });
  const noop = () => {};
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      try {
        shapes.on(method as 'GET', route.url, noop);
      } catch {
        // Duplicate shapes (e.g. HEAD twins) are harmless here.
      }
    }
  });

  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) return sendError(reply, error);
    const fe = error as FastifyError & { validation?: ErrorObject[]; validationContext?: string };
    if (fe.validation) {
      const { message, details } = plainValidation(fe.validation, fe.validationContext);
      return sendError(reply, new HttpError(400, 'invalid_request', message, details));
    }
    const known = fe.code ? FASTIFY_CLIENT_ERRORS[fe.code] : undefined;
    if (known) {
      const [status, message] = known;
      return sendError(
        reply,
        new HttpError(status, status === 413 ? 'payload_too_large' : 'invalid_request', message),
      );
    }
    if (fe.statusCode === 429) {
      return sendError(reply, new HttpError(429, 'rate_limited', 'Too many requests; please wait a moment.'));
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      return sendError(reply, new HttpError(fe.statusCode, 'invalid_request', fe.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      reply,
      new HttpError(500, 'internal_error', 'Something went wrong on the server. Please try again.'),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    if (fallbacks.some((fallback) => fallback(request, reply))) return reply;
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
      (m) => m !== request.method && shapes.find(m as 'GET', path) !== null,
    );
    if (allowed.length) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        reply,
        new HttpError(
          405,
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allowed.join(' or ')}.`,
        ),
      );
    }
    return sendError(reply, new HttpError(404, 'not_found', `Nothing is at ${request.method} ${path}.`));
  });
}

/** For action routes whose body is optional: no body (or JSON null) validates as `{}`. */
export async function optionalBody(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
