// The account's domain policy as the service worker keeps it (DESIGN §11, §15): the agent's `block` and
// `allow` lists, asked for over GET_POLICY, answer "is this top-level navigation filtered?" for every
// navigation, so a lookup costs O(labels of the host) hash probes whatever the lists' size.
//
// How the server decides, mirrored here (server/src/features/blocklists/policy.ts `domainCheck`): a rule
// for d covers d and every subdomain of d; every rule covering the host is gathered (the host itself and
// each parent domain, down to the last label); the host is blocked when some block rule covers it and
// no allow rule does. So ANY covering allow wins, however near: an allow on example.com lifts a block on
// ads.example.com as much as an allow on ads.example.com lifts a block on example.com. The list the agent
// is served already leaves out every block entry an allow covers (EffectiveList), so there "nearer
// allow" and "any allow" agree; for any other input this mirrors the server's rule.
//
// A million names held as a Set of strings cost V8 some 60 MB; here they are one byte array of the
// names (each as [flags, length, …ASCII bytes]) and an open-addressing table (linear probing) of
// Uint32 offsets into it with a 16-bit fingerprint per slot: about 16 bytes a name plus 6 bytes a slot.
// Hosts are hashed right to left, so one pass over the host gives the hash of each parent domain.

export interface PolicyWire {
  version: number;
  block: string[];
  allow: string[];
}

export type PolicyAction = 'block' | 'allow';

const BLOCK = 1;
const ALLOW = 2;
/** Filled slots per slot at most; misses probe about (1 + 1/(1-a)²)/2 slots (3.6 at 0.6). */
const LOAD = 0.6;
const MIN_SLOTS = 8;
/** Stored names are at most 253 characters (DESIGN §6); a length is one byte. */
const MAX_NAME = 255;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const DOT = 0x2e;

/** Murmur3's finaliser: FNV's low bits are weak, and both the slot and the fingerprint need good ones. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One step of the right-to-left hash over an ASCII letter, lower-cased. */
const step = (h: number, c: number) => Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), FNV_PRIME);

/** The slot a hash starts probing at (Lemire's multiply-shift: any table size, no modulo). */
const slotOf = (h: number, slots: number) => Math.floor((h * slots) / 4294967296);

/**
 * The table: `names` holds each name as [flags, length, bytes…]; `refs[s]` is 1 + where slot s's name
 * starts (0: empty), `prints[s]` the low 16 bits of its hash.
 */
interface Table {
  names: Uint8Array;
  refs: Uint32Array;
  prints: Uint16Array;
}

/** The name at `at` equals host[from, to) lower-cased. */
function sameName(names: Uint8Array, at: number, host: string, from: number, to: number): boolean {
  if (names[at + 1] !== to - from) return false;
  let p = at + 2;
  for (let k = from; k < to; k++, p++) {
    let c = host.charCodeAt(k);
    if (c >= 65 && c <= 90) c += 32;
    if (names[p] !== c) return false;
  }
  return true;
}

/** Where host[from, to) (hash h) is stored, or -1. */
function find(
  names: Uint8Array,
  refs: Uint32Array,
  prints: Uint16Array,
  h: number,
  host: string,
  from: number,
  to: number,
): number {
  const slots = refs.length;
  const print = h & 0xffff;
  let s = slotOf(h, slots);
  for (;;) {
    const ref = refs[s] as number;
    if (ref === 0) return -1;
    if (prints[s] === print && sameName(names, ref - 1, host, from, to)) return ref - 1;
    s = s + 1 === slots ? 0 : s + 1;
  }
}

/** Puts the name at `at` (hash h) in a free slot; the caller knows it is not there yet. */
function place(refs: Uint32Array, prints: Uint16Array, h: number, at: number): void {
  const slots = refs.length;
  let s = slotOf(h, slots);
  while (refs[s] !== 0) s = s + 1 === slots ? 0 : s + 1;
  refs[s] = at + 1;
  prints[s] = h & 0xffff;
}

/** The hash of the stored name at `at`, as `decide` makes it from a host. */
function hashStored(names: Uint8Array, at: number): number {
  let h = FNV_OFFSET;
  for (let p = at + 1 + (names[at + 1] as number); p > at + 1; p--) h = step(h, names[p] as number);
  return mix(h);
}

