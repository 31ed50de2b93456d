import { CSRF_FIELD, CSRF_HEADER, SESSION_COOKIE } from '@hearth/protocol';
import { safeEqual } from './crypto.js';
import { forbidden, HttpError, unauthenticated } from './errors.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export function isAdmin(role) {
  return role === 'owner' || role === 'admin';
}
export function requireSession(request) {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}
/** Default-deny: a route registered without an access declaration stops the app from starting. */
export function installAccessControl(app, options) {
  app.decorateRequest('auth', null);
  const table = [];
  app.decorate('routeTable', table);
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
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method !== 'HEAD') table.push({ method, url: route.url, access });
    }
  });
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (access !== 'session' && access !== 'session:admin') return;
    const cookie = request.cookies[SESSION_COOKIE];
    const auth = cookie ? await options.resolveSession(cookie) : null;
    if (!auth) throw unauthenticated();
    request.auth = auth;
    if (access === 'session:admin' && !isAdmin(auth.role)) {
      throw forbidden('Only a household owner or admin can do this.');
    }
  });
  // CSRF is checked once the body is parsed, so the token may come as a form field too.
  app.addHook('preValidation', async (request) => {
    if (!request.auth || !STATE_CHANGING.has(request.method)) return;
    const header = request.headers[CSRF_HEADER];
    let token = typeof header === 'string' ? header : undefined;
    const body = request.body;
    if (body && typeof body === 'object' && !Array.isArray(body) && CSRF_FIELD in body) {
      if (token === undefined && typeof body[CSRF_FIELD] === 'string') token = body[CSRF_FIELD];
      delete body[CSRF_FIELD];
    }
    if (!token || !safeEqual(token, request.auth.csrfToken)) {
      throw new HttpError(
        403,
        'csrf_failed',
        'The form has expired or is missing its security token; reload the page and try again.',
      );
    }
  });
}
//# sourceMappingURL=access.js.map
