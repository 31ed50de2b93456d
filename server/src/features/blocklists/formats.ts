import { isIP } from 'node:net';
import type { BlocklistFormat, DetectedFormat } from '@hearth/protocol';
import { isStoredDomain, normalizeDomain } from '../../platform/domain.js';

/**
 * The list formats of DESIGN §11, read without I/O:
 * - `hosts`: `0.0.0.0 d` / `127.0.0.1 d` / `:: d` lines, several names a line; the names every hosts
 *   file carries for the machine itself (`localhost`, `broadcasthost`, `ip6-*` …) are passed over.
 * - `adblock`: only `||d^` (block) and `@@||d^` (allow); every other rule is skipped and counted.
 * - `domains`: one domain a line.
 * `#` and `!` start comments. A line that holds something other than these is counted in `skipped`.
 */
export interface ParsedList {
  format: DetectedFormat;
  /** Blocked domains, normalised (DESIGN §6), sorted and distinct. */
  block: string[];
  /** Exceptions (adblock `@@||d^`), sorted and distinct. */
  allow: string[];
  skipped_lines: number;
}

/** The addresses a hosts line sends a name to when it blocks it. */
const SINK_ADDRESSES = new Set(['0.0.0.0', '127.0.0.1', '::', '::1', '0:0:0:0:0:0:0:0', '0:0:0:0:0:0:0:1']);
/** Names a hosts file lists for the machine itself, not as blocks. */
const LOCAL_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'localhost4',
  'localhost4.localdomain4',
  'localhost6',
  'localhost6.localdomain6',
  'local',
  'broadcasthost',
  '0.0.0.0',
]);
/** Lines looked at to decide `auto`. */
const DETECT_LINES = 1000;

const LOCAL_INITIALS = new Set([...'lLbBiI0']);
const isLocalName = (name: string) => {
  if (!LOCAL_INITIALS.has(name.charAt(0))) return false;
  const lower = name.toLowerCase();
  return LOCAL_NAMES.has(lower) || lower.startsWith('ip6-');
};

/** A list entry as stored, or null when it is not a domain name (IP literals are not). */
export function listDomain(text: string): string | null {
  const domain = normalizeDomain(text);
  return domain === null || isIP(domain) ? null : domain;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0b || c === 0x0c;

/**
 * Calls `line` with the bounds [a, b) of each line of `text` without its surrounding white space,
 * skipping empty ones (bounds, not strings: a million-line list makes no million line strings); stops
 * when it returns false.
 */
function eachLine(text: string, line: (a: number, b: number) => unknown): void {
  const n = text.length;
  let start = 0;
  while (start < n) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = n;
    let a = start;
    let b = end;
    while (a < b && isSpace(text.charCodeAt(a))) a++;
    while (b > a && isSpace(text.charCodeAt(b - 1))) b--;
    start = end + 1;
    if (a < b && line(a, b) === false) return;
  }
}

/** Whether the line [a, b) is a comment (see isComment), without making its string. */
function commentAt(text: string, a: number, b: number): boolean {
  const c = text.charCodeAt(a);
  if (c === 0x21) return true;
  if (c === 0x23) return !isCosmeticRule(text.slice(a, Math.min(b, a + 4)));
  return c === 0x5b && text.charCodeAt(b - 1) === 0x5d;
}

/** Whether a line is a comment: `#` or `!` first (and an adblock list's `[Adblock Plus 2.0]` header). */
function isComment(line: string): boolean {
  const c = line.charCodeAt(0);
  return c === 0x21 /* ! */ || (c === 0x23 /* # */ && !isCosmeticRule(line)) || isAdblockHeader(line);
}

/** Element-hiding rules start with `##`, `#@#`, `#?#`, `#$#` or `#%#`: rules, not comments. */
const isCosmeticRule = (line: string) => /^#[@?$%]?#/.test(line);
const isAdblockHeader = (line: string) => line.charCodeAt(0) === 0x5b /* [ */ && line.endsWith(']');

/** Text before an inline `#` comment (hosts and domains lists), trimmed. */
function withoutInlineComment(line: string): string {
  const hash = line.indexOf('#');
  return hash < 0 ? line : line.slice(0, hash).trimEnd();
}

/** Which format the content is in: the one most of its first rule lines follow (ties: domains). */
export function detectFormat(text: string): DetectedFormat {
  let hosts = 0;
  let adblock = 0;
  let domains = 0;
  let seen = 0;
  eachLine(text, (a, b) => {
    const line = text.slice(a, Math.min(b, a + 300));
    if (isAdblockHeader(text.slice(a, b))) {
      adblock += DETECT_LINES;
      return false;
    }
    if (isComment(line)) return;
    if (line.startsWith('||') || line.startsWith('@@') || isCosmeticRule(line) || line.includes('##'))
      adblock++;
    else {
      const bare = withoutInlineComment(line);
      const space = bare.search(/\s/);
      if (space > 0 && isIP(bare.slice(0, space))) hosts++;
      else if (space < 0) domains++;
    }
    return ++seen < DETECT_LINES;
  });
  if (adblock > hosts && adblock > domains) return 'adblock';
  if (hosts > domains) return 'hosts';
  return 'domains';
}

const ADBLOCK_RULE = /^(@@)?\|\|([^/^$*|]+)\^$/;

