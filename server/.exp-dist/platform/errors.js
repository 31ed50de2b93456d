/** The one error type: a status, a stable code and a sentence for people. */
export class HttpError extends Error {
  statusCode;
  code;
  details;
  headers;
  constructor(statusCode, code, message, details, headers) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}
export const notFound = (what = 'The requested item') =>
  new HttpError(404, 'not_found', `${what} was not found.`);
export const conflict = (message) => new HttpError(409, 'conflict', message);
export const forbidden = (message = 'You do not have permission to do this.') =>
  new HttpError(403, 'forbidden', message);
export const invalidRequest = (message, details) => new HttpError(400, 'invalid_request', message, details);
export const unauthenticated = () => new HttpError(401, 'unauthenticated', 'Please sign in first.');
export const rateLimited = (retryAfterSeconds, message) =>
  new HttpError(429, 'rate_limited', message, undefined, {
    'retry-after': String(Math.max(1, retryAfterSeconds)),
  });
//# sourceMappingURL=errors.js.map
