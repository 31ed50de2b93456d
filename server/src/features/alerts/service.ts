import {
  type AccessRequestBody,
  ALERT_KINDS,
  type AlertEventMessage,
  type AlertKindsView,
  type AlertQuery,
  type AlertView,
  LIMITS,
  MAX_ALERT_DETAIL_BYTES,
  MAX_ALERTS_PER_MINUTE,
  RESERVED_ALERT_KINDS,
} from '@hearth/protocol';
import type { BearerDevice, SessionAuth } from '../../platform/access.js';
import { creationIso, nowIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import { normalizeDomain } from '../../platform/domain.js';
import { HttpError, invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import type { CounterStore } from '../../platform/rate-limit.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessService } from '../access/service.js';
import type { UserRepository } from '../users/repository.js';
import type { AlertFilter, AlertRepository } from './repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const ALERT_WINDOW_MS = 60_000;
const reserved: ReadonlySet<string> = new Set(RESERVED_ALERT_KINDS);

/** Why the server did not take an agent's alert_event; the agent gets it as an error frame. */
export class AlertRefused extends Error {
  constructor(
    readonly code: 'invalid_message' | 'rate_limited',
    message: string,
  ) {
    super(message);
  }
}

type AlertRow = Awaited<ReturnType<AlertRepository['get']>>;

function parsePayload(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export function alertView(row: NonNullable<AlertRow>): AlertView {
  return {
    id: row.id,
    kind: row.kind,
    system_id: row.system_id,
    hostname: row.hostname ?? null,
    display_name: row.display_name ?? row.hostname ?? null,
    linux_username: row.linux_username,
    managed_user_id: row.managed_user_id,
    managed_user_name: row.managed_user_name ?? null,
    payload: parsePayload(row.payload),
    created_at: row.created_at,
    acknowledged_at: row.acknowledged_at,
  };
}

/** Cursors are opaque to clients: the (created_at, id) of the last item, base64url. */
const encodeCursor = (row: { created_at: string; id: string }) =>
  Buffer.from(`${row.created_at}|${row.id}`).toString('base64url');
function decodeCursor(cursor: string): { created_at: string; id: string } {
  const [created_at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!created_at || !id || Number.isNaN(Date.parse(created_at)))
    throw invalidRequest('The paging cursor is not valid.');
  return { created_at, id };
}

export class AlertService {
  /** Agent alerts dropped over a device's budget since start (a figure for tests and logs). */
  dropped = 0;

  /**
   * What every dashboard visit of an owner or admin reads: the household's newest alerts (unfiltered
   * first page, by size) and its unread count. Read-only: never mutate. Any write to the household's
   * alerts drops them, and so does a change of the names they show (a child's, a device's).
   */
  private readonly cachedNewest: CacheSpace<{ items: AlertView[]; next_cursor: string | null }>;
  private readonly cachedUnread: CacheSpace<number>;

  constructor(
    private readonly alerts: AlertRepository,
    private readonly users: UserRepository,
    private readonly access: AccessService,
    private readonly events: EventPublisher,
    private readonly counters: CounterStore,
    private readonly cache: ReadCache,
  ) {
    this.cachedNewest = cache.space('alerts-newest');
    this.cachedUnread = cache.space('alerts-unread');
  }

  /** After the household's alerts changed. */
  private forget(householdId: string): Promise<void> {
    return this.cache.invalidate(cacheTags.alerts(householdId));
  }

  /** The child an account on a device belongs to, if it is mapped. */
  private async childOf(systemId: string, linuxUsername: string | undefined): Promise<string | null> {
    if (!linuxUsername) return null;
    const mapping = await this.users.findMapping(systemId, linuxUsername);
    return mapping?.managed_user_id ?? null;
  }

  private async record(input: {
    householdId: string;
    kind: string;
    systemId: string;
    linuxUsername: string | null;
    payload: Record<string, unknown> | string;
  }): Promise<AlertView> {
    const managedUserId = await this.childOf(input.systemId, input.linuxUsername ?? undefined);
    const row = {
      id: newId(),
      household_id: input.householdId,
      kind: input.kind,
      system_id: input.systemId,
      linux_username: input.linuxUsername,
      managed_user_id: managedUserId,
      payload: typeof input.payload === 'string' ? input.payload : JSON.stringify(input.payload),
      created_at: creationIso(),
      acknowledged_at: null,
    };
    await this.alerts.insert(row);
    await this.forget(input.householdId);
    const stored = await this.alerts.get(input.householdId, row.id);
    if (!stored) throw new Error('alert vanished after insert');
    const view = alertView(stored);
    // A child's request goes out first under its own kind: the parent's notification waits on it.
    if (input.kind === 'access_requested') this.events.publish(input.householdId, 'access_requested', view);
    this.events.publish(input.householdId, 'alert_created', view);
    return view;
  }

  /** POST /api/access-request: a child's message from Hearth Space, sent by their device's agent. */
  async accessRequest(device: BearerDevice, body: AccessRequestBody) {
    if (body.system_id !== undefined && body.system_id !== device.systemId) {
      throw new HttpError(
        403,
        'system_id_mismatch',
        'system_id does not match the device this token belongs to.',
      );
    }
    const message = body.message.trim();
    if (message.length < 1 || message.length > LIMITS.parentNoteMaxLength) {
      throw invalidRequest('The message must be 1 to 500 characters.', [
        { path: 'body/message', message: 'must be 1 to 500 characters after trimming' },
      ]);
    }
    if (!device.linuxUsers.includes(body.linux_username)) {
      throw invalidRequest(`The account "${body.linux_username}" is not one this device reported.`, [
        { path: 'body/linux_username', message: 'is not an account of this device' },
      ]);
    }
    let domain: string | undefined;
    if (body.domain !== undefined) {
      domain = normalizeDomain(body.domain) ?? undefined;
      if (!domain)
        throw invalidRequest('The domain is not a valid domain name.', [
          { path: 'body/domain', message: 'must be a domain name' },
        ]);
    }
    const view = await this.record({
      householdId: device.householdId,
      kind: 'access_requested',
      systemId: device.systemId,
      linuxUsername: body.linux_username,
      payload: domain ? { reason: body.reason, message, domain } : { reason: body.reason, message },
    });
    return { id: view.id, kind: 'access_requested' as const, created_at: view.created_at };
  }

  /**
   * Agent `alert_event` frames (clock tamper and the like), within the device's budgets
   * (docs/protocol.md, "Budgets"): kinds the server raises itself are refused, so are details over
   * 8 KiB, and past 60 alerts a minute the rest of the minute's are dropped, the first of them
   * replaced by one `alerts_dropped`. A refusal throws AlertRefused.
   */
  async agentEvent(
    device: { systemId: string; householdId: string; linuxUsers: Set<string> },
    event: AlertEventMessage,
  ): Promise<AlertView> {
    if (reserved.has(event.event_type))
      throw new AlertRefused(
        'invalid_message',
        `alert_event: the kind "${event.event_type}" is reserved to the server${
          event.event_type === 'access_requested' ? ' (a child asks through POST /api/access-request)' : ''
        }.`,
      );
    // The frame was parsed from JSON no deeper than the channel allows, so it serializes again.
    const payload = JSON.stringify(event.detail);
    const bytes = Buffer.byteLength(payload);
    if (bytes > MAX_ALERT_DETAIL_BYTES)
      throw new AlertRefused(
        'invalid_message',
        `alert_event: detail is ${bytes} bytes; at most ${MAX_ALERT_DETAIL_BYTES} bytes of JSON.`,
      );
    const window = await this.counters.hit(`alerts:${device.systemId}`, ALERT_WINDOW_MS);
    const base = { householdId: device.householdId, systemId: device.systemId };
    if (window.count > MAX_ALERTS_PER_MINUTE) {
      this.dropped += 1;
      // The first one over the budget is replaced by a single alert that says so.
      if (window.count === MAX_ALERTS_PER_MINUTE + 1)
        await this.record({
          ...base,
          kind: 'alerts_dropped',
          linuxUsername: null,
          payload: {
            limit: MAX_ALERTS_PER_MINUTE,
            window_seconds: ALERT_WINDOW_MS / 1000,
            first_dropped: event.event_type,
          },
        });
      throw new AlertRefused(
        'rate_limited',
        `This device raised more than ${MAX_ALERTS_PER_MINUTE} alerts this minute; this one was dropped.`,
      );
    }
    const account =
      event.linux_username && device.linuxUsers.has(event.linux_username) ? event.linux_username : null;
    return this.record({ ...base, kind: event.event_type, linuxUsername: account, payload });
  }

  /** What the Alerts page offers as a filter: Hearth's kinds, then any other kind the parent can see. */
  async kinds(actor: SessionAuth): Promise<AlertKindsView> {
    const stored = await this.alerts.kinds(actor.householdId, await this.access.visibleChildIds(actor));
    const known = new Set<string>(ALERT_KINDS);
    const others = stored.filter((k) => !known.has(k)).sort();
    return { kinds: [...ALERT_KINDS, ...others] };
  }

  async list(actor: SessionAuth, query: AlertQuery) {
    const limit = query.limit ?? 50;
    const onlyChildren = await this.access.visibleChildIds(actor);
    const unfiltered =
      !query.kind && !query.managed_user_id && !query.system_id && !query.unacknowledged && !query.before;
    if (onlyChildren === null && unfiltered) {
      const household = actor.householdId;
      return this.cachedNewest.load(`${household}\u0000${limit}`, async () => {
        const page = await this.readPage({ householdId: household, limit, onlyChildren });
        return { value: page, tags: this.newestTags(household, page.items) };
      });
    }
    return this.readPage({
      householdId: actor.householdId,
      kind: query.kind,
      managedUserId: query.managed_user_id,
      systemId: query.system_id,
      unacknowledged: query.unacknowledged,
      onlyChildren,
      before: query.before ? decodeCursor(query.before) : undefined,
      limit,
    });
  }

  /** The tags of a cached page: the household's alerts, and the names it shows. */
  private newestTags(householdId: string, items: AlertView[]): string[] {
    const devices = new Set(items.flatMap((i) => (i.system_id ? [cacheTags.device(i.system_id)] : [])));
    return [
      cacheTags.alerts(householdId),
      cacheTags.allAlerts(),
      cacheTags.children(householdId),
      ...devices,
    ];
  }

  private async readPage(filter: AlertFilter) {
    const limit = filter.limit;
    const rows = await this.alerts.list({ ...filter, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(alertView),
      next_cursor: rows.length > limit && last ? encodeCursor(last) : null,
    };
  }

  async acknowledge(actor: SessionAuth, id: string): Promise<AlertView> {
    if (!(await this.access.checkAlerts(actor, [id])).has(id)) throw notFound('The alert');
    await this.alerts.acknowledge(id, nowIso());
    await this.forget(actor.householdId);
    const updated = await this.alerts.get(actor.householdId, id);
    if (!updated) throw notFound('The alert');
    return alertView(updated);
  }

  async unreadCount(actor: SessionAuth): Promise<number> {
    const onlyChildren = await this.access.visibleChildIds(actor);
    const household = actor.householdId;
    if (onlyChildren !== null) return this.alerts.countUnread(household, onlyChildren);
    return this.cachedUnread.load(household, async () => ({
      value: await this.alerts.countUnread(household, null),
      tags: [cacheTags.alerts(household), cacheTags.allAlerts()],
    }));
  }

  async prune(actor: SessionAuth, olderThanDays: number): Promise<{ deleted: number }> {
    const cutoff = new Date(Date.now() - olderThanDays * DAY_MS).toISOString();
    const deleted = await this.alerts.pruneHousehold(actor.householdId, cutoff);
    if (deleted) await this.forget(actor.householdId);
    return { deleted };
  }

  /** Worker task: every household's alerts past the retention age. */
  async pruneOlderThan(days: number): Promise<number> {
    const deleted = await this.alerts.pruneAll(new Date(Date.now() - days * DAY_MS).toISOString());
    if (deleted) await this.cache.invalidate(cacheTags.allAlerts());
    return deleted;
  }
}
