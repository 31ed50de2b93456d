import {
  ErrorBody,
  HEARTH_VERSION,
  LIMITS,
  SESSION_COOKIE,
  SessionView,
  SetupBody,
  SetupState,
  SignInBody,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireSession } from '../../platform/access.js';
import { HttpError, notFound, rateLimited } from '../../platform/errors.js';
import { errorBodies } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';
import { type IssuedSession, sessionView } from './service.js';

const tags = ['session'];
/**
 * Open sign-up: households created per client address. Counted once the body is valid and before the
 * password is hashed, so every attempt that costs the server a hash counts, taken usernames too.
 */
export const SIGNUP_LIMIT = { max: 5, windowMs: 60 * 60 * 1000 };
const errors = errorBodies(400, 401, 403, 404, 409, 429);

/**
 * Login CSRF: a page on another site must not sign the browser in (to an account of the attacker's
 * choosing) by posting a form to /login, /api/session, /api/setup or /api/signup. A browser that sends
 * Sec-Fetch-Site is believed: only `same-origin` and `none` (typed or bookmarked) pass. Without it, an
 * Origin header must name this server: its Host, the X-Forwarded-Host of a trusted proxy, or
 * HEARTH_PUBLIC_URL. Requests with neither header (curl, scripts, agents) are not from a browser
 * page and pass.
 */
export function sameOriginSignIn(publicUrl: string | null) {
  const publicHost = publicUrl ? new URL(publicUrl).host : null;
  return async (request: FastifyRequest) => {
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    let allowed: boolean;
    if (site !== undefined) allowed = site === 'same-origin' || site === 'none';
    else if (origin === undefined) allowed = true;
    else {
      let host: string | null = null;
      try {
        host = new URL(origin).host;
      } catch {
        // "null" (a sandboxed frame, a privacy redirect) names no origin at all.
      }
      allowed =
        host !== null && (host === request.headers.host || host === request.host || host === publicHost);
    }
    if (!allowed)
      throw new HttpError(
        403,
        'csrf_failed',
        "Sign in from Hearth's own page; a sign-in sent from another site is refused.",
      );
  };
}

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, session: IssuedSession) {
  reply.setCookie(SESSION_COOKIE, session.cookie, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
    maxAge: LIMITS.sessionIdleDays * 24 * 60 * 60,
  });
}

export function authRoutes(app: HearthApp, { auth, config, limitIp }: Services): void {
  const sameOrigin = sameOriginSignIn(config.publicUrl);
  app.get(
    '/api/setup',
    {
      config: { access: 'public' },
      schema: { tags, summary: 'Whether first-run setup is still needed', response: { 200: SetupState } },
    },
    async () => ({
      setup_required: await auth.setupRequired(),
      open_signup: config.openSignup,
      version: HEARTH_VERSION,
    }),
  );

  app.post(
    '/api/setup',
    {
      config: { access: 'public' },
      onRequest: sameOrigin,
      schema: {
        tags,
        summary: 'Create the first household and its owner',
        body: SetupBody,
        response: { 201: SessionView, ...errors },
      },
    },
    async (request, reply) => {
      const { parentId } = await auth.createHouseholdWithOwner(request.body, true);
      const session = await auth.issueSession(parentId);
      setSessionCookie(request, reply, session);
      return reply.code(201).send(session.view);
    },
  );

  app.post(
    '/api/signup',
    {
      config: { access: 'public' },
      onRequest: sameOrigin,
      schema: {
        tags,
        summary: 'Open sign-up (HEARTH_OPEN_SIGNUP): a new household and its owner',
        body: SetupBody,
        response: { 201: SessionView, ...errors },
      },
    },
    async (request, reply) => {
      if (!config.openSignup) throw notFound('Sign-up');
      const wait = await limitIp(`signup|${request.ip}`, SIGNUP_LIMIT.max, SIGNUP_LIMIT.windowMs);
      if (wait !== null)
        throw rateLimited(wait, 'Too many sign-ups from this address; please try again in an hour.');
      const { parentId } = await auth.createHouseholdWithOwner(request.body, false);
      const session = await auth.issueSession(parentId);
      setSessionCookie(request, reply, session);
      return reply.code(201).send(session.view);
    },
  );

  app.post(
    '/api/session',
    {
      config: { access: 'public' },
      onRequest: sameOrigin,
      schema: { tags, summary: 'Sign in', body: SignInBody, response: { 200: SessionView, ...errors } },
    },
    async (request, reply) => {
      const session = await auth.signIn(request.ip, request.body.username, request.body.password);
      setSessionCookie(request, reply, session);
      return session.view;
    },
  );

  app.post(
    '/login',
    {
      config: { access: 'public' },
      onRequest: sameOrigin,
      schema: {
        tags,
        summary: 'Sign in from an HTML form; redirects to / on success',
        body: SignInBody,
        response: { 303: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      const session = await auth.signIn(request.ip, request.body.username, request.body.password);
      setSessionCookie(request, reply, session);
      return reply.redirect('/', 303);
    },
  );

  app.get(
    '/api/session',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'The signed-in parent', response: { 200: SessionView, 401: ErrorBody } },
    },
    async (request) => sessionView(requireSession(request)),
  );

  app.delete(
    '/api/session',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Sign out',
        response: { 200: Type.Object({ signed_out: Type.Boolean() }), 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request, reply) => {
      await auth.signOut(requireSession(request).sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { signed_out: true };
    },
  );
}
