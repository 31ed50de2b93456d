import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { DomainList } from './domain-list.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** What a source or a compiled policy holds: blocked domains and exceptions. */
export interface Lists {
  block: DomainList;
  allow: DomainList;
}

export const NO_LISTS: Lists = { block: DomainList.EMPTY, allow: DomainList.EMPTY };

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
}

/**
 * The in-memory forms, keyed by content hash so that no instance ever serves stale lists and nothing
 * needs invalidating: a source's lists by (source, hash), a child's compiled policy by (child, hash),
 * and the gzipped answers agents fetch by (child, version, account). Loads of the same key share one
 * promise.
 */
export class ListStore {
  private readonly sources = new BoundedCache<Lists>(160 * 1024 * 1024, listsBytes);
  private readonly compiled = new BoundedCache<Lists>(96 * 1024 * 1024, listsBytes);
  private readonly bodies = new BoundedCache<Buffer>(64 * 1024 * 1024, (b) => b.length);
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
    const key = `${id}:${hash}`;
    const kept = this.sources.get(key);
    if (kept) return kept;
    return this.once(key, async () => {
      const stored = await this.load(id);
      if (!stored?.content_hash) return NO_LISTS;
      const lists = {
        block: await decodeList(stored.content),
        allow: await decodeList(stored.allow_content),
      };
      this.sources.set(`${id}:${stored.content_hash}`, lists);
      return lists;
    });
  }

  /** A source's new content, kept so that the compiles that follow do not read it back. */
  keepSource(id: string, hash: string, lists: Lists): void {
    this.sources.set(`${id}:${hash}`, lists);
  }

  compiledFor(childId: string, hash: string): Lists | undefined {
    return this.compiled.get(`${childId}:${hash}`);
  }

  keepCompiled(childId: string, hash: string, lists: Lists): void {
    this.compiled.set(`${childId}:${hash}`, lists);
  }

  /** The gzipped answer for `key`, made once. */
  gzipped(key: string, body: () => Buffer): Promise<Buffer> {
    const kept = this.bodies.get(key);
    if (kept) return Promise.resolve(kept);
    return this.once(`gz:${key}`, async () => {
      const zipped = await gzipAsync(body(), { level: 6 });
      this.bodies.set(key, zipped);
      return zipped;
    });
  }
}
