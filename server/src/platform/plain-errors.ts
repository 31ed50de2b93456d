import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from './errors.js';

/**
 * Validation failures in plain words. Ajv's own sentences (`must match format "uuid"`) are for
 * programmers; a parent sees the `message`, so it names the field and says what it needs. The
 * `details` keep each failing path (`body/system_id`) for programs, with the same plain phrase.
 */

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'empty (null)',
};

const FORMAT_WORDS: Record<string, string> = {
  uuid: 'a UUID, such as 123e4567-e89b-12d3-a456-426614174000',
  'date-time': 'a date and time such as 2026-01-31T18:00:00Z',
  date: 'a date such as 2026-01-31',
  email: 'an email address',
  uri: 'a full web address such as https://example.com/',
  hostname: 'a host name such as example.com',
};

const PATTERN_WORDS: Record<string, string> = {
  '\\S': 'must not be blank',
  '^\\S+$': 'must not contain spaces',
  '^\\S(.*\\S)?$': 'must not start or end with a space',
};

/** The phrase for one ajv error, without the field name ("must not be empty"). */
function phraseOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'type': {
      const types = String(p.type).split(',');
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'format':
      return `must be ${FORMAT_WORDS[String(p.format)] ?? `a valid ${String(p.format)}`}`;
    case 'minLength':
      return Number(p.limit) <= 1 ? 'must not be empty' : `must be at least ${p.limit} characters long`;
    case 'maxLength':
      return `must be at most ${p.limit} characters long`;
    case 'pattern':
      return PATTERN_WORDS[String(p.pattern)] ?? 'is not in the expected form';
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'minItems':
      return `must have at least ${p.limit} item${Number(p.limit) === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${p.limit} items`;
    case 'minProperties':
      return 'must not be empty';
    case 'maxProperties':
      return `must have at most ${p.limit} fields`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${String(p.allowedValue)}`;
    case 'uniqueItems':
      return 'must not list the same item twice';
    default:
      return 'is not valid';
  }
}

/** The path of the field an error is about: the missing or unknown property joins its object's path. */
function pathOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'required') return `${e.instancePath}/${String(p.missingProperty)}`;
  if (e.keyword === 'additionalProperties') return `${e.instancePath}/${String(p.additionalProperty)}`;
  return e.instancePath;
}

/**
 * One plain phrase per failing field. A union (`anyOf`, as TypeBox writes a list of literals or a
 * nullable value) fails once per branch; those branch errors become one "one of" phrase.
 */
function phrasesByPath(errors: ErrorObject[]): Map<string, string> {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const path = pathOf(e);
    const list = byPath.get(path) ?? [];
    byPath.set(path, list);
    list.push(e);
  }
  const phrases = new Map<string, string>();
  for (const [path, list] of byPath) {
    const union = list.some((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
    const consts = list
      .filter((e) => e.keyword === 'const')
      .map((e) => String((e.params as { allowedValue: unknown }).allowedValue));
    if (union && consts.length) {
      phrases.set(path, `must be one of: ${consts.join(', ')}`);
      continue;
    }
    const types = list
      .filter((e) => e.keyword === 'type')
      .map((e) => TYPE_WORDS[String((e.params as { type: unknown }).type)] ?? 'another type');
    const specific = list.find((e) => !['anyOf', 'oneOf', 'type', 'if', 'not'].includes(e.keyword));
    if (specific) phrases.set(path, phraseOf(specific));
    else if (union && types.length) phrases.set(path, `must be ${[...new Set(types)].join(' or ')}`);
    else if (list[0]) phrases.set(path, phraseOf(list[0]));
  }
  return phrases;
}

/** How a sentence names the field at `path` in the request's `part`. */
function fieldName(part: string, path: string): string {
  const segments = path.split('/').filter(Boolean);
  if (!segments.length) {
    if (part === 'body') return 'The request body';
    if (part === 'querystring') return 'The query string';
    return `The request ${part}`;
  }
  const last = segments[segments.length - 1] ?? '';
  const field = /^\d+$/.test(last) ? `${segments.slice(0, -1).join('.')} item ${Number(last) + 1}` : last;
  const inside = segments.length > 1 && !/^\d+$/.test(last) ? ` (in ${segments.slice(0, -1).join('.')})` : '';
  if (part === 'querystring') return `The query parameter ${field}${inside}`;
  if (part === 'params') return `The ${field} in the address`;
  if (part === 'headers') return `The header ${field}`;
  return `The field ${field}${inside}`;
}

/** The 400 answer's sentence and details for ajv errors of one request part. */
export function plainValidation(
  errors: ErrorObject[],
  part: string | undefined,
): { message: string; details: ErrorDetail[] } {
  const where = part ?? 'body';
  const phrases = [...phrasesByPath(errors)].slice(0, 20);
  const details = phrases.map(([path, phrase]) => ({ path: `${where}${path}`, message: phrase }));
  const sentences = phrases.slice(0, 3).map(([path, phrase]) => `${fieldName(where, path)} ${phrase}.`);
  const more = phrases.length > 3 ? ` ${phrases.length - 3} more fields need fixing too.` : '';
  return { message: sentences.length ? sentences.join(' ') + more : 'The request is not valid.', details };
}
