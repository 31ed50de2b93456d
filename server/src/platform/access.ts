import type {} from '@fastify/cookie';
import { CSRF_FIELD, CSRF_HEADER, type ParentRole, SESSION_COOKIE } from '@hearth/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from './crypto.js';
import { forbidden, HttpError, rateLimitAnswer, rateLimited, unauthenticated } from './errors.js';
import { sendError } from './http.js';

/**
 * Every route declares who may call it, in `config.access`:
 * - `public`: anyone;
 * - `bearer`: an agent with its per-device token;
 * - `session`: a signed-in parent (finer checks on children happen in the services);
 * - `session:admin`: a signed-in owner or admin.
 */
export type Access = 'public' | 'bearer' | 'session' | 'session:admin';

export interface SessionAuth {
  sessionId: string;
  parentId: string;
  username: string;
  householdId: string;
  householdName: string;
  /** The IANA zone the household's days are read in (DESIGN §10). */
  householdTimezone: string;
  role: ParentRole;
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** Requests per client IP per window, counted before authentication so refused ones count too. */
    ipLimit?: { max: number; windowMs: number };
  }
  interface FastifyRequest {
    auth: SessionAuth | null;
    device: BearerDevice | null;
  }
  interface FastifyInstance {
    /** Every route with its declared access, for the route-table tests and the docs. */
    routeTable: DeclaredRoute[];
  }
}

export interface DeclaredRoute {
  method: string;
  url: string;
  access: Access;
}

/** The agent behind a bearer request: an approved device, by its per-device token. */
export interface BearerDevice {
  systemId: string;
  householdId: string;
  platform: string;
  agentVersion: string | null;
  linuxUsers: string[];
}

export interface AccessOptions {
  resolveSession(cookieValue: string): Promise<SessionAuth | null>;
  resolveDevice(token: string): Promise<BearerDevice | null>;
  /** HEARTH_AGENT_TOKEN enrolls devices; it is never a bearer credential. */
  bootstrapToken: string | null;
  /** Counts a bearer request; returns seconds to wait when the device is over its limit. */
  limitDevice(systemId: string): Promise<number | null>;
  /** Counts a request against a per-IP limit; returns seconds to wait when over it. */
  limitIp(key: string, max: number, windowMs: number): Promise<number | null>;
  /** Route prefixes that plugins fill (API docs); they are public and read-only. */
  publicPrefixes: string[];
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isAdmin(role: ParentRole): boolean {
  return role === 'owner' || role === 'admin';
}

export function requireSession(request: FastifyRequest): SessionAuth {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}

/** Default-deny: a route registered without an access declaration stops the app from starting. */
export function installAccessControl(app: FastifyInstance, options: AccessOptions): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('device', null);
  const table: DeclaredRoute[] = [];
  app.decorate('routeTable', table);

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const { access, ipLimit } = request.routeOptions.config;
    if (ipLimit) {
      const wait = await options.limitIp(
        `${request.routeOptions.url}|${request.ip}`,
        ipLimit.max,
        ipLimit.windowMs,
      );
      // Answered here rather than thrown: returning the sent reply ends the request at once, without
      // an Error and Fastify's error path.
      if (wait !== null)
        return sendError(
          reply,
          rateLimitAnswer(wait, 'Too many requests from this address; please wait a moment.'),
        );
    }
    if (access === 'bearer') {
      request.device = await authenticateBearer(request.headers.authorization, options);
      return;
    }
    if (access !== 'session' && access !== 'session:admin') return;
    const cookie = request.headers.cookie
      ? app.parseCookie(request.headers.cookie)[SESSION_COOKIE]
      : undefined;
    const auth = cookie ? await options.resolveSession(cookie) : null;
    if (!auth) throw unauthenticated();
    request.auth = auth;
    if (access === 'session:admin' && !isAdmin(auth.role)) {
      throw forbidden('Only a household owner or admin can do this.');
    }
  };

  // CSRF is checked once the body is parsed, so the token may come as a form field too.
  const checkCsrf = async (request: FastifyRequest) => {
    if (!request.auth) return;
    const header = request.headers[CSRF_HEADER];
    let token = typeof header === 'string' ? header : undefined;
    const body = request.body as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && !Array.isArray(body) && CSRF_FIELD in body) {
      if (token === undefined && typeof body[CSRF_FIELD] === 'string') token = body[CSRF_FIELD] as string;
      delete body[CSRF_FIELD];
    }
    if (!token || !safeEqual(token, request.auth.csrfToken)) {
      throw new HttpError(
        403,
        'csrf_failed',
        'The form has expired or is missing its security token; reload the page and try again.',
      );
    }
  };

  const asList = <T>(hook: T | T[] | undefined): T[] =>
    hook === undefined ? [] : Array.isArray(hook) ? hook : [hook];

  // Each route gets only the checks its declaration needs: public routes pay for none.
  app.addHook('onRoute', (route) => {
    let access = route.config?.access;
    if (!access && options.publicPrefixes.some((p) => route.url.startsWith(p))) {
      access = 'public';
      route.config = { ...(route.config ?? {}), access };
    }
    if (!access) {
      throw new Error(
        `Route ${String(route.method)} ${route.url} declares no access (config.access); refusing to start.`,
      );
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD') table.push({ method, url: route.url, access });
    }
    if (access !== 'public' || route.config?.ipLimit) {
      route.onRequest = [authenticate as never, ...asList(route.onRequest)];
    }
    if (access.startsWith('session') && methods.some((m) => STATE_CHANGING.has(m))) {
      route.preValidation = [checkCsrf as never, ...asList(route.preValidation)];
    }
  });
}

async function authenticateBearer(header: string | undefined, options: AccessOptions): Promise<BearerDevice> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  const token = match?.[1];
  if (!token)
    throw new HttpError(401, 'invalid_token', 'Send the device token as "Authorization: Bearer <token>".');
  if (options.bootstrapToken && safeEqual(token, options.bootstrapToken)) {
    throw new HttpError(
      401,
      'bootstrap_token_rejected',
      'The enrollment token cannot be used here; use the device token issued at pairing.',
    );
  }
  const device = token.length <= 256 ? await options.resolveDevice(token) : null;
  if (!device) throw new HttpError(401, 'invalid_token', 'The device token is unknown or has been revoked.');
  const wait = await options.limitDevice(device.systemId);
  if (wait !== null) throw rateLimited(wait, 'This device is sending too many requests; slow down.');
  return device;
}

export function requireDevice(request: FastifyRequest): BearerDevice {
  if (!request.device) throw new HttpError(401, 'invalid_token', 'A device token is required.');
  return request.device;
}
