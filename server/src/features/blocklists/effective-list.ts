import { createHash } from 'node:crypto';
import { compareBytes, type DomainList } from './domain-list.js';

/** A list in a child's policy and its lines an allow covers (null: none). */
interface Part {
  list: DomainList;
  drop: Uint8Array | null;
}

/**
 * A child's effective block list — the union of its sources and own entries less what an allow
 * covers — as a view over those lists, never a copy: a child using a million-domain source costs one
 * mark per line only when an allow covers some. It is walked in order, as runs of consecutive lines of
 * one list (bytes text[start, end), lines joined by "\n"), to count, hash and serve it; a merge of
 * several lists moves by binary search from one list's head to the next, so a big list with a few
 * own entries merges in O(own · log n) compares.
 */
export class EffectiveList {
  private readonly parts: Part[];
  /** Entries in the effective list (distinct). */
  readonly count: number;
  /** Bytes of the entries joined by "\n". */
  readonly bytes: number;

  constructor(lists: readonly DomainList[], allow: DomainList) {
    this.parts = lists.filter((l) => l.count > 0).map((list) => ({ list, drop: list.coveredBy(allow) }));
    let count = 0;
    let bytes = 0;
    this.eachRun((_text, start, end, lines) => {
      count += lines;
      bytes += end - start + 1;
    });
    this.count = count;
    this.bytes = Math.max(0, bytes - 1);
  }

  /** Whether the view is built on `list`. */
  uses(list: DomainList): boolean {
    return this.parts.some((p) => p.list === list);
  }

  /**
   * Calls `run` with each run of kept lines in order; `lines` is how many it holds. Runs follow each
   * other with a "\n" between them.
   */
  eachRun(run: (text: Buffer, start: number, end: number, lines: number) => void): void {
    const parts = this.parts;
    // Emits lines [from, to) of a part, split around the ones an allow covers.
    const emit = (p: Part, from: number, to: number) => {
      if (from >= to) return;
      if (!p.drop) {
        run(p.list.text, p.list.start(from), p.list.end(to - 1), to - from);
        return;
      }
      let i = from;
      while (i < to) {
        while (i < to && p.drop[i]) i++;
        const s = i;
        while (i < to && !p.drop[i]) i++;
        if (i > s) run(p.list.text, p.list.start(s), p.list.end(i - 1), i - s);
      }
    };
    if (parts.length === 1) {
      const p = parts[0] as Part;
      emit(p, 0, p.list.count);
      return;
    }
    const heads = parts.map(() => 0);
    const compareHeads = (a: number, b: number) => {
      const pa = parts[a] as Part;
      const pb = parts[b] as Part;
      const ha = heads[a] as number;
      const hb = heads[b] as number;
      return compareBytes(
        pa.list.text,
        pa.list.start(ha),
        pa.list.end(ha),
        pb.list.text,
        pb.list.start(hb),
        pb.list.end(hb),
      );
    };
    for (;;) {
      // The part whose head is smallest, and the next smallest head (the bound of its run).
      let first = -1;
      let second = -1;
      for (let k = 0; k < parts.length; k++) {
        if ((heads[k] as number) >= (parts[k] as Part).list.count) continue;
        if (first < 0 || compareHeads(k, first) < 0) {
          second = first;
          first = k;
        } else if (second < 0 || compareHeads(k, second) < 0) second = k;
      }
      if (first < 0) return;
      const p = parts[first] as Part;
      const from = heads[first] as number;
      if (second < 0) {
        emit(p, from, p.list.count);
        heads[first] = p.list.count;
        continue;
      }
      const q = parts[second] as Part;
      const qh = heads[second] as number;
      if (compareHeads(first, second) === 0) {
        // The same entry heads both (and maybe more): once, and every part holding it moves on.
        const covered = (p.drop?.[from] ?? 0) === 1;
        if (!covered) emit(p, from, from + 1);
        const key = p.list.text;
        const ks = p.list.start(from);
        const ke = p.list.end(from);
        for (let k = 0; k < parts.length; k++) {
          const r = parts[k] as Part;
          const h = heads[k] as number;
          if (
            h < r.list.count &&
            compareBytes(r.list.text, r.list.start(h), r.list.end(h), key, ks, ke) === 0
          )
            heads[k] = h + 1;
        }
        continue;
      }
      // Every line of `p` below the next head goes at once.
      const to = p.list.lowerBound(q.list.text, q.list.start(qh), q.list.end(qh), from + 1);
      emit(p, from, to);
      heads[first] = to;
    }
  }

  /** SHA-256 of the entries joined by "\n", a NUL, and the allow entries the same way. */
  hash(allow: DomainList): string {
    const hash = createHash('sha256');
    const newline = Buffer.of(0x0a);
    let started = false;
    this.eachRun((text, start, end) => {
      if (started) hash.update(newline);
      hash.update(text.subarray(start, end));
      started = true;
    });
    return hash.update('\u0000').update(allow.text).digest('hex');
  }

  /** The entries as a JSON array (bytes), written straight from the lists' text. */
  jsonArray(): Buffer {
    if (!this.count) return Buffer.from('[]');
    // Each "\n" inside or between runs becomes '","' (two bytes more), plus '["' and '"]'.
    const out = Buffer.allocUnsafe(this.bytes + 2 * (this.count - 1) + 4);
    out[0] = 0x5b;
    out[1] = 0x22;
    let at = 2;
    let started = false;
    this.eachRun((text, start, end) => {
      if (started) {
        out[at++] = 0x22;
        out[at++] = 0x2c;
        out[at++] = 0x22;
      }
      started = true;
      for (let i = start; i < end; i++) {
        const c = text[i] as number;
        if (c === 0x0a) {
          out[at++] = 0x22;
          out[at++] = 0x2c;
          out[at++] = 0x22;
        } else out[at++] = c;
      }
    });
    out[at++] = 0x22;
    out[at++] = 0x5d;
    return out.subarray(0, at);
  }

  /** Every entry, in order (tests, small lists). */
  toArray(): string[] {
    const out: string[] = [];
    this.eachRun((text, start, end) => {
      out.push(...text.toString('latin1', start, end).split('\n'));
    });
    return out;
  }
}
