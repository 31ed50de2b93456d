import {
  type AddSourceBody,
  BLOCKLIST_REFRESH_MS,
  type DeletedView,
  type PreviewBody,
  type PreviewView,
  type SourceRefreshView,
  type SourceView,
  type UpdateSourceBody,
} from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { SessionAuth } from '../../platform/access.js';
import { creationIso, nowIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import { HttpError, invalidRequest, notFound } from '../../platform/errors.js';
import type { SafeFetcher } from '../../platform/safe-fetch.js';
import { DomainList } from './domain-list.js';
import { firstLines, type ParsedList, parseList } from './formats.js';
import type { BlocklistRepository, SourceRow } from './repository.js';
import { contentHash, encodeList, type ListStore, type Lists } from './store.js';

/** Told when a source's content changed or the source went: the children using it compile again. */
export type SourceChanged = (childIds: readonly string[]) => Promise<void>;

export function sourceView(row: SourceRow): SourceView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    url: row.url,
    format: row.format,
    detected_format: row.detected_format,
    domain_count: Number(row.domain_count),
    allow_count: Number(row.allow_count),
    skipped_lines: Number(row.skipped_lines),
    etag: row.etag,
    last_modified: row.last_modified,
    last_refreshed_at: row.last_refreshed_at,
    last_attempt_at: row.last_attempt_at,
    last_error: row.last_error,
    created_at: row.created_at,
  };
}

/** A list's text as fetched: UTF-8 without a byte-order mark. */
const listText = (body: Buffer) => body.toString('utf8').replace(/^\uFEFF/, '');
const manualText = (domains: string | readonly string[] | undefined) =>
  typeof domains === 'string' ? domains : (domains ?? []).join('\n');

function toLists(parsed: ParsedList): Lists {
  return { block: DomainList.fromSorted(parsed.block), allow: DomainList.fromSorted(parsed.allow) };
}

/**
 * A household's blocklist sources (DESIGN §11): manual lists and URL lists fetched through the
 * SSRF-safe fetch (DESIGN §8), conditionally refreshed, keeping their last good content on failure.
 */
export class SourceService {
  /** One fetch per source at a time: a second caller (the worker, a double click) shares it. */
  private readonly refreshing = new Map<string, Promise<{ row: SourceRow; changed: boolean }>>();
  /** First fetches started at creation, awaited at shutdown. */
  private readonly background = new Set<Promise<unknown>>();

  constructor(
    private readonly repo: BlocklistRepository,
    private readonly store: ListStore,
    private readonly fetcher: SafeFetcher,
    private readonly changed: SourceChanged,
    private readonly log: FastifyBaseLogger,
  ) {}

  async list(actor: SessionAuth): Promise<SourceView[]> {
    return (await this.repo.listSources(actor.householdId)).map(sourceView);
  }

  private async load(actor: SessionAuth, id: string): Promise<SourceRow> {
    const row = await this.repo.source(actor.householdId, id);
    if (!row) throw notFound('The blocklist source');
    return row;
  }

