// The messages of DESIGN §7/§14 that a child's surfaces (the kiosk page, the extension's native host) send
// the daemon, each answered for ONE account: the caller's account is decided by where the message came
// from (the socket's directory, the overlay's bridge token), never by a field of the message.
import { LIMITS, OVERLAY_REASONS } from '@hearth/protocol';
import type { AgentContext } from '../context.js';
import { policyPart } from '../domain-policy.js';

export type Answer = Record<string, unknown>;
export type Message = Record<string, unknown> & { type?: unknown };

const DOMAIN_MAX = 300;
const URL_MAX = 4096;
const LOGIN_MAX = 320;

const text = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value.trim().length > 0 && value.length <= max ? value.trim() : null;

/** Network failures and an unapproved device read as `offline`; the page says so calmly. */
async function call(
  ctx: AgentContext,
  pathAndQuery: string,
  init?: RequestInit,
): Promise<{ status: number; body: Record<string, unknown> } | { status: 0; error: string }> {
  let res: Response;
  try {
    res = await ctx.serverFetch(pathAndQuery, init);
  } catch {
    return { status: 0, error: 'offline' };
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: res.status, body: body && typeof body === 'object' ? body : {} };
}

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function failure(result: { status: number; error?: string }): Answer {
  if (result.status === 0) return { ok: false, error: result.error ?? 'offline' };
  if (result.status === 429) return { ok: false, error: 'rate_limited' };
  if (result.status === 400) return { ok: false, error: 'invalid' };
  return { ok: false, error: `server_${result.status}` };
}

/** The message types the kiosk page may send over its bridge (the rest are the extension's). */
export const PAGE_TYPES = new Set(['ACCESS_REQUEST', 'REQUEST_REGISTRATION', 'CHECK_REGISTRATION']);

/** Answers one message for `username`; never throws (a bad message answers `ok:false`). */
export async function handleMessage(ctx: AgentContext, username: string, msg: Message): Promise<Answer> {
  try {
    return await dispatch(ctx, username, msg);
  } catch (err) {
    ctx.log.warn('ipc message failed', { linux_username: username, type: String(msg.type), err });
    return { ok: false, error: 'internal' };
  }
}

async function dispatch(ctx: AgentContext, username: string, msg: Message): Promise<Answer> {
  switch (msg.type) {
    case 'ACCESS_REQUEST': {
      const reason = msg.reason;
      const message = text(msg.message, LIMITS.parentNoteMaxLength * 4);
      if (!OVERLAY_REASONS.includes(reason as (typeof OVERLAY_REASONS)[number]) || !message)
        return { ok: false, error: 'invalid' };
      if (Array.from(message).length > LIMITS.parentNoteMaxLength) return { ok: false, error: 'too_long' };
      // The site a page was about (the extension's filtered and sign-up pages), for the parent to see.
      const domain = msg.domain === undefined ? undefined : text(msg.domain, DOMAIN_MAX);
      if (domain === null) return { ok: false, error: 'invalid' };
      const result = await call(
        ctx,
        '/api/access-request',
        post({ linux_username: username, reason, message, ...(domain ? { domain } : {}) }),
      );
      if (result.status === 201 || result.status === 200) {
        ctx.log.info('access request sent', { linux_username: username, reason });
        return { ok: true };
      }
      return failure(result);
    }
    case 'CHECK_REGISTRATION': {
      const domain = text(msg.domain, DOMAIN_MAX);
      if (!domain) return { allowed: false, pending: false, ok: false, error: 'invalid' };
      const query = new URLSearchParams({ domain, linux_username: username });
      const result = await call(ctx, `/api/registration/check?${query}`);
      if (result.status === 200)
        return { allowed: result.body.allowed === true, pending: result.body.pending === true };
      return { allowed: false, pending: false, ...failure(result) };
    }
    case 'REQUEST_REGISTRATION': {
      const domain = text(msg.domain, DOMAIN_MAX);
      const url =
        msg.url === undefined || msg.url === null || msg.url === '' ? undefined : text(msg.url, URL_MAX);
      if (!domain || url === null) return { ok: false, error: 'invalid' };
      const body = { domain, linux_username: username, ...(url ? { url } : {}) };
      const result = await call(ctx, '/api/registration/request', post(body));
      if (result.status === 200 || result.status === 201)
        return { ok: true, status: typeof result.body.status === 'string' ? result.body.status : 'pending' };
      return failure(result);
    }
    case 'LOGIN_DETECTED': {
      const domain = text(msg.domain, DOMAIN_MAX);
      const login = text(msg.username, LOGIN_MAX);
      if (!domain || !login) return { ok: false, error: 'invalid' };
      // Only these three fields are sent: whatever else the message carried (a password) stays here.
      const result = await call(
        ctx,
        '/api/registration/log-login',
        post({ domain, username: login, linux_username: username }),
      );
      if (result.status === 200 || result.status === 201) return { ok: true };
      return failure(result);
    }
    case 'GET_POLICY': {
      // A big policy does not fit in one native-messaging answer (1 MiB): it is asked for part by part.
      const part = msg.part === undefined ? 0 : msg.part;
      const answer =
        typeof part === 'number' ? policyPart(ctx.domainPolicies?.get(username) ?? null, part) : null;
      return answer ? { ...answer } : { ok: false, error: 'invalid' };
    }
    case 'GET_STATUS':
      return accountStatus(ctx, username);
    default:
      return { ok: false, error: 'unknown_type' };
  }
}

