import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { DomainList } from './domain-list.js';
import type { EffectiveList } from './effective-list.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** What a source or a compiled policy holds: blocked domains and exceptions. */
export interface Lists {
  block: DomainList;
  allow: DomainList;
}

export const NO_LISTS: Lists = { block: DomainList.EMPTY, allow: DomainList.EMPTY };

/** A child's compiled policy: the effective block list (a view over its lists), allows and hash. */
export interface Compiled {
  block: EffectiveList;
  allow: DomainList;
  hash: string;
}

/** SHA-256 of the block text, a NUL, and the allow text: the identity of a source's or policy's content. */
export function contentHash({ block, allow }: Lists): string {
  return createHash('sha256').update(block.text).update('\u0000').update(allow.text).digest('hex');
}

/** The stored form of a list: its text gzipped (null when empty). Compressed off the event loop. */
export async function encodeList(list: DomainList): Promise<Buffer | null> {
  return list.count ? gzipAsync(list.text, { level: 6 }) : null;
}

export async function decodeList(blob: Buffer | null): Promise<DomainList> {
  return blob?.length ? DomainList.fromText(await gunzipAsync(blob)) : DomainList.EMPTY;
}

const listsBytes = ({ block, allow }: Lists) =>
  block.text.length + allow.text.length + 4 * (block.count + allow.count) + 64;

/** A map that keeps what was used last, up to a number of bytes. */
export class BoundedCache<V> {
  private readonly items = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const item = this.items.get(key);
    if (!item) return undefined;
    this.items.delete(key);
    this.items.set(key, item);
    return item.value;
  }

  set(key: string, value: V): void {
    const bytes = this.sizeOf(value);
    const old = this.items.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.items.delete(key);
    }
    if (bytes > this.maxBytes) return;
    this.items.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [k, item] of this.items) {
      if (this.bytes <= this.maxBytes) break;
      this.items.delete(k);
      this.bytes -= item.bytes;
    }
  }

  /** Drops the entries `drop` says. */
  deleteWhere(drop: (value: V, key: string) => boolean): void {
    for (const [k, item] of this.items) {
      if (!drop(item.value, k)) continue;
      this.items.delete(k);
      this.bytes -= item.bytes;
    }
  }
}

/**
 * The in-memory forms, checked against the content hash so that no instance ever serves stale lists
 * and nothing needs invalidating: a source's lists by source (as of one hash), a child's compiled
 * policy by child, the gzipped answers agents fetch by (child, account) as of one version. Only the
 * newest of each is kept — a million-domain list must not linger in two versions — within a byte
 * budget per kind; loads of the same key share one promise.
 */
export class ListStore {
  private readonly sources = new BoundedCache<{ hash: string; lists: Lists }>(128 * 1024 * 1024, (v) =>
    listsBytes(v.lists),
  );
  // A compiled policy is a view over source lists held above: it costs its marks and allows.
  private readonly compiled = new BoundedCache<Compiled>(
    64 * 1024 * 1024,
    (c) => c.block.count / 8 + c.allow.text.length + 4 * c.allow.count + 256,
  );
  private readonly bodies = new BoundedCache<{ version: string; body: Buffer }>(
    48 * 1024 * 1024,
    (v) => v.body.length,
  );
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly load: (
      sourceId: string,
    ) => Promise<
      { content: Buffer | null; allow_content: Buffer | null; content_hash: string | null } | undefined
    >,
  ) {}

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    const running = this.loading.get(key) as Promise<T> | undefined;
    if (running) return running;
    const p = make().finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }

  /** A source's lists as of `hash` (null: the source has no content yet). */
  async source(id: string, hash: string | null): Promise<Lists> {
    if (!hash) return NO_LISTS;
    const kept = this.sources.get(id);
    if (kept?.hash === hash) return kept.lists;
    return this.once(`source:${id}:${hash}`, async () => {
      const stored = await this.load(id);
      if (!stored?.content_hash) return NO_LISTS;
      const lists = {
        block: await decodeList(stored.content),
        allow: await decodeList(stored.allow_content),
      };
      this.sources.set(id, { hash: stored.content_hash, lists });
      return lists;
    });
  }

  /**
   * Lets go of a source's lists and the compiled policies built on them, before its new content is
   * read: a million-domain list then never sits in memory in two versions. Whatever needs them again
   * meanwhile loads them back.
   */
  releaseSource(id: string): void {
    const kept = this.sources.get(id);
    if (!kept) return;
    this.sources.deleteWhere((_v, key) => key === id);
    this.compiled.deleteWhere((c) => c.block.uses(kept.lists.block));
  }

  /** A source's new content, kept (in place of the old) so the compiles that follow need not read it. */
  keepSource(id: string, hash: string, lists: Lists): void {
    this.sources.set(id, { hash, lists });
  }

  compiledFor(childId: string, hash: string): Compiled | undefined {
    const kept = this.compiled.get(childId);
    return kept?.hash === hash ? kept : undefined;
  }

  keepCompiled(childId: string, compiled: Compiled): void {
    this.compiled.set(childId, compiled);
  }

  /** The gzipped answer for `key` as of `version`, made once. */
  gzipped(key: string, version: string, body: () => Buffer): Promise<Buffer> {
    const kept = this.bodies.get(key);
    if (kept?.version === version) return Promise.resolve(kept.body);
    return this.once(`gz:${key}:${version}`, async () => {
      const zipped = await gzipAsync(body(), { level: 6 });
      this.bodies.set(key, { version, body: zipped });
      return zipped;
    });
  }
}
