import type { ErrorCode } from '@hearth/protocol';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** What an error answer carries; `sendError` writes it, thrown or not. */
export interface ErrorAnswer {
  readonly statusCode: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;
}

/** The one error type: a status, a stable code and a sentence for people. */
export class HttpError extends Error implements ErrorAnswer {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const notFound = (what = 'The requested item') =>
  new HttpError(404, 'not_found', `${what} was not found.`);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);
export const forbidden = (message = 'You do not have permission to do this.') =>
  new HttpError(403, 'forbidden', message);
export const invalidRequest = (message: string, details?: ErrorDetail[]) =>
  new HttpError(400, 'invalid_request', message, details);
export const unauthenticated = () => new HttpError(401, 'unauthenticated', 'Please sign in first.');
/** The 429 answer as plain data: the over-the-limit path, a flood's path, sends it without an Error. */
export const rateLimitAnswer = (retryAfterSeconds: number, message: string): ErrorAnswer => ({
  statusCode: 429,
  code: 'rate_limited',
  message,
  headers: { 'retry-after': String(Math.max(1, retryAfterSeconds)) },
});
export const rateLimited = (retryAfterSeconds: number, message: string) => {
  const answer = rateLimitAnswer(retryAfterSeconds, message);
  return new HttpError(answer.statusCode, answer.code, answer.message, undefined, answer.headers);
};