/**
 * The end of the host's name (a trailing dot left out), or -1 when it is no name a rule can cover: empty,
 * an IPv6 literal, or an IPv4 one — for URLs a host whose last label is a number (decimal or 0x…) is an
 * IPv4 address, and rules never name addresses.
 */
function nameEnd(host: string): number {
  let end = host.length;
  if (end > 0 && host.charCodeAt(end - 1) === DOT) end--;
  if (end === 0 || host.charCodeAt(0) === 0x5b /* [ */) return -1;
  let start = end;
  while (start > 0 && host.charCodeAt(start - 1) !== DOT) start--;
  if (start === end) return end;
  let digits = true;
  for (let k = start; k < end && digits; k++) {
    const c = host.charCodeAt(k);
    digits = c >= 48 && c <= 57;
  }
  if (digits) return -1;
  if (end - start >= 2 && host.charCodeAt(start) === 48 && (host.charCodeAt(start + 1) | 0x20) === 0x78) {
    let hex = true;
    for (let k = start + 2; k < end && hex; k++) {
      const c = host.charCodeAt(k) | 0x20;
      hex = (c >= 48 && c <= 57) || (c >= 0x61 && c <= 0x66);
    }
    if (hex) return -1;
  }
  return host.includes(':') ? -1 : end;
}

const EMPTY_TABLE: Table = {
  names: new Uint8Array(0),
  refs: new Uint32Array(MIN_SLOTS),
  prints: new Uint16Array(MIN_SLOTS),
};

export class DomainPolicy {
  /** Built by `from`, `empty` or a DomainPolicyBuilder. */
  constructor(
    readonly version: number,
    private readonly table: Table,
    readonly blockCount: number,
    readonly allowCount: number,
  ) {}

  static empty(): DomainPolicy {
    return new DomainPolicy(0, EMPTY_TABLE, 0, 0);
  }

  /** Builds from the agent's lists (parts concatenated by the caller, or via the builder below). */
  static from(p: PolicyWire): DomainPolicy {
    const b = new DomainPolicyBuilder(p.version);
    b.add(p.block, p.allow);
    return b.build();
  }

  /**
   * 'block' when the host or one of its parent domains is blocked and no allow covers it; 'allow' when an
   * allow rule covers it (the host or a parent); null when no rule covers it. O(labels) hash probes.
   */
  decide(host: string): PolicyAction | null {
    const end = nameEnd(host);
    if (end < 0) return null;
    const { names, refs, prints } = this.table;
    let blocked = false;
    let h = FNV_OFFSET;
    // Right to left; at each dot (and at the start) the hash so far is that of the domain after it.
    for (let k = end - 1; k >= -1; k--) {
      const c = k >= 0 ? host.charCodeAt(k) : DOT;
      if (c === DOT) {
        const at = find(names, refs, prints, mix(h), host, k + 1, end);
        if (at >= 0) {
          const flags = names[at] as number;
          if (flags & ALLOW) return 'allow';
          blocked = true;
        }
      }
      h = step(h, c);
    }
    return blocked ? 'block' : null;
  }

  /** The rule that decided (the nearest covering domain of the deciding kind), for the popup and logs. */
  match(host: string): { action: PolicyAction; domain: string } | null {
    const end = nameEnd(host);
    if (end < 0) return null;
    const { names, refs, prints } = this.table;
    let allowFrom = -1;
    let blockFrom = -1;
    let h = FNV_OFFSET;
    for (let k = end - 1; k >= -1; k--) {
      const c = k >= 0 ? host.charCodeAt(k) : DOT;
      if (c === DOT) {
        const at = find(names, refs, prints, mix(h), host, k + 1, end);
        if (at >= 0) {
          const flags = names[at] as number;
          // Walking right to left, a later find is a longer, nearer domain.
          if (flags & ALLOW) allowFrom = k + 1;
          if (flags & BLOCK) blockFrom = k + 1;
        }
      }
      h = step(h, c);
    }
    const from = allowFrom >= 0 ? allowFrom : blockFrom;
    if (from < 0) return null;
    return { action: allowFrom >= 0 ? 'allow' : 'block', domain: host.slice(from, end).toLowerCase() };
  }
}