  async add(actor: SessionAuth, body: AddSourceBody): Promise<SourceView> {
    const at = creationIso();
    const format = body.format ?? 'auto';
    const base = {
      id: newId(),
      household_id: actor.householdId,
      name: body.name.trim(),
      kind: body.kind,
      format,
      etag: null,
      last_modified: null,
      last_refreshed_at: null,
      last_attempt_at: null,
      last_error: null,
      created_at: at,
      updated_at: at,
    };
    if (body.kind === 'url') {
      if (!body.url)
        throw invalidRequest('A url source needs the address of its list: url is required.', [
          { path: 'body/url', message: 'is required for a url source' },
        ]);
      if (body.domains !== undefined)
        throw invalidRequest('A url source takes its domains from its URL; leave domains out.', [
          { path: 'body/domains', message: 'is only for manual sources' },
        ]);
      const url = (await this.fetcher.check(body.url.trim())).toString();
      await this.repo.insertSource({
        ...base,
        url,
        detected_format: null,
        domain_count: 0,
        allow_count: 0,
        skipped_lines: 0,
        content: null,
        allow_content: null,
        content_hash: null,
      });
      this.startRefresh(base.id);
    } else {
      if (body.url !== undefined)
        throw invalidRequest('A manual source holds its own domains; leave url out.', [
          { path: 'body/url', message: 'is only for url sources' },
        ]);
      const parsed = parseList(manualText(body.domains), format);
      const lists = toLists(parsed);
      const hash = contentHash(lists);
      await this.repo.insertSource({
        ...base,
        url: null,
        detected_format: parsed.format,
        domain_count: lists.block.count,
        allow_count: lists.allow.count,
        skipped_lines: parsed.skipped_lines,
        content: await encodeList(lists.block),
        allow_content: await encodeList(lists.allow),
        content_hash: hash,
      });
      this.store.keepSource(base.id, hash, lists);
    }
    return sourceView(await this.load(actor, base.id));
  }

  async update(actor: SessionAuth, id: string, body: UpdateSourceBody): Promise<SourceView> {
    const row = await this.load(actor, id);
    const changes: Parameters<BlocklistRepository['updateSource']>[1] = {};
    if (body.name !== undefined) changes.name = body.name.trim();
    let contentChanged = false;
    if (body.domains !== undefined) {
      if (row.kind !== 'manual')
        throw invalidRequest("A url source's domains come from its URL; refresh it instead.", [
          { path: 'body/domains', message: 'is only for manual sources' },
        ]);
      const parsed = parseList(manualText(body.domains), row.format);
      const lists = toLists(parsed);
      const hash = contentHash(lists);
      Object.assign(changes, {
        detected_format: parsed.format,
        domain_count: lists.block.count,
        allow_count: lists.allow.count,
        skipped_lines: parsed.skipped_lines,
      });
      if (hash !== row.content_hash) {
        Object.assign(changes, {
          content: await encodeList(lists.block),
          allow_content: await encodeList(lists.allow),
          content_hash: hash,
        });
        this.store.keepSource(id, hash, lists);
        contentChanged = true;
      }
    }
    if (Object.keys(changes).length) await this.repo.updateSource(id, { ...changes, updated_at: nowIso() });
    if (contentChanged) await this.changed(await this.repo.childrenUsing(id));
    return sourceView(await this.load(actor, id));
  }

  async remove(actor: SessionAuth, id: string): Promise<DeletedView> {
    await this.load(actor, id);
    const children = await this.repo.childrenUsing(id);
    if (!(await this.repo.deleteSource(actor.householdId, id))) throw notFound('The blocklist source');
    await this.changed(children);
    return { id, deleted: true };
  }

  async refresh(actor: SessionAuth, id: string): Promise<SourceRefreshView> {
    const row = await this.load(actor, id);
    if (row.kind !== 'url')
      throw invalidRequest('Only a url source can be refreshed; a manual list changes when you edit it.');
    const outcome = await this.refreshSource(id);
    return { source: sourceView(outcome.row), changed: outcome.changed };
  }

  /** Fetches a list without storing anything: its detected format, first lines and domain count. */
  async preview(_actor: SessionAuth, body: PreviewBody): Promise<PreviewView> {
    const res = await this.fetcher.fetch(body.url.trim());
    const text = listText(res.body);
    const parsed = parseList(text, 'auto');
    return { format: parsed.format, first_lines: firstLines(text, 20), domain_count: parsed.block.length };
  }

  /** Worker task: fetches every url source whose last attempt is a day old (or that never had one). */
  async refreshDue(now = Date.now()): Promise<string> {
    const due = await this.repo.urlSourcesDue(new Date(now - BLOCKLIST_REFRESH_MS).toISOString());
    let changed = 0;
    let failed = 0;
    for (const { id } of due) {
      try {
        if ((await this.refreshSource(id)).changed) changed++;
      } catch {
        failed++;
      }
    }
    return `refreshed ${due.length} blocklists (${changed} changed, ${failed} failed)`;
  }

