import { isIP } from 'node:net';
import type { BlocklistFormat, DetectedFormat } from '@hearth/protocol';
import { isStoredDomainBytes, normalizeDomain } from '../../platform/domain.js';
import { DomainCollector, type DomainList } from './domain-list.js';

/**
 * The list formats of DESIGN §11, read without I/O:
 * - `hosts`: `0.0.0.0 d` / `127.0.0.1 d` / `:: d` lines, several names a line; the names every hosts
 *   file carries for the machine itself (`localhost`, `broadcasthost`, `ip6-*` …) are passed over.
 * - `adblock`: only `||d^` (block) and `@@||d^` (allow); every other rule is skipped and counted.
 * - `domains`: one domain a line.
 * `#` and `!` start comments (in hosts and domains lists also after an entry). A line that holds
 * something other than these is counted in `skipped_lines` (once, however many of its names fail).
 *
 * A list is read as bytes, never as one string per line or name: a million-line list is 20 MB of
 * text, and a million strings would cost several times that in memory and in collection time. Names
 * already in stored form (nearly all) are copied as bytes; the others go through normalizeDomain.
 */
export interface ParsedList {
  format: DetectedFormat;
  /** Blocked domains, normalised (DESIGN §6), sorted and distinct. */
  block: DomainList;
  /** Exceptions (adblock `@@||d^`), sorted and distinct. */
  allow: DomainList;
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
/** Lines (and bytes) looked at to decide `auto`. */
const DETECT_LINES = 1000;
const DETECT_BYTES = 256 * 1024;

const SPACE = 0x20;
const TAB = 0x09;
const HASH = 0x23;
const BANG = 0x21;

const isSpace = (c: number) => c === SPACE || c === TAB || c === 0x0d || c === 0x0b || c === 0x0c;

/** A list entry as stored, or null when it is not a domain name (IP literals are not). */
export function listDomain(text: string): string | null {
  const domain = normalizeDomain(text);
  return domain === null || isIP(domain) ? null : domain;
}

/** Whether bytes[s, e) is a name hosts files give the machine itself ("localhost", "ip6-…", …). */
function isLocalName(bytes: Buffer, s: number, e: number): boolean {
  const c = (bytes[s] as number) | 0x20;
  if (c !== 0x6c /* l */ && c !== 0x62 /* b */ && c !== 0x69 /* i */ && bytes[s] !== 0x30) return false;
  const name = bytes.toString('latin1', s, e).toLowerCase();
  return LOCAL_NAMES.has(name) || name.startsWith('ip6-');
}

/**
 * Adds bytes[s, e) as a domain: taken where it stands when already in stored form, else normalised
 * (IDN, case, trailing dot). Answers whether it was a domain.
 */
function addName(into: DomainCollector, bytes: Buffer, s: number, e: number): boolean {
  if (isStoredDomainBytes(bytes, s, e)) {
    into.addRange(s, e);
    return true;
  }
  const domain = listDomain(bytes.toString('utf8', s, e));
  if (!domain) return false;
  into.addNormalised(domain, s, e);
  return true;
}

/** Lines in the list (to size the collector once). */
function countLines(bytes: Buffer): number {
  let lines = 1;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) lines++;
  return lines;
}

/**
 * Calls `line` with the bounds [a, b) of each line of `bytes` without its surrounding white space,
 * skipping empty ones; stops when it returns false.
 */
function eachLine(bytes: Buffer, line: (a: number, b: number) => unknown): void {
  const n = bytes.length;
  let start = 0;
  while (start < n) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = n;
    let a = start;
    let b = end;
    while (a < b && isSpace(bytes[a] as number)) a++;
    while (b > a && isSpace(bytes[b - 1] as number)) b--;
    start = end + 1;
    if (a < b && line(a, b) === false) return;
  }
}

/** Element-hiding rules start with `##`, `#@#`, `#?#`, `#$#` or `#%#`: rules, not comments. */
const isCosmeticRule = (line: string) => /^#[@?$%]?#/.test(line);
const isAdblockHeader = (line: string) => line.startsWith('[') && line.endsWith(']');

/** Whether the line [a, b) is a comment: `!` or `#` first (not a cosmetic rule), or `[Adblock …]`. */
function isComment(bytes: Buffer, a: number, b: number): boolean {
  const c = bytes[a];
  if (c === BANG) return true;
  if (c === HASH) return !isCosmeticRule(bytes.toString('latin1', a, Math.min(b, a + 4)));
  return c === 0x5b && bytes[b - 1] === 0x5d;
}

/** The end of the line [a, b) before an inline `#` comment, white space trimmed. */
function beforeComment(bytes: Buffer, a: number, b: number): number {
  let end = a;
  while (end < b && bytes[end] !== HASH) end++;
  while (end > a && isSpace(bytes[end - 1] as number)) end--;
  return end;
}

const asBytes = (input: Buffer | string): Buffer => {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  // A UTF-8 byte-order mark is not part of the first line.
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
};