/** Incremental builder so the worker can add each GET_POLICY part as it arrives without holding all parts' arrays at once. */
export class DomainPolicyBuilder {
  private names = new Uint8Array(0);
  private used = 0;
  private refs = new Uint32Array(MIN_SLOTS);
  private prints = new Uint16Array(MIN_SLOTS);
  private count = 0;
  private blocks = 0;
  private allows = 0;
  private built = false;

  constructor(readonly version: number) {}

  add(block: readonly string[], allow: readonly string[]): void {
    if (this.built) throw new Error('DomainPolicyBuilder: build() was called already');
    // Room for the whole batch at once: one part (or `from`'s single batch) grows each array at most once.
    let bytes = 0;
    for (const name of block) bytes += name.length + 2;
    for (const name of allow) bytes += name.length + 2;
    this.reserve(bytes, block.length + allow.length);
    for (const name of block) this.addName(name, BLOCK);
    for (const name of allow) this.addName(name, ALLOW);
  }

  /** The policy; the builder lets go of its arrays (and refuses further parts). */
  build(): DomainPolicy {
    if (this.built) throw new Error('DomainPolicyBuilder: build() was called already');
    this.built = true;
    if (this.count === 0) return new DomainPolicy(this.version, EMPTY_TABLE, 0, 0);
    // Batches sized the table for every name given; repeats and skipped names may leave it roomier.
    const fits = slotsFor(this.count);
    if (this.refs.length > fits * 1.25) this.rehash(fits);
    const table: Table = {
      names: this.used === this.names.length ? this.names : this.names.slice(0, this.used),
      refs: this.refs,
      prints: this.prints,
    };
    const policy = new DomainPolicy(this.version, table, this.blocks, this.allows);
    this.names = new Uint8Array(0);
    this.refs = new Uint32Array(0);
    this.prints = new Uint16Array(0);
    return policy;
  }

  private reserve(bytes: number, names: number): void {
    if (this.used + bytes > this.names.length) {
      const grown = new Uint8Array(Math.max(this.used + bytes, this.names.length * 2));
      grown.set(this.names.subarray(0, this.used));
      this.names = grown;
    }
    const slots = slotsFor(this.count + names);
    if (slots > this.refs.length) this.rehash(Math.max(slots, this.refs.length * 2));
  }

  private rehash(slots: number): void {
    const refs = new Uint32Array(slots);
    const prints = new Uint16Array(slots);
    const old = this.refs;
    for (let s = 0; s < old.length; s++) {
      const ref = old[s] as number;
      if (ref !== 0) place(refs, prints, hashStored(this.names, ref - 1), ref - 1);
    }
    this.refs = refs;
    this.prints = prints;
  }

  /** A name as a rule: lower case, no trailing dot; one that is not ASCII or too long is no stored name. */
  private addName(name: string, flag: number): void {
    let end = name.length;
    if (end > 0 && name.charCodeAt(end - 1) === DOT) end--;
    if (end === 0 || end > MAX_NAME) return;
    let h = FNV_OFFSET;
    for (let k = end - 1; k >= 0; k--) {
      const c = name.charCodeAt(k);
      if (c > 0x7e || c <= 0x20) return;
      h = step(h, c);
    }
    h = mix(h);
    let at = find(this.names, this.refs, this.prints, h, name, 0, end);
    if (at < 0) {
      // `reserve` made room for the batch; a name given twice in one batch only wastes its room.
      if (this.count + 1 > this.refs.length * LOAD) this.rehash(this.refs.length * 2);
      if (this.used + end + 2 > this.names.length) this.reserve(end + 2, 0);
      at = this.used;
      const names = this.names;
      names[at] = 0;
      names[at + 1] = end;
      for (let k = 0; k < end; k++) {
        const c = name.charCodeAt(k);
        names[at + 2 + k] = c >= 65 && c <= 90 ? c + 32 : c;
      }
      this.used += end + 2;
      place(this.refs, this.prints, h, at);
      this.count++;
    }
    const flags = this.names[at] as number;
    if (flags & flag) return;
    this.names[at] = flags | flag;
    if (flag === BLOCK) this.blocks++;
    else this.allows++;
  }
}

const slotsFor = (names: number) => Math.max(MIN_SLOTS, Math.ceil(names / LOAD) + 1);
