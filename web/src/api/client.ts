export interface ErrorDetail {
  path: string;
  message: string;
}

/** An answer other than 2xx, carrying the server's `{error:{code,message}}` in plain words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** Seconds from a 429's Retry-After header. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export const UNREACHABLE_MESSAGE = "Hearth can't be reached right now.";

// The session's CSRF token lives only in memory; a reload fetches it again from GET /api/session.
let csrfToken: string | null = null;
let onUnauthenticated: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called on any 401 from a signed-in request, so the app can go back to the sign-in page. */
export function setUnauthenticatedHandler(handler: (() => void) | null): void {
  onUnauthenticated = handler;
}

export interface RequestOptions {
  body?: unknown;
  /** Sign-in and session probes answer 401 as an expected outcome, not as "signed out". */
  quiet401?: boolean;
  signal?: AbortSignal;
}

const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function errorFrom(status: number, body: unknown, retryAfterHeader: string | null): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const retryAfter = retryAfterHeader && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : null;
  if (error && typeof error.message === 'string') {
    const details = Array.isArray(error.details) ? (error.details as ErrorDetail[]) : [];
    const code = typeof error.code === 'string' ? error.code : 'error';
    return new ApiError(status, code, error.message, details, retryAfter);
  }
  if (status >= 500)
    return new ApiError(status, 'server_error', 'Hearth ran into a problem. Please try again.');
  return new ApiError(status, 'error', 'That did not work. Please try again.');
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (CHANGING.has(method) && csrfToken) headers['x-csrftoken'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'unreachable', UNREACHABLE_MESSAGE);
  }
  const text = await response.text();
  let body: unknown = null;
  if (text && (response.headers.get('content-type') ?? '').includes('application/json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!response.ok) {
    // A proxy in front of Hearth answering 502/504 means the server itself is not there.
    if (response.status === 502 || response.status === 504) {
      if (!body) throw new ApiError(response.status, 'unreachable', UNREACHABLE_MESSAGE);
    }
    const error = errorFrom(response.status, body, response.headers.get('retry-after'));
    if (response.status === 401 && !options.quiet401) onUnauthenticated?.();
    throw error;
  }
  return body as T;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    request<T>('POST', path, { ...options, body: body ?? {} }),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) =>
    request<T>('PATCH', path, { ...options, body }),
  put: <T>(path: string, body: unknown, options?: RequestOptions) =>
    request<T>('PUT', path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
};

export type DownloadState = { available: true } | { available: false; message: string };

/**
 * Whether a download link would work, without downloading it: a 200's body is dropped unread; a 404
 * carries the server's sentence saying what is missing.
 */
export async function probeDownload(path: string, signal?: AbortSignal): Promise<DownloadState> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'unreachable', UNREACHABLE_MESSAGE);
  }
  if (response.ok) {
    await response.body?.cancel();
    return { available: true };
  }
  let body: unknown = null;
  if ((response.headers.get('content-type') ?? '').includes('application/json')) {
    body = await response.json().catch(() => null);
  }
  const error = errorFrom(response.status, body, null);
  if (response.status === 404) return { available: false, message: error.message };
  if (response.status === 401) onUnauthenticated?.();
  throw error;
}

/** A message for people, whatever was thrown. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return 'Something unexpected happened. Please reload the page and try again.';
}

/**
 * Field errors of a refused form in plain words: each detail whose path names one of `labels`' fields
 * becomes "<label> <what it needs>." (the server's details carry a plain phrase per field path).
 */
export function fieldErrorsOf<F extends string>(
  err: unknown,
  labels: Record<F, string>,
): Partial<Record<F, string>> {
  const found: Partial<Record<F, string>> = {};
  if (!(err instanceof ApiError)) return found;
  for (const detail of err.details) {
    const field = detail.path.split('/').pop() as F;
    if (field in labels && !found[field]) found[field] = `${labels[field]} ${detail.message}.`;
  }
  return found;
}