/** Reads a list in `format` (or the detected one). */
export function parseList(text: string, format: BlocklistFormat = 'auto'): ParsedList {
  const used = format === 'auto' ? detectFormat(text) : format;
  const block: string[] = [];
  const allow: string[] = [];
  let skipped = 0;

  if (used === 'adblock') {
    eachLine(text, (a, b) => {
      if (commentAt(text, a, b)) return;
      const m = ADBLOCK_RULE.exec(text.slice(a, b));
      const domain = m ? listDomain(m[2] as string) : null;
      if (!domain) skipped++;
      else (m?.[1] ? allow : block).push(domain);
    });
  } else if (used === 'hosts') {
    const names: string[] = [];
    eachLine(text, (a, b) => {
      if (commentAt(text, a, b)) return;
      const address = splitHostsLine(text, a, b, names);
      if (address === null || (names.length && names.every(isLocalName))) return;
      if (!SINK_ADDRESSES.has(address) || !names.length) {
        skipped++;
        return;
      }
      let bad = false;
      for (const name of names) {
        const domain = isLocalName(name) ? '' : isStoredDomain(name) ? name : listDomain(name);
        if (domain) block.push(domain);
        else if (domain === null) bad = true;
      }
      if (bad) skipped++;
    });
  } else {
    eachLine(text, (a, b) => {
      if (commentAt(text, a, b)) return;
      const bare = withoutInlineComment(text.slice(a, b));
      if (!bare) return;
      const domain = isStoredDomain(bare) ? bare : /\s/.test(bare) ? null : listDomain(bare);
      if (domain) block.push(domain);
      else skipped++;
    });
  }
  return { format: used, block: sortedDistinct(block), allow: sortedDistinct(allow), skipped_lines: skipped };
}

/** Sorts in place (code-unit order: stored domains are ASCII) and drops repeats. */
export function sortedDistinct(items: string[]): string[] {
  if (items.length > 1) radixSort(items, new Array<string>(items.length), 0, items.length, 0);
  let out = 0;
  for (let i = 0; i < items.length; i++) {
    if (out === 0 || items[i] !== items[out - 1]) items[out++] = items[i] as string;
  }
  items.length = out;
  return items;
}

/** Below this many strings a range is finished by insertion sort. */
const SMALL_RANGE = 48;

/**
 * Most-significant-character radix sort of `a[lo, hi)` whose strings agree on their first `depth`
 * characters: a million short domains sort in a third of the time `Array.prototype.sort` takes.
 * Character codes from 127 up share a bucket that the built-in sort finishes.
 */
function radixSort(a: string[], tmp: string[], lo: number, hi: number, depth: number): void {
  if (hi - lo < SMALL_RANGE) {
    for (let i = lo + 1; i < hi; i++) {
      const v = a[i] as string;
      let j = i - 1;
      while (j >= lo && (a[j] as string) > v) {
        a[j + 1] = a[j] as string;
        j--;
      }
      a[j + 1] = v;
    }
    return;
  }
  // Bucket 0: the string ends here; bucket c + 1: character c (127 and above together).
  const bucketOf = (s: string) => (depth < s.length ? Math.min(s.charCodeAt(depth), 127) + 1 : 0);
  const next = new Int32Array(130);
  for (let i = lo; i < hi; i++) {
    const b = bucketOf(a[i] as string) + 1;
    next[b] = (next[b] as number) + 1;
  }
  for (let b = 1; b < 130; b++) (next[b] as number) += next[b - 1] as number;
  const bounds = next.slice();
  for (let i = lo; i < hi; i++) {
    const s = a[i] as string;
    tmp[lo + (next[bucketOf(s)] as number)++] = s;
  }
  for (let i = lo; i < hi; i++) a[i] = tmp[i] as string;
  for (let b = 1; b < 129; b++) {
    const from = lo + (bounds[b] as number);
    const to = lo + (bounds[b + 1] as number);
    if (to - from < 2) continue;
    if (b === 128) {
      const rest = a.slice(from, to).sort();
      for (let i = from; i < to; i++) a[i] = rest[i - from] as string;
    } else radixSort(a, tmp, from, to, depth + 1);
  }
}

/**
 * The address of the hosts line text[a, b) up to an inline `#` comment (null when it has none); its
 * names go into `names`.
 */
function splitHostsLine(text: string, a: number, b: number, names: string[]): string | null {
  names.length = 0;
  let address: string | null = null;
  let i = a;
  while (i < b) {
    while (i < b && isSpace(text.charCodeAt(i))) i++;
    const start = i;
    let comment = false;
    for (; i < b; i++) {
      const c = text.charCodeAt(i);
      if (isSpace(c)) break;
      if (c === 0x23) {
        comment = true;
        break;
      }
    }
    if (comment) b = i; // an inline comment ends the line
    if (i === start) continue;
    if (address !== null) names.push(text.slice(start, i));
    // The usual sink is not made into a new string a million times.
    else address = i - start === 7 && text.startsWith('0.0.0.0', start) ? '0.0.0.0' : text.slice(start, i);
  }
  return address;
}

/** The first `max` non-empty lines of a list as fetched (for a preview). */
export function firstLines(text: string, max = 20): string[] {
  const out: string[] = [];
  eachLine(text, (a, b) => {
    out.push(text.slice(a, Math.min(b, a + 500)));
    return out.length < max;
  });
  return out;
}
