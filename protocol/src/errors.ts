import { type Static, Type } from '@sinclair/typebox';

export const ERROR_CODES = [
  'invalid_request',
  'url_not_allowed',
  'unauthenticated',
  'invalid_credentials',
  'invalid_token',
  'bootstrap_token_rejected',
  'forbidden',
  'csrf_failed',
  'system_id_mismatch',
  'not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'rate_limited',
  'upstream_failed',
  'internal_error',
  'unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
    }),
  },
  { $id: 'ErrorBody' },
);
export type ErrorBody = Static<typeof ErrorBody>;
