import { ProviderError } from './types.js';

// One JSON-over-HTTP call for the vendor clients, and the error kinds every vendor shares. Messages
// are for a parent to read; they never carry a token, a code or a vendor's raw answer.

export type Vendor = 'Microsoft' | 'Nintendo';

export const DEFAULT_TIMEOUT_MS = 15_000;

export interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
}

export interface HttpAnswer {
  status: number;
  /** The parsed JSON body; null when empty. */
  body: unknown;
  /** False when the body was not empty and not JSON. */
  parsed: boolean;
  retryAfterMs: number | undefined;
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Sends one call; a network failure or timeout throws `transient`, any HTTP status is answered. */
export async function send(
  vendor: Vendor,
  call: HttpCall,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  }
  let response: Response;
  let text: string;
  try {
    response = await fetch(call.url, {
      method: call.method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new ProviderError(
      'transient',
      timedOut
        ? `${vendor} did not answer in time; Hearth will try again later.`
        : `${vendor} could not be reached; Hearth will try again later.`,
      { cause: err },
    );
  }
  let parsed = true;
  let json: unknown = null;
  if (text.trim()) {
    try {
      json = JSON.parse(text);
    } catch {
      parsed = false;
    }
  }
  return {
    status: response.status,
    body: json,
    parsed,
    retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
  };
}

export function badResponse(vendor: Vendor, status?: number): ProviderError {
  return new ProviderError('bad_response', `${vendor} answered in a way Hearth does not understand.`, {
    ...(status === undefined ? {} : { status }),
  });
}

/** The kinds every vendor shares: 5xx, 429, 403, 404; anything else is a bad response. */
export function commonError(vendor: Vendor, answer: HttpAnswer): ProviderError {
  const status = answer.status;
  if (status >= 500)
    return new ProviderError('transient', `${vendor} had a problem answering; Hearth will try again later.`, {
      status,
    });
  if (status === 429)
    return new ProviderError(
      'rate_limited',
      `${vendor} asked Hearth to slow down; Hearth will try again later.`,
      {
        status,
        ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }),
      },
    );
  if (status === 403)
    return new ProviderError('denied', `${vendor} refused Hearth access to the family's settings.`, {
      status,
    });
  if (status === 404)
    return new ProviderError(
      'not_found',
      `${vendor} no longer knows this console or player; it may have been removed from the family.`,
      { status },
    );
  return badResponse(vendor, status);
}

/** The body of a 2xx answer as an object, or `bad_response`. */
export function objectBody(vendor: Vendor, answer: HttpAnswer): Record<string, unknown> {
  if (!answer.parsed || !answer.body || typeof answer.body !== 'object' || Array.isArray(answer.body))
    throw badResponse(vendor, answer.status);
  return answer.body as Record<string, unknown>;
}

/** An OAuth error answer's `error` field, or null. */
export function oauthError(answer: HttpAnswer): string | null {
  const body = answer.body as { error?: unknown } | null;
  return body && typeof body.error === 'string' ? body.error : null;
}

/** Until when a token that expires in `expiresInS` is used: a minute before (half its life if shorter). */
export function usableUntil(expiresInS: number, now = Date.now()): number {
  const life = Math.max(0, expiresInS) * 1000;
  return now + life - Math.min(60_000, life / 2);
}

/** A non-empty string field, or `bad_response`. */
export function text(vendor: Vendor, value: unknown): string {
  if (typeof value === 'string' && value) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw badResponse(vendor);
}

/** An array field, or `bad_response`. */
export function list(vendor: Vendor, value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value) || value.some((v) => !v || typeof v !== 'object')) throw badResponse(vendor);
  return value as Record<string, unknown>[];
}

/** Caches an access token and shares one refresh between concurrent callers. */
export class TokenCache<T extends { usableUntil: number }> {
  private current: T | null = null;
  private pending: Promise<T> | null = null;

  constructor(
    private readonly refresh: () => Promise<T>,
    warm?: T,
  ) {
    this.current = warm ?? null;
  }

  async get(): Promise<T> {
    if (this.current && this.current.usableUntil > Date.now()) return this.current;
    return this.renew();
  }

  /** Drops the cached token (the vendor refused it) and fetches a new one. */
  async renew(stale?: T): Promise<T> {
    if (stale && this.current && this.current !== stale) return this.current;
    this.current = null;
    this.pending ??= this.refresh().finally(() => {
      this.pending = null;
    });
    const token = await this.pending;
    this.current = token;
    return token;
  }
}
