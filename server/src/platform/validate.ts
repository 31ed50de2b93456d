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

/** How deep JSON may nest (bodies and agent frames); deeper input is refused before it is walked. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `max` arrays and objects. One pass over the text, without
 * recursion, so 100,000 levels cost no stack; brackets inside strings do not count.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * The path of the first string (a value or a key) that holds U+0000, or null. PostgreSQL cannot store
 * the character in text, so no part of Hearth accepts it. Walks without recursion and stops below
 * `maxDepth`, so a deep value (a query string cannot nest; JSON is capped before) costs no stack.
 */
export function findNul(value: unknown, maxDepth = MAX_JSON_DEPTH + 1): string | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const v = item.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return item.path || '/';
      continue;
    }
    if (!v || typeof v !== 'object' || item.depth >= maxDepth) continue;
    for (const [key, inner] of Object.entries(v)) {
      const path = `${item.path}/${key.replaceAll('\u0000', '\\u0000')}`;
      if (key.includes('\u0000')) return path;
      stack.push({ value: inner, path, depth: item.depth + 1 });
    }
  }
  return null;
}
