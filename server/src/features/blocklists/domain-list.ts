/**
 * Byte order of a[as, ae) and b[bs, be), compared in JavaScript: domains differ within a few bytes,
 * and a native Buffer.compare call costs more than that (a lookup makes about 20 of them).
 */
export function compareBytes(a: Buffer, as: number, ae: number, b: Buffer, bs: number, be: number): number {
  const n = Math.min(ae - as, be - bs);
  for (let k = 0; k < n; k++) {
    const d = (a[as + k] as number) - (b[bs + k] as number);
    if (d) return d;
  }
  return ae - as - (be - bs);
}

/**
 * A sorted list of distinct domains held the compact way: ONE byte buffer of the domains joined by
 * "\n" (stored domains are ASCII, a byte a character) plus a Uint32Array of where each line starts.
 * A million domains take about 11 MB of text and 4 MB of offsets, where a Set of strings would take
 * 60 MB or more; a lookup is a binary search of byte compares (about 20 for a million), and the
 * lookup of a name and its parents reuses one buffer, so "is this blocked?" costs O(labels · log n)
 * with no string made per step. The same text, gzipped, is what the database stores (repository.ts).
 */
export class DomainList {
  static readonly EMPTY = new DomainList(Buffer.alloc(0), Uint32Array.of(1));

  /** `starts[i]` is where line i begins; `starts[count]` is one past the end (text.length + 1). */
  private constructor(
    readonly text: Buffer,
    private readonly starts: Uint32Array,
  ) {}

  get count(): number {
    return this.starts.length - 1;
  }

  /** From a text and its line starts, as built by DomainCollector. */
  static of(text: Buffer, starts: Uint32Array): DomainList {
    return starts.length > 1 ? new DomainList(text, starts) : DomainList.EMPTY;
  }

  /** From domains already sorted (code-unit order) and distinct. */
  static fromSorted(domains: readonly string[]): DomainList {
    if (!domains.length) return DomainList.EMPTY;
    const starts = new Uint32Array(domains.length + 1);
    let at = 0;
    for (let i = 0; i < domains.length; i++) {
      starts[i] = at;
      at += (domains[i] as string).length + 1;
    }
    starts[domains.length] = at;
    return new DomainList(Buffer.from(domains.join('\n'), 'latin1'), starts);
  }

  /** From the stored text: sorted, distinct domains joined by "\n". */
  static fromText(text: Buffer): DomainList {
    if (!text.length) return DomainList.EMPTY;
    let lines = 1;
    for (let i = 0; i < text.length; i++) if (text[i] === 0x0a) lines++;
    const starts = new Uint32Array(lines + 1);
    let line = 1;
    for (let i = 0; i < text.length; i++) if (text[i] === 0x0a) starts[line++] = i + 1;
    starts[lines] = text.length + 1;
    return new DomainList(text, starts);
  }