/** How long an account's settings from the server are served again without asking (the popup polls). */
const STATUS_FRESH_MS = 60_000;
const statusCache = new Map<string, { at: number; answer: Answer }>();
const statusFile = (username: string) => `account-status.${username}.json`;

/**
 * The account as the server sees it (child, overlay tier and note, sign-up enforcement) for the extension's
 * popup and pages; kept in the state directory so that it still answers while the server is away.
 */
async function accountStatus(ctx: AgentContext, username: string): Promise<Answer> {
  const answer = await serverAccountStatus(ctx, username);
  // The device policy as this computer applied it, rule by rule (null when none came).
  return { ...answer, device_policy: ctx.devicePolicies?.summary(username)[username] ?? null };
}

async function serverAccountStatus(ctx: AgentContext, username: string): Promise<Answer> {
  const cached = statusCache.get(username);
  const connected = ctx.connected();
  if (cached && Date.now() - cached.at < STATUS_FRESH_MS) return { ...cached.answer, connected };
  const result = connected
    ? await call(ctx, `/api/agent/account?${new URLSearchParams({ linux_username: username })}`)
    : ({ status: 0, error: 'offline' } as const);
  if (result.status === 200) {
    const b = result.body;
    const answer: Answer = {
      linux_username: username,
      device_name: typeof b.device_name === 'string' ? b.device_name : ctx.hostname,
      managed_user_id: typeof b.managed_user_id === 'string' ? b.managed_user_id : null,
      child_name: typeof b.child_name === 'string' ? b.child_name : null,
      age_tier: typeof b.age_tier === 'string' ? b.age_tier : 'eight12',
      parent_note: typeof b.parent_note === 'string' ? b.parent_note : null,
      signup_enforced: b.signup_enforced === true,
    };
    statusCache.set(username, { at: Date.now(), answer });
    try {
      ctx.state.write(statusFile(username), answer);
    } catch (err) {
      ctx.log.warn('could not keep the account status', { linux_username: username, err });
    }
    return { ...answer, connected };
  }
  const kept = ctx.state.read<Answer>(
    statusFile(username),
    (d): d is Answer => !!d && typeof d === 'object' && (d as Answer).linux_username === username,
  );
  if (kept) return { ...kept, connected };
  return {
    linux_username: username,
    device_name: ctx.hostname,
    managed_user_id: null,
    child_name: null,
    age_tier: 'eight12',
    parent_note: null,
    signup_enforced: null,
    connected,
  };
}
