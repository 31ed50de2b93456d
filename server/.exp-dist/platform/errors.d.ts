import type { ErrorCode } from '@hearth/protocol';
export interface ErrorDetail {
  path: string;
  message: string;
}
/** The one error type: a status, a stable code and a sentence for people. */
export declare class HttpError extends Error {
  readonly statusCode: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[] | undefined;
  readonly headers?: Record<string, string> | undefined;
  constructor(
    statusCode: number,
    code: ErrorCode,
    message: string,
    details?: ErrorDetail[] | undefined,
    headers?: Record<string, string> | undefined,
  );
}
export declare const notFound: (what?: string) => HttpError;
export declare const conflict: (message: string) => HttpError;
export declare const forbidden: (message?: string) => HttpError;
export declare const invalidRequest: (message: string, details?: ErrorDetail[]) => HttpError;
export declare const unauthenticated: () => HttpError;
export declare const rateLimited: (retryAfterSeconds: number, message: string) => HttpError;
