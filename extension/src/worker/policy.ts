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
// A million names held as a Set of strings cost V8 some 40–70 bytes each; here they are one byte array
// of the names (each as [flags, length, …ASCII bytes]) and an open-addressing table (linear probing) of
// one Uint32 a slot: the name's offset in the low bits and a fingerprint of its hash in the bits the
// offsets leave free, so a probe reads one word and rarely touches a name that does not match. About
// 20 bytes a name in all (bench/results/extension-policy.md). Hosts are hashed right to left, so one
// pass over the host gives the hash of each parent domain.

export interface PolicyWire {
  version: number;
  block: string[];
  allow: string[];
}

export type PolicyAction = 'block' | 'allow';

const BLOCK = 1;
const ALLOW = 2;
/** Set on a name some allow rule sits under: a block found there is not yet the answer. */
const ALLOW_BELOW = 4;
/** Filled slots per slot at most. Probes walk neighbouring words, so a longer run costs little. */
const LOAD = 0.7;
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

/** One step of the right-to-left hash over an ASCII character, lower-cased. */
const step = (h: number, c: number) => Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), FNV_PRIME);

/** The slot a hash starts probing at (Lemire's multiply-shift: any table size, no modulo). */
const slotOf = (h: number, slots: number) => Math.floor((h * slots) / 4294967296);

const slotsFor = (names: number) => Math.max(MIN_SLOTS, Math.ceil(names / LOAD) + 1);

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

/**
 * The finished table. `names` holds each name as [flags, length, bytes…]. A slot is 0 when empty, else
 * `fingerprint << refBits | (offset + 1)`: `refBits` is as few bits as the offsets need, and the
 * fingerprint is the hash's low bits that remain.
 */
class Table {
  private readonly refMask: number;
  private readonly printMask: number;

  constructor(
    readonly names: Uint8Array,
    private readonly slots: Uint32Array,
    private readonly refBits: number,
  ) {
    this.refMask = 2 ** refBits - 1;
    this.printMask = 2 ** (32 - refBits) - 1;
  }

  static readonly EMPTY = new Table(new Uint8Array(0), new Uint32Array(MIN_SLOTS), 1);

  /** Packs the builder's entries (offsets + 1 and their hashes) into a table of its own size. */
  static pack(names: Uint8Array, refs: Uint32Array, hashes: Uint32Array, count: number): Table {
    const refBits = Math.max(1, Math.ceil(Math.log2(names.length + 2)));
    const slots = new Uint32Array(slotsFor(count));
    // Offsets of up to 31 bits leave a fingerprint of at least one; a policy of 2 GiB is far beyond a worker.
    if (refBits > 31) throw new Error('DomainPolicy: too many names');
    const printMask = 2 ** (32 - refBits) - 1;
    for (let s = 0; s < refs.length; s++) {
      const ref = refs[s] as number;
      if (ref === 0) continue;
      const h = hashes[s] as number;
      let at = slotOf(h, slots.length);
      while (slots[at] !== 0) at = at + 1 === slots.length ? 0 : at + 1;
      slots[at] = (((h & printMask) << refBits) | ref) >>> 0;
    }
    return new Table(names, slots, refBits);
  }

  /** Where host[from, to) (hash h) is stored, or -1. */
  find(h: number, host: string, from: number, to: number): number {
    const { slots, names, refBits, refMask } = this;
    const n = slots.length;
    const print = h & this.printMask;
    let s = slotOf(h, n);
    for (;;) {
      const v = slots[s] as number;
      if (v === 0) return -1;
      if (v >>> refBits === print && sameName(names, (v & refMask) - 1, host, from, to))
        return (v & refMask) - 1;
      s = s + 1 === n ? 0 : s + 1;
    }
  }
}

export class DomainPolicy {
  /** Made by `from`, `empty` or a DomainPolicyBuilder. */
  constructor(
    readonly version: number,
    private readonly table: Table,
    readonly blockCount: number,
    readonly allowCount: number,
  ) {}

