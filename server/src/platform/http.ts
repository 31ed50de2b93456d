import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { type ErrorAnswer, type ErrorDetail, HttpError, invalidRequest } from './errors.js';
import { plainValidation } from './plain-errors.js';
import { coercingAjv, findNul, jsonTooDeep, MAX_JSON_DEPTH, strictAjv } from './validate.js';

/**
 * Bodies are validated strictly; query strings and path parameters are coerced from text. Before any
 * schema runs, JSON deeper than 64 levels and text holding U+0000 (in a body, a query string or a path
 * parameter, JSON and forms alike) are refused with 400: PostgreSQL cannot store the character, and
 * no field of Hearth needs it.
 */
export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strictAjv.compile(schema) : coercingAjv.compile(schema),
  );
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonTooDeep(body as string))
      return done(
        invalidRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects.`),
        undefined,
      );
    parseJson(request, body as string, done);
  });
  app.addHook('preValidation', async (request) => {
    for (const [part, value] of [
      ['params', request.params],
      ['querystring', request.query],
      ['body', request.body],
    ] as const) {
      const path = findNul(value);
      if (path === null) continue;
      const where = `${part}${path === '/' ? '' : path}`;
      throw invalidRequest(
        `Invalid request: ${where} contains a NUL character (U+0000), which Hearth does not accept in any text.`,
        [{ path: where, message: 'must not contain a NUL character (U+0000)' }],
      );
    }
  });
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

/**
 * Fastify's `frameworkErrors`: a URL that is not valid percent-encoding, or a path segment over the
 * router's length limit, answers in the envelope like every other error.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const answer =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new HttpError(414, 'invalid_request', 'The address is too long.')
      : new HttpError(400, 'invalid_request', 'The URL is malformed (bad percent-encoding or characters).');
  sendError(reply, answer);
}

/**
 * Node's `clientError`: a request that is not HTTP at all (a bad request line, a broken header, headers
 * over the size limit, a timeout) never reaches Fastify, so the envelope is written to the socket here.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive.']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request line and headers are larger than the server accepts.']
        : err.code === 'HPE_URI_TOO_LONG'
          ? [414, 'The address is too long.']
          : [400, 'The request is not valid HTTP.'];
  const body = JSON.stringify({ error: { code: 'invalid_request', message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * The admin UI and the API: scripts only from Hearth itself (the built UI has no inline script), styles
 * from Hearth plus inline ones (Mantine writes its CSS variables into <style> tags and React sets
 * style attributes at run time, so style-src needs 'unsafe-inline'), and no framing by any page.
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
/**
 * Hearth Space carries its own CSP in a <meta> tag (script and style hashes, loopback bridge); the
 * header adds what a meta tag cannot say: only Hearth's own pages (the child-page preview) may frame it.
 */
export const OVERLAY_CSP = "frame-ancestors 'self'; base-uri 'none'; object-src 'none'";

/** Security headers on every answer: CSP, framing, no MIME sniffing, no referrer to other sites. */
export function installSecurityHeaders(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every answer and has nothing to wait for.
  app.addHook('onSend', (request, reply, payload, done) => {
    const overlay = request.url.startsWith('/overlay/');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    reply.header('x-frame-options', overlay ? 'SAMEORIGIN' : 'DENY');
    // A plugin's own policy (the API docs page) is kept.
    if (!reply.hasHeader('content-security-policy'))
      reply.header('content-security-policy', overlay ? OVERLAY_CSP : UI_CSP);
    done(null, payload);
  });
}

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
