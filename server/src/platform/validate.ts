import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const base = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false } as const;

/** Bodies and agent frames: no type coercion, unknown fields rejected where a schema says so. */
export const strictAjv = addFormats(new Ajv({ ...base, coerceTypes: false }));
/** Query strings and path parameters arrive as text, so they are coerced. */
export const coercingAjv = addFormats(new Ajv({ ...base, coerceTypes: 'array' }));

export function compileStrict<T>(schema: TSchema): ValidateFunction<T> {
  return strictAjv.compile<T>(schema);
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (!first) return 'invalid';
  const where = first.instancePath || '/';
  if (first.keyword === 'required')
    return `${where} is missing ${(first.params as { missingProperty: string }).missingProperty}`;
  return `${where} ${first.message ?? 'is invalid'}`;
}