/** Which format the content is in: the one most of its first rule lines follow (ties: domains). */
export function detectFormat(input: Buffer | string): DetectedFormat {
  const bytes = asBytes(input);
  const head = bytes.subarray(0, Math.min(bytes.length, DETECT_BYTES));
  let hosts = 0;
  let adblock = 0;
  let domains = 0;
  let seen = 0;
  eachLine(head, (a, b) => {
    const line = head.toString('utf8', a, Math.min(b, a + 300));
    if (isAdblockHeader(head.toString('latin1', a, b))) {
      adblock += DETECT_LINES;
      return false;
    }
    if (isComment(head, a, b)) return;
    if (line.startsWith('||') || line.startsWith('@@') || isCosmeticRule(line) || line.includes('##'))
      adblock++;
    else {
      const hash = line.indexOf('#');
      const bare = (hash < 0 ? line : line.slice(0, hash)).trimEnd();
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

/** The address of a hosts line, as text only when it is not the usual "0.0.0.0". */
function addressOf(bytes: Buffer, s: number, e: number): string {
  if (
    e - s === 7 &&
    bytes[s] === 0x30 &&
    bytes[s + 1] === 0x2e &&
    bytes[s + 2] === 0x30 &&
    bytes[s + 3] === 0x2e &&
    bytes[s + 4] === 0x30 &&
    bytes[s + 5] === 0x2e &&
    bytes[s + 6] === 0x30
  )
    return '0.0.0.0';
  return bytes.toString('latin1', s, e);
}

/**
 * Reads a list in `format` (or the detected one). The list's bytes are the parser's to keep and
 * overwrite (normalised names are written over the originals): read anything else from them first.
 */
export function parseList(input: Buffer | string, format: BlocklistFormat = 'auto'): ParsedList {
  const bytes = asBytes(input);
  const used = format === 'auto' ? detectFormat(bytes) : format;
  const lines = countLines(bytes);
  const block = new DomainCollector(bytes, used === 'hosts' ? lines + (lines >> 3) : lines);
  const allow = new DomainCollector(bytes, 16);
  let skipped = 0;

  if (used === 'adblock') {
    eachLine(bytes, (a, b) => {
      if (isComment(bytes, a, b)) return;
      const exception = bytes[a] === 0x40 && bytes[a + 1] === 0x40; // @@
      const s = a + (exception ? 4 : 2);
      let ok = b - s >= 2 && bytes[s - 2] === 0x7c && bytes[s - 1] === 0x7c && bytes[b - 1] === 0x5e; // || … ^
      for (let i = s; ok && i < b - 1; i++) {
        const c = bytes[i];
        // A path, another separator, a modifier, a wildcard or an anchor makes it another kind of rule.
        if (c === 0x2f || c === 0x5e || c === 0x24 || c === 0x2a || c === 0x7c || isSpace(c as number))
          ok = false;
      }
      if (!ok || !addName(exception ? allow : block, bytes, s, b - 1)) skipped++;
    });
  } else if (used === 'hosts') {
    const tokens: number[] = [];
    eachLine(bytes, (a, b) => {
      if (isComment(bytes, a, b)) return;
      const end = beforeComment(bytes, a, b);
      tokens.length = 0;
      for (let i = a; i < end; ) {
        while (i < end && isSpace(bytes[i] as number)) i++;
        const s = i;
        while (i < end && !isSpace(bytes[i] as number)) i++;
        if (i > s) tokens.push(s, i);
      }
      if (!tokens.length) return;
      let names = 0;
      let local = 0;
      for (let t = 2; t < tokens.length; t += 2) {
        names++;
        if (isLocalName(bytes, tokens[t] as number, tokens[t + 1] as number)) local++;
      }
      if (names && local === names) return;
      if (!names || !SINK_ADDRESSES.has(addressOf(bytes, tokens[0] as number, tokens[1] as number))) {
        skipped++;
        return;
      }
      let bad = false;
      for (let t = 2; t < tokens.length; t += 2) {
        const s = tokens[t] as number;
        const e = tokens[t + 1] as number;
        if (!(local && isLocalName(bytes, s, e)) && !addName(block, bytes, s, e)) bad = true;
      }
      if (bad) skipped++;
    });
  } else {
    eachLine(bytes, (a, b) => {
      if (isComment(bytes, a, b)) return;
      const end = beforeComment(bytes, a, b);
      if (end === a) return;
      let spaced = false;
      for (let i = a; i < end && !spaced; i++) spaced = isSpace(bytes[i] as number);
      if (spaced || !addName(block, bytes, a, end)) skipped++;
    });
  }
  return { format: used, block: block.finish(), allow: allow.finish(), skipped_lines: skipped };
}

/** Sorts in place (code-unit order: stored domains are ASCII) and drops repeats; for short lists. */
export function sortedDistinct(items: string[]): string[] {
  items.sort();
  let out = 0;
  for (let i = 0; i < items.length; i++) {
    if (out === 0 || items[i] !== items[out - 1]) items[out++] = items[i] as string;
  }
  items.length = out;
  return items;
}

/** The first `max` non-empty lines of a list as fetched (for a preview). */
export function firstLines(input: Buffer | string, max = 20): string[] {
  const bytes = asBytes(input);
  const out: string[] = [];
  eachLine(bytes, (a, b) => {
    out.push(bytes.toString('utf8', a, Math.min(b, a + 500)));
    return out.length < max;
  });
  return out;
}