  /** The first fetch of a new url source, started at once without holding up the answer. */
  private startRefresh(id: string): void {
    const running = this.refreshSource(id)
      .catch((err) => this.log.info({ err, source_id: id }, 'first fetch of a blocklist failed'))
      .finally(() => this.background.delete(running));
    this.background.add(running);
  }

  /** Waits for the first fetches still running (shutdown). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.background]);
  }

  private refreshSource(id: string): Promise<{ row: SourceRow; changed: boolean }> {
    const running = this.refreshing.get(id);
    if (running) return running;
    const p = this.fetchAndStore(id).finally(() => this.refreshing.delete(id));
    this.refreshing.set(id, p);
    return p;
  }

  /**
   * One conditional fetch: 304 keeps the content; 200 stores it when its hash changed and has the
   * children using the source compile again. On failure only `last_error` and the attempt's time are
   * written, and the error goes on to the caller.
   */
  private async fetchAndStore(id: string): Promise<{ row: SourceRow; changed: boolean }> {
    const row = await this.repo.sourceById(id);
    if (!row?.url) throw notFound('The blocklist source');
    const headers: Record<string, string> = {};
    // Conditional only when there is content to keep.
    if (row.content_hash) {
      if (row.etag) headers['if-none-match'] = row.etag;
      if (row.last_modified) headers['if-modified-since'] = row.last_modified;
    }
    const at = nowIso();
    let fetched: { status: number; headers: Record<string, string>; parsed: ParsedList | null };
    try {
      const res = await this.fetcher.fetch(row.url, headers);
      const parsed = res.status === 304 ? null : parseList(listText(res.body), row.format);
      if (parsed && !parsed.block.length && !parsed.allow.length)
        throw new HttpError(
          502,
          'upstream_failed',
          `The answer from ${new URL(row.url).host} holds no domains (${parsed.skipped_lines} lines were not understood); the list was kept as it was.`,
        );
      fetched = { status: res.status, headers: res.headers, parsed };
    } catch (err) {
      const failure =
        err instanceof HttpError
          ? err
          : new HttpError(502, 'upstream_failed', `The list could not be read: ${(err as Error).message}`);
      await this.repo.updateSource(id, { last_attempt_at: at, last_error: failure.message.slice(0, 500) });
      throw failure;
    }
    const { parsed } = fetched;
    if (!parsed) {
      await this.repo.updateSource(id, { last_refreshed_at: at, last_attempt_at: at, last_error: null });
      return { row: await this.reread(id), changed: false };
    }
    const lists = toLists(parsed);
    const hash = contentHash(lists);
    const meta = {
      etag: fetched.headers.etag ?? null,
      last_modified: fetched.headers['last-modified'] ?? null,
      detected_format: parsed.format,
      skipped_lines: parsed.skipped_lines,
      last_refreshed_at: at,
      last_attempt_at: at,
      last_error: null,
      updated_at: at,
    };
    if (hash === row.content_hash) {
      await this.repo.updateSource(id, meta);
      return { row: await this.reread(id), changed: false };
    }
    await this.repo.updateSource(id, {
      ...meta,
      domain_count: lists.block.count,
      allow_count: lists.allow.count,
      content: await encodeList(lists.block),
      allow_content: await encodeList(lists.allow),
      content_hash: hash,
    });
    this.store.keepSource(id, hash, lists);
    await this.changed(await this.repo.childrenUsing(id));
    return { row: await this.reread(id), changed: true };
  }

  private async reread(id: string): Promise<SourceRow> {
    const row = await this.repo.sourceById(id);
    if (!row) throw notFound('The blocklist source');
    return row;
  }
}
