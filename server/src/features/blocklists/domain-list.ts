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
      const order = this.text.compare(key, from, to, this.starts[mid], (this.starts[mid + 1] as number) - 1);
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

  /** The entries as a JSON array, built from the text without a string per entry. */
  jsonArray(): string {
    return this.count ? `["${this.text.toString('latin1').replaceAll('\n', '","')}"]` : '[]';
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

  /**
   * The entries no entry of `allow` covers (a rule for d covers d and its subdomains). A few allow
   * entries are searched for as ".d\n" in the text (memchr-fast); many are looked up line by line.
   */
  without(allow: DomainList): DomainList {
    if (!this.count || !allow.count) return this;
    const drop = new Uint8Array(this.count);
    let dropped = 0;
    const mark = (line: number) => {
      if (line >= 0 && !drop[line]) {
        drop[line] = 1;
        dropped++;
      }
    };
    if (allow.count <= 32) {
      // One "\n" more at the end so the last line ends like the others.
      const text = Buffer.concat([this.text, Buffer.of(0x0a)]);
      for (let i = 0; i < allow.count; i++) {
        const entry = allow.at(i);
        mark(this.find(Buffer.from(entry, 'latin1'), 0, entry.length));
        const needle = Buffer.from(`.${entry}\n`, 'latin1');
        for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) mark(this.lineOf(at));
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
    if (!dropped) return this;
    if (dropped === this.count) return DomainList.EMPTY;
    // Kept lines move down by the bytes dropped before them; runs of kept lines are copied at once.
    const out = Buffer.allocUnsafe(this.text.length + 1);
    const starts = new Uint32Array(this.count - dropped + 1);
    let n = 0;
    let at = 0;
    let run = -1;
    const flush = (end: number) => {
      if (run < 0) return;
      const from = this.starts[run] as number;
      const to = Math.min(this.starts[end] as number, this.text.length + 1);
      this.text.copy(out, at, from, Math.min(to, this.text.length));
      if (to > this.text.length) out[at + to - from - 1] = 0x0a;
      at += to - from;
      run = -1;
    };
    for (let i = 0; i < this.count; i++) {
      if (drop[i]) {
        flush(i);
        continue;
      }
      if (run < 0) run = i;
      starts[n++] = at + (this.starts[i] as number) - (this.starts[run] as number);
    }
    flush(this.count);
    starts[n] = at;
    return new DomainList(out.subarray(0, at - 1), starts);
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