  /** The line of `key[from, to)`, or -1. */
  private find(key: Buffer, from: number, to: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const order = compareBytes(
        this.text,
        this.starts[mid] as number,
        (this.starts[mid + 1] as number) - 1,
        key,
        from,
        to,
      );
      if (order === 0) return mid;
      if (order < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  has(domain: string): boolean {
    if (!this.count) return false;
    const key = Buffer.from(domain, 'latin1');
    return this.find(key, 0, key.length) >= 0;
  }

  /** The listed entries that cover `domain`: itself and each listed parent, longest first. */
  covering(domain: string): string[] {
    if (!this.count) return [];
    const key = Buffer.from(domain, 'latin1');
    const out: string[] = [];
    for (let from = 0; from < key.length; ) {
      if (this.find(key, from, key.length) >= 0) out.push(domain.slice(from));
      const dot = key.indexOf(0x2e, from);
      if (dot < 0) break;
      from = dot + 1;
    }
    return out;
  }

  at(i: number): string {
    return this.text.toString('latin1', this.starts[i], (this.starts[i + 1] as number) - 1);
  }

  toArray(): string[] {
    if (!this.count) return [];
    return this.text.toString('latin1').split('\n');
  }

  /** The entries as a JSON array (bytes), built from the text without a string per entry. */
  jsonArray(): Buffer {
    if (!this.count) return Buffer.from('[]');
    const text = this.text;
    // Each "\n" becomes '","' (two bytes more), plus '["' and '"]'.
    const out = Buffer.allocUnsafe(text.length + 2 * (this.count - 1) + 4);
    out[0] = 0x5b;
    out[1] = 0x22;
    let at = 2;
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as number;
      if (c === 0x0a) {
        out[at++] = 0x22;
        out[at++] = 0x2c;
        out[at++] = 0x22;
      } else out[at++] = c;
    }
    out[at++] = 0x22;
    out[at++] = 0x5d;
    return out;
  }

  /** Every entry of the lists once, sorted (a k-way merge of the byte lines). */
  static union(lists: readonly DomainList[]): DomainList {
    const parts = lists.filter((l) => l.count > 0);
    if (parts.length === 0) return DomainList.EMPTY;
    if (parts.length === 1) return parts[0] as DomainList;
    let bytes = 0;
    let lines = 0;
    for (const l of parts) {
      bytes += l.text.length + 1;
      lines += l.count;
    }
    const out = Buffer.allocUnsafe(bytes);
    const starts = new Uint32Array(lines + 1);
    const heads = parts.map(() => 0);
    let at = 0;
    let n = 0;
    let last = -1; // where the last line written starts, to drop repeats
    for (;;) {
      let best = -1;
      for (let k = 0; k < parts.length; k++) {
        const l = parts[k] as DomainList;
        const h = heads[k] as number;
        if (h >= l.count) continue;
        if (best < 0) {
          best = k;
          continue;
        }
        const b = parts[best] as DomainList;
        const bh = heads[best] as number;
        const order = l.text.compare(
          b.text,
          b.starts[bh],
          (b.starts[bh + 1] as number) - 1,
          l.starts[h],
          (l.starts[h + 1] as number) - 1,
        );
        if (order < 0) best = k;
      }
      if (best < 0) break;
      const l = parts[best] as DomainList;
      const h = heads[best] as number;
      heads[best] = h + 1;
      const s = l.starts[h] as number;
      const e = (l.starts[h + 1] as number) - 1;
      if (last >= 0 && out.compare(l.text, s, e, last, at - 1) === 0) continue;
      last = at;
      starts[n++] = at;
      l.text.copy(out, at, s, e);
      at += e - s;
      out[at++] = 0x0a;
    }
    starts[n] = at;
    return new DomainList(out.subarray(0, at - 1), starts.slice(0, n + 1));
  }

  /** Where line i starts in `text`. */
  start(i: number): number {
    return this.starts[i] as number;
  }

  /** Where line i ends in `text` (one past its last byte). */
  end(i: number): number {
    return (this.starts[i + 1] as number) - 1;
  }

  /**
   * The first line from `from` on that is not below the bytes key[ks, ke) (count when none), found by
   * galloping from `from`: a short way costs a few compares, a long one a binary search.
   */
  lowerBound(key: Buffer, ks: number, ke: number, from: number): number {
    const below = (i: number) =>
      compareBytes(this.text, this.starts[i] as number, (this.starts[i + 1] as number) - 1, key, ks, ke) < 0;
    if (from >= this.count) return this.count;
    let lo = from;
    let step = 1;
    while (lo + step < this.count && below(lo + step)) {
      lo += step;
      step *= 2;
    }
    if (lo < this.count && !below(lo)) return lo;
    let hi = Math.min(lo + step, this.count);
    lo += 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (below(mid)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The lines an entry of `allow` covers (a rule for d covers d and its subdomains), as a mark per
   * line, or null when it covers none. A few allow entries are searched for as ".d\n" in the text
   * (memchr-fast); many are looked up line by line.
   */
  coveredBy(allow: DomainList): Uint8Array | null {
    if (!this.count || !allow.count) return null;
    const drop = new Uint8Array(this.count);
    let dropped = 0;
    const mark = (line: number) => {
      if (line >= 0 && !drop[line]) {
        drop[line] = 1;
        dropped++;
      }
    };
    if (allow.count <= 32) {
      const text = this.text;
      const last = this.count - 1;
      for (let i = 0; i < allow.count; i++) {
        const entry = allow.at(i);
        mark(this.find(Buffer.from(entry, 'latin1'), 0, entry.length));
        const needle = Buffer.from(`.${entry}\n`, 'latin1');
        for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) mark(this.lineOf(at));
        // The last line has no "\n" after it.
        if (this.at(last).endsWith(`.${entry}`)) mark(last);
      }
    } else {
      const allowed = new Set(allow.toArray());
      for (let i = 0; i < this.count; i++) {
        const line = this.at(i);
        if (allowed.has(line)) mark(i);
        else
          for (let dot = line.indexOf('.'); dot >= 0; dot = line.indexOf('.', dot + 1))
            if (allowed.has(line.slice(dot + 1))) {
              mark(i);
              break;
            }
      }
    }
    return dropped ? drop : null;
  }

  /** The line holding byte `at`. */
  private lineOf(at: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.starts[mid] as number) <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * Gathers the domains of a list as positions in the list's own bytes — a million domains make no
 * million strings and no copy — and turns them into a sorted, distinct DomainList with a radix sort on
 * the bytes. A name that had to be normalised is written over its own bytes when it fits (it takes
 * the list's buffer: case and a trailing dot only shorten a name) or else kept aside.
 */
export class DomainCollector {
  private side: Buffer | null = null;
  private sideAt = 0;
  private starts: Uint32Array;
  /** Lengths: a stored domain is at most 253 bytes. */
  private lens: Uint8Array;
  private n = 0;

  /** `source`: the list's bytes, which the collector may write normalised names into. */
  constructor(
    private readonly source: Buffer = Buffer.alloc(0),
    expected = 1024,
  ) {
    this.starts = new Uint32Array(Math.max(16, expected));
    this.lens = new Uint8Array(Math.max(16, expected));
  }

  get count(): number {
    return this.n;
  }

  private push(start: number, length: number): void {
    if (this.n === this.starts.length) {
      const size = Math.ceil(this.n * 1.5);
      const starts = new Uint32Array(size);
      const lens = new Uint8Array(size);
      starts.set(this.starts);
      lens.set(this.lens);
      this.starts = starts;
      this.lens = lens;
    }
    this.starts[this.n] = start;
    this.lens[this.n++] = length;
  }

  /** A domain already in stored form: the list's bytes [start, end). */
  addRange(start: number, end: number): void {
    this.push(start, end - start);
  }

  /** A normalised domain that stands at source[start, end) in the list. */
  addNormalised(domain: string, start: number, end: number): void {
    if (domain.length <= end - start) {
      this.source.write(domain, start, 'latin1');
      this.push(start, domain.length);
    } else this.add(domain);
  }

  /** A domain in stored form (ASCII), kept aside. */
  add(domain: string): void {
    if (!this.side || this.sideAt + domain.length > this.side.length) {
      const grown = Buffer.allocUnsafe(
        Math.max(4096, (this.side?.length ?? 0) * 2, this.sideAt + domain.length),
      );
      this.side?.copy(grown, 0, 0, this.sideAt);
      this.side = grown;
    }
    this.push(this.source.length + this.sideAt, domain.length);
    this.sideAt += this.side.write(domain, this.sideAt, 'latin1');
  }

  finish(): DomainList {
    const n = this.n;
    if (!n) return DomainList.EMPTY;
    // Names kept aside follow the list's bytes (one copy, only when some did not fit in place).
    const bytes = this.side ? Buffer.concat([this.source, this.side.subarray(0, this.sideAt)]) : this.source;
    const { starts, lens } = this;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    sortRanges(
      bytes,
      starts,
      lens,
      order,
      new Uint32Array(n),
      new Uint32Array(n),
      new Int32Array(DIGITS),
      0,
      n,
      0,
    );
    let total = 0;
    for (let i = 0; i < n; i++) total += (lens[i] as number) + 1;
    const text = Buffer.allocUnsafe(total);
    const lineStarts = new Uint32Array(n + 1);
    let at = 0;
    let lines = 0;
    let prevStart = -1;
    let prevLen = -1;
    for (let k = 0; k < n; k++) {
      const i = order[k] as number;
      const s = starts[i] as number;
      const len = lens[i] as number;
      if (len === prevLen && compareRanges(bytes, prevStart, len, s, len) === 0) continue;
      prevStart = s;
      prevLen = len;
      lineStarts[lines++] = at;
      for (let q = s; q < s + len; q++) text[at++] = bytes[q] as number;
      text[at++] = 0x0a;
    }
    lineStarts[lines] = at;
    return DomainList.of(text.subarray(0, at - 1), lineStarts.subarray(0, lines + 1));
  }
}

/** Below this many entries a range is finished by insertion sort. */
const SMALL_RANGE = 16;
/** Below this many entries a range is sorted by comparisons. */
const RADIX_RANGE = 1024;
/** Counts of one 16-bit digit (two passes sort a 32-bit key). */
const DIGITS = 1 << 16;

/** Byte order of bytes[s1, s1 + l1) and bytes[s2, s2 + l2). */
function compareRanges(bytes: Buffer, s1: number, l1: number, s2: number, l2: number): number {
  const n = Math.min(l1, l2);
  for (let k = 0; k < n; k++) {
    const d = (bytes[s1 + k] as number) - (bytes[s2 + k] as number);
    if (d) return d;
  }
  return l1 - l2;
}

/**
 * Sorts order[lo, hi), whose entries agree on their first `depth` bytes: each entry gets the next four
 * bytes as a 32-bit key (0 past its end, below every byte a domain holds), two 16-bit radix passes
 * sort by it, and runs of equal keys that go on sort again four bytes deeper. Linear in the bytes
 * looked at, where comparison sorts of a million strings take a second.
 */
function sortRanges(
  bytes: Buffer,
  starts: Uint32Array,
  lens: Uint8Array,
  order: Uint32Array,
  tmp: Uint32Array,
  keys: Uint32Array,
  count: Int32Array,
  lo: number,
  hi: number,
  depth: number,
): void {
  const n = hi - lo;
  if (n >= SMALL_RANGE && n < RADIX_RANGE) {
    // Too few for two passes over 65,536 digits: compared, from this depth on.
    const part = Array.from(order.subarray(lo, hi));
    part.sort((a, b) =>
      compareRanges(
        bytes,
        (starts[a] as number) + depth,
        (lens[a] as number) - depth,
        (starts[b] as number) + depth,
        (lens[b] as number) - depth,
      ),
    );
    order.set(part, lo);
    return;
  }
  if (n < SMALL_RANGE) {
    for (let i = lo + 1; i < hi; i++) {
      const v = order[i] as number;
      const vs = (starts[v] as number) + depth;
      const vl = (lens[v] as number) - depth;
      let j = i - 1;
      while (j >= lo) {
        const w = order[j] as number;
        if (compareRanges(bytes, (starts[w] as number) + depth, (lens[w] as number) - depth, vs, vl) <= 0)
          break;
        order[j + 1] = w;
        j--;
      }
      order[j + 1] = v;
    }
    return;
  }
  // One key per entry, by entry (not by position), so one array serves both passes and every depth.
  for (let k = lo; k < hi; k++) {
    const i = order[k] as number;
    const p = (starts[i] as number) + depth;
    const e = (starts[i] as number) + (lens[i] as number);
    keys[i] =
      (((p < e ? (bytes[p] as number) : 0) << 24) |
        ((p + 1 < e ? (bytes[p + 1] as number) : 0) << 16) |
        ((p + 2 < e ? (bytes[p + 2] as number) : 0) << 8) |
        (p + 3 < e ? (bytes[p + 3] as number) : 0)) >>>
      0;
  }
  const keyOf = (i: number) => keys[i] as number;
  // Low digit, then high digit (stable).
  for (const shift of [0, 16]) {
    const [from, to] =
      shift === 0
        ? [order.subarray(lo, hi), tmp.subarray(lo, hi)]
        : [tmp.subarray(lo, hi), order.subarray(lo, hi)];
    count.fill(0);
    for (let k = 0; k < n; k++) {
      const d = (keyOf(from[k] as number) >>> shift) & 0xffff;
      count[d] = (count[d] as number) + 1;
    }
    let sum = 0;
    for (let d = 0; d < DIGITS; d++) {
      const c = count[d] as number;
      count[d] = sum;
      sum += c;
    }
    for (let k = 0; k < n; k++) {
      const i = from[k] as number;
      const d = (keyOf(i) >>> shift) & 0xffff;
      const at = count[d] as number;
      count[d] = at + 1;
      to[at] = i;
    }
  }
  // Runs of one key whose entries go on past these four bytes sort on the next four.
  for (let k = 0; k < n; ) {
    const key = keyOf(order[lo + k] as number);
    let e = k + 1;
    while (e < n && keyOf(order[lo + e] as number) === key) e++;
    if (e - k > 1 && (key & 0xff) !== 0)
      sortRanges(bytes, starts, lens, order, tmp, keys, count, lo + k, lo + e, depth + 4);
    k = e;
  }
}