  static empty(): DomainPolicy {
    return new DomainPolicy(0, Table.EMPTY, 0, 0);
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
    const t = this.table;
    const names = t.names;
    let blocked = false;
    let h = FNV_OFFSET;
    // Right to left, so parents come first; at each dot (and at the start) the hash so far is that of
    // the domain after it.
    for (let k = end - 1; k >= -1; k--) {
      const c = k >= 0 ? host.charCodeAt(k) : DOT;
      if (c === DOT) {
        const at = t.find(mix(h), host, k + 1, end);
        if (at >= 0) {
          const flags = names[at] as number;
          if (flags & ALLOW) return 'allow';
          // Parents had no allow; only a rule under this one could still lift the block.
          if (flags & BLOCK && !(flags & ALLOW_BELOW)) return 'block';
          if (flags & BLOCK) blocked = true;
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
    const t = this.table;
    let allowFrom = -1;
    let blockFrom = -1;
    let h = FNV_OFFSET;
    for (let k = end - 1; k >= -1; k--) {
      const c = k >= 0 ? host.charCodeAt(k) : DOT;
      if (c === DOT) {
        const at = t.find(mix(h), host, k + 1, end);
        if (at >= 0) {
          const flags = t.names[at] as number;
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
  /** While building, a slot holds offset + 1 and, beside it, the full hash (growing needs no rehashing). */
  private refs = new Uint32Array(MIN_SLOTS);
  private hashes = new Uint32Array(MIN_SLOTS);
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
    let policy = new DomainPolicy(this.version, Table.EMPTY, 0, 0);
    if (this.count > 0) {
      if (this.allows > 0) this.markAllowBelow();
      const names = this.used === this.names.length ? this.names : this.names.slice(0, this.used);
      const table = Table.pack(names, this.refs, this.hashes, this.count);
      policy = new DomainPolicy(this.version, table, this.blocks, this.allows);
    }
    this.names = new Uint8Array(0);
    this.refs = new Uint32Array(0);
    this.hashes = new Uint32Array(0);
    return policy;
  }

  /** Where the name bytes[from, to) is, or -1 (bytes of `names` itself: the parents of a stored name). */
  private findStored(h: number, from: number, to: number): number {
    const { refs, hashes, names } = this;
    const n = refs.length;
    let s = slotOf(h, n);
    for (;;) {
      const ref = refs[s] as number;
      if (ref === 0) return -1;
      if (hashes[s] === h && names[ref] === to - from) {
        let same = true;
        for (let k = 0; k < to - from && same; k++) same = names[ref + 1 + k] === names[from + k];
        if (same) return ref - 1;
      }
      s = s + 1 === n ? 0 : s + 1;
    }
  }

  /** Flags every stored parent of an allowed name, so that a lookup knows a block there is not final. */
  private markAllowBelow(): void {
    const { refs, names } = this;
    for (let s = 0; s < refs.length; s++) {
      const ref = refs[s] as number;
      if (ref === 0 || !((names[ref - 1] as number) & ALLOW)) continue;
      const start = ref + 1;
      const end = start + (names[ref] as number);
      let h = FNV_OFFSET;
      for (let p = end - 1; p > start; p--) {
        const c = names[p] as number;
        if (c === DOT) {
          const at = this.findStored(mix(h), p + 1, end);
          if (at >= 0) names[at] = (names[at] as number) | ALLOW_BELOW;
        }
        h = step(h, c);
      }
    }
  }

  private reserve(bytes: number, names: number): void {
    if (this.used + bytes > this.names.length) {
      const grown = new Uint8Array(Math.max(this.used + bytes, this.names.length * 2));
      grown.set(this.names.subarray(0, this.used));
      this.names = grown;
    }
    const slots = slotsFor(this.count + names);
    if (slots > this.refs.length) this.grow(Math.max(slots, this.refs.length * 2));
  }

  private grow(slots: number): void {
    const refs = new Uint32Array(slots);
    const hashes = new Uint32Array(slots);
    for (let s = 0; s < this.refs.length; s++) {
      const ref = this.refs[s] as number;
      if (ref === 0) continue;
      const h = this.hashes[s] as number;
      let at = slotOf(h, slots);
      while (refs[at] !== 0) at = at + 1 === slots ? 0 : at + 1;
      refs[at] = ref;
      hashes[at] = h;
    }
    this.refs = refs;
    this.hashes = hashes;
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
    const { refs, hashes, names } = this;
    const n = refs.length;
    let s = slotOf(h, n);
    let at = -1;
    for (;;) {
      const ref = refs[s] as number;
      if (ref === 0) break;
      if (hashes[s] === h && sameName(names, ref - 1, name, 0, end)) {
        at = ref - 1;
        break;
      }
      s = s + 1 === n ? 0 : s + 1;
    }
    if (at < 0) {
      // `add` reserved bytes and slots for the whole batch (a repeated name only leaves its room unused).
      at = this.used;
      const bytes = this.names;
      bytes[at] = 0;
      bytes[at + 1] = end;
      for (let k = 0; k < end; k++) {
        const c = name.charCodeAt(k);
        bytes[at + 2 + k] = c >= 65 && c <= 90 ? c + 32 : c;
      }
      this.used += end + 2;
      this.refs[s] = at + 1;
      this.hashes[s] = h;
      this.count++;
    }
    const flags = this.names[at] as number;
    if (flags & flag) return;
    this.names[at] = flags | flag;
    if (flag === BLOCK) this.blocks++;
    else this.allows++;
  }
}
