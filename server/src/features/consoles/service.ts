import {
  addDays,
  CONSOLE_STALE_MS,
  CONSOLE_SYNC_MS,
  type ConsoleAccountStatusView,
  type ConsoleAuthenticateBody,
  type ConsoleAuthenticateView,
  type ConsoleDevicesView,
  type ConsoleImportBody,
  type ConsoleSyncView,
  type ConsoleView,
  type DeviceView,
  localDate,
} from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { PolicySyncRepository } from '../../agent-channel/policy-sync.js';
import type { SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { newId, type SecretBox, sha256Hex } from '../../platform/crypto.js';
import { conflict, HttpError, invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import { cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessService } from '../access/service.js';
import type { DeviceService } from '../devices/service.js';
import type { TimeService } from '../time/service.js';
import type { UsageRepository } from '../usage/repository.js';
import {
  type BearerToken,
  type ConsoleProvider,
  type ConsoleRef,
  type LinkSecrets,
  ProviderError,
  type ProviderName,
  type ProviderSession,
} from './providers/types.js';
import type { ConsoleLinkRow, ConsoleRepository, ConsoleRow } from './repository.js';

/** A sign-in started by login-url may be finished for this long. */
const LOGIN_TTL_MS = 30 * 60 * 1000;
/** The longest a failing link waits between attempts. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** The first retry after a failure; doubled on each failure after it. */
const FIRST_RETRY_MS = 60 * 1000;
/** Links synced side by side in one worker run, and how many one run takes at most. */
const SYNC_PARALLEL = 16;
const SYNC_BATCH = 2000;
/** Playtime is pulled for today and the past 6 days. */
const PLAYTIME_DAYS = 7;

const VENDOR: Record<ProviderName, { product: string; company: string }> = {
  xbox: { product: 'Xbox', company: 'Microsoft' },
  nintendo: { product: 'Nintendo', company: 'Nintendo' },
};

/** The worker's (and the sync route's) outcome for one link. */
type LinkOutcome = ConsoleSyncView;

/** Errors that concern the whole link: the next console would fail the same way (or as slowly). */
const LINK_ERRORS = new Set(['link_expired', 'rate_limited', 'update_required', 'denied', 'transient']);
/** One worker run starts no new link after this long; the rest stay due for the next run. */
const SYNC_BUDGET_MS = 20_000;

/**
 * Console accounts (DESIGN §13): linking a household's vendor family account, importing its consoles
 * as devices mapped to children, and the sync that pushes each child's week to the vendor and pulls
 * playtime into usage. Vendor credentials are kept sealed with HEARTH_SECRET_KEY and never leave.
 */
export class ConsoleService {
  /** Per instance: the vendor session of each link (its access token), with the secrets it was made from. */
  private readonly sessions = new Map<
    string,
    { sealed: string; timezone: string; session: ProviderSession }
  >();
  /** Per instance: one sync of a link at a time, and at most one waiting for it. */
  private readonly running = new Map<string, Promise<LinkOutcome>>();
  private readonly queued = new Map<string, Promise<LinkOutcome>>();
  /** Syncs started in the background (after an import); awaited on close. */
  private readonly background = new Set<Promise<unknown>>();

  constructor(
    private readonly repo: ConsoleRepository,
    private readonly providers: Record<ProviderName, ConsoleProvider>,
    private readonly box: SecretBox,
    private readonly access: AccessService,
    private readonly devices: DeviceService,
    private readonly time: TimeService,
    private readonly timeSync: PolicySyncRepository,
    private readonly usage: UsageRepository,
    private readonly events: EventPublisher,
    private readonly cache: ReadCache,
    private readonly log: FastifyBaseLogger,
  ) {}

  // ——— linking ———

  async loginUrl(actor: SessionAuth, provider: ProviderName) {
    const start = this.providers[provider].startLogin();
    await this.repo.insertLogin({
      state: start.state,
      household_id: actor.householdId,
      provider,
      verifier: start.verifier === null ? null : this.box.seal(start.verifier),
      created_at: nowIso(),
      created_by: actor.parentId,
      used_at: null,
    });
    return { url: start.url, state: start.state };
  }

  async authenticate(
    actor: SessionAuth,
    provider: ProviderName,
    body: ConsoleAuthenticateBody,
  ): Promise<ConsoleAuthenticateView> {
    const vendor = VENDOR[provider];
    const client = this.providers[provider];
    const redirect = this.call(provider, () => client.readRedirect(body.redirect_url));
    if (redirect.state && body.state && redirect.state !== body.state)
      throw invalidRequest(
        `This address belongs to another ${vendor.company} sign-in than the one you started here. Start again with "Open sign-in".`,
        [{ path: 'body/redirect_url', message: 'does not match the state' }],
      );
    const state = redirect.state ?? body.state ?? null;
    const since = new Date(Date.now() - LOGIN_TTL_MS).toISOString();
    const login = state
      ? await this.repo.login(actor.householdId, provider, state, since)
      : await this.repo.newestLogin(actor.householdId, provider, since);
    if (!login)
      throw invalidRequest(
        `No ${vendor.company} sign-in was started here in the last 30 minutes. Open the sign-in link again, then paste the new address.`,
        [{ path: 'body/redirect_url', message: 'matches no sign-in started here' }],
      );
    if (login.used_at || !(await this.repo.useLogin(login.state, nowIso())))
      throw invalidRequest(
        `This sign-in was already used. Open the ${vendor.company} sign-in again and paste the new address.`,
        [{ path: 'body/redirect_url', message: 'was already used' }],
      );
    const verifier = login.verifier === null ? null : this.box.open(login.verifier);
    const { secrets, warm } = await this.callAsync(provider, () => client.exchange(redirect.code, verifier));
    const at = nowIso();
    this.dropSession(actor.householdId, provider);
    const sealed = this.box.seal(JSON.stringify(secrets));
    await this.repo.saveLink({
      household_id: actor.householdId,
      provider,
      secrets: sealed,
      account_name: secrets.account_name,
      linked_at: at,
      linked_by: actor.parentId,
      status: 'ok',
      last_error: null,
      last_sync_at: null,
      last_attempt_at: null,
      failures: 0,
      next_sync_at: at,
    });
    // The first session uses the bearer token the exchange got: no token call right after linking.
    this.openSession(actor.householdId, provider, sealed, secrets, actor.householdTimezone, warm);
    this.log.info({ household_id: actor.householdId, provider }, 'console account linked');
    // Consoles already imported (a link made again after it expired) sync at once.
    this.inBackground(this.syncLink(actor.householdId, provider));
    return { linked: true, account_name: secrets.account_name };
  }

  async accountStatus(
    actor: SessionAuth,
    provider: ProviderName,
    validate: boolean,
  ): Promise<ConsoleAccountStatusView> {
    const link = await this.repo.link(actor.householdId, provider);
    if (!link)
      return {
        linked: false,
        last_sync_at: null,
        account_name: null,
        status: null,
        error: null,
        stale: false,
        consoles: [],
      };
    let valid: boolean | undefined;
    let current = link;
    if (validate) {
      if (link.status === 'expired') valid = false;
      else {
        try {
          await this.withSession(link, actor.householdTimezone, (session) => session.validate());
          valid = true;
        } catch (err) {
          if (!(err instanceof ProviderError) || err.kind !== 'link_expired')
            throw this.httpError(provider, err);
          await this.markExpired(link, err);
          valid = false;
        }
        current = (await this.repo.link(actor.householdId, provider)) ?? link;
      }
    }
    const visible = await this.access.visibleChildIds(actor);
    const consoles = (await this.repo.consolesOfLink(actor.householdId, provider))
      .filter((c) => c.device_status === 'approved')
      .filter((c) => !visible || visible.includes(c.managed_user_id))
      .map((c) => this.consoleView(c));
    return {
      linked: true,
      ...(valid === undefined ? {} : { valid }),
      last_sync_at: current.last_sync_at,
      account_name: current.account_name,
      status: current.status,
      error: current.status === 'ok' ? null : current.last_error,
      stale: isStale(current.last_sync_at),
      consoles,
    };
  }

  async devicesOf(actor: SessionAuth, provider: ProviderName): Promise<ConsoleDevicesView> {
    const link = await this.requireLink(actor.householdId, provider);
    const listing = await this.withSession(link, actor.householdTimezone, (s) => s.listConsoles()).catch(
      (err) => this.failed(link, err),
    );
    const imported = await this.repo.playerChildren(actor.householdId, provider);
    const byConsole = new Map(imported.map((c) => [c.console_id, c.system_id]));
    const byPlayer = new Map(imported.map((c) => [c.player_id, c.managed_user_id]));
    return {
      consoles: listing.consoles.map((c) => ({
        id: c.id,
        name: c.name,
        imported_system_id: byConsole.get(c.id) ?? null,
      })),
      players: listing.players.map((p) => ({
        id: p.id,
        name: p.name,
        console_id: p.console_id,
        managed_user_id: byPlayer.get(p.id) ?? null,
      })),
    };
  }

  async importDevice(
    actor: SessionAuth,
    provider: ProviderName,
    body: ConsoleImportBody,
  ): Promise<DeviceView> {
    const vendor = VENDOR[provider];
    await this.access.requireChild(actor, body.managed_user_id, 'manage');
    const link = await this.requireLink(actor.householdId, provider);
    const imported = await this.repo.playerChildren(actor.householdId, provider);
    if (imported.some((c) => c.console_id === body.console_id))
      throw conflict(`This ${vendor.product} console is already in Hearth.`);
    const owner = imported.find((c) => c.player_id === body.player_id);
    if (owner && owner.managed_user_id !== body.managed_user_id)
      throw conflict('This player already belongs to another child in Hearth; one player is one child.');
    const listing = await this.withSession(link, actor.householdTimezone, (s) => s.listConsoles()).catch(
      (err) => this.failed(link, err),
    );
    const console = listing.consoles.find((c) => c.id === body.console_id);
    if (!console) throw notFound(`The console (not in the linked ${vendor.company} account)`);
    const player = listing.players.find((p) => p.id === body.player_id);
    if (!player) throw notFound(`The player (not in the linked ${vendor.company} account)`);
    if (player.console_id !== null && player.console_id !== console.id)
      throw invalidRequest(`${player.name} plays on another console than ${console.name}.`, [
        { path: 'body/player_id', message: 'is a profile of another console' },
      ]);
    const at = nowIso();
    const systemId = newId();
    const label = body.label.trim();
    try {
      await this.repo.importConsole(
        {
          system_id: systemId,
          household_id: actor.householdId,
          hostname: label,
          display_name: label,
          platform: provider,
          status: 'approved',
          agent_version: null,
          linux_users: JSON.stringify([{ username: player.id, display_name: player.name }]),
          secure_token_hash: null,
          last_seen_at: null,
          created_at: at,
          updated_at: at,
          decided_at: at,
        },
        {
          id: newId(),
          household_id: actor.householdId,
          managed_user_id: body.managed_user_id,
          system_id: systemId,
          linux_username: player.id,
          created_at: at,
        },
        {
          system_id: systemId,
          household_id: actor.householdId,
          provider,
          console_id: console.id,
          console_name: console.name,
          player_id: player.id,
          player_name: player.name,
          managed_user_id: body.managed_user_id,
          imported_at: at,
          last_sync_at: null,
          last_error: null,
          notes: '[]',
          pushed_digest: null,
        },
      );
    } catch (err) {
      // A concurrent import won the console's unique slot.
      if (
        (await this.repo.playerChildren(actor.householdId, provider)).some((c) => c.console_id === console.id)
      )
        throw conflict(`This ${vendor.product} console is already in Hearth.`);
      throw err;
    }
    await this.cache.invalidate(cacheTags.children(actor.householdId), cacheTags.device(systemId));
    this.events.publish(actor.householdId, 'device_status', { system_id: systemId, status: 'approved' });
    // The console hears the child's week and its playtime arrives without waiting for the worker.
    this.inBackground(this.syncLink(actor.householdId, provider));
    return this.devices.get(actor, systemId);
  }

  async unlink(actor: SessionAuth, provider: ProviderName) {
    await this.running.get(linkKey(actor.householdId, provider))?.catch(() => {});
    const ids = await this.repo.unlink(actor.householdId, provider, nowIso());
    this.dropSession(actor.householdId, provider);
    await this.cache.invalidate(
      cacheTags.children(actor.householdId),
      ...ids.map((id) => cacheTags.device(id)),
    );
    for (const id of ids)
      this.events.publish(actor.householdId, 'device_status', { system_id: id, status: 'unenrolled' });
    this.log.info(
      { household_id: actor.householdId, provider, consoles: ids.length },
      'console account unlinked',
    );
    return { linked: false };
  }

  async syncNow(actor: SessionAuth, provider: ProviderName): Promise<ConsoleSyncView> {
    const link = await this.requireLink(actor.householdId, provider);
    if (link.status === 'expired')
      return { synced: 0, errors: [link.last_error ?? expiredMessage(provider)] };
    const { synced, errors } = await this.syncLink(actor.householdId, provider);
    return { synced, errors };
  }

  // ——— what other features read ———

  /** The sync details of a child's consoles, by device (DESIGN §10's sync status lists consoles too). */
  async detailsOfChild(managedUserId: string) {
    const rows = await this.repo.consolesOfChild(managedUserId);
    return new Map(
      rows.map((c) => [
        c.system_id,
        {
          last_sync_at: c.last_sync_at,
          stale: isStale(c.last_sync_at),
          notes: parseNotes(c.notes),
          error: c.last_error,
        },
      ]),
    );
  }

  /** A child's week changed: the links holding the child's consoles sync at the worker's next run. */
  async weekChanged(managedUserId: string): Promise<void> {
    await this.repo.makeDueForChild(managedUserId, nowIso());
  }

  // ——— the sync ———

  /**
   * The worker's task: syncs every link that is due, SYNC_PARALLEL side by side. A failing vendor
   * only moves its own links' next attempt; the rest go on.
   */
  async syncDue(now = Date.now()): Promise<string> {
    const due = await this.repo.dueLinks(new Date(now).toISOString(), SYNC_BATCH);
    let synced = 0;
    let failed = 0;
    let next = 0;
    const started = Date.now();
    const worker = async () => {
      while (next < due.length && Date.now() - started < SYNC_BUDGET_MS) {
        const link = due[next++];
        if (!link) break;
        const outcome = await this.syncLink(link.household_id, link.provider).catch((err) => {
          this.log.error({ err, household_id: link.household_id }, 'console sync failed');
          return { synced: 0, errors: ['failed'] };
        });
        synced += outcome.synced;
        if (outcome.errors.length) failed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(SYNC_PARALLEL, due.length) }, worker));
    const left = due.length - next;
    return `synced ${next} console accounts (${synced} consoles); ${failed} with errors${left > 0 ? `; ${left} left for the next run` : ''}`;
  }

  /**
   * Syncs one link now. While a sync of it runs, one more follows it (all callers meanwhile share that
   * one): the running sync read the consoles before, say, the one just imported.
   */
  syncLink(householdId: string, provider: ProviderName): Promise<LinkOutcome> {
    const key = linkKey(householdId, provider);
    const running = this.running.get(key);
    if (running) {
      const queued = this.queued.get(key);
      if (queued) return queued;
      const next = running
        .catch(() => undefined)
        .then(() => {
          this.queued.delete(key);
          return this.syncLink(householdId, provider);
        });
      this.queued.set(key, next);
      return next;
    }
    const run = this.runSync(householdId, provider).finally(() => this.running.delete(key));
    this.running.set(key, run);
    return run;
  }

  private async runSync(householdId: string, provider: ProviderName): Promise<LinkOutcome> {
    const outcome: LinkOutcome = { synced: 0, errors: [] };
    const link = await this.repo.link(householdId, provider);
    if (!link || link.status === 'expired') return outcome;
    const consoles = (await this.repo.consolesOfLink(householdId, provider)).filter(
      (c) => c.device_status === 'approved',
    );
    const timezone = await this.repo.timezoneOf(householdId);
    const startedAt = nowIso();
    let linkError: ProviderError | null = null;
    for (const c of consoles) {
      try {
        await this.withSession(link, timezone, (session) => this.syncConsole(session, c, timezone));
        outcome.synced++;
        this.events.publish(householdId, 'console_synced', {
          system_id: c.system_id,
          platform: provider,
          ok: true,
        });
      } catch (err) {
        const message = this.describe(provider, err);
        outcome.errors.push(`${c.display_name ?? c.console_name}: ${message}`);
        await this.repo.updateConsole(c.system_id, { last_error: message });
        this.events.publish(householdId, 'console_synced', {
          system_id: c.system_id,
          platform: provider,
          ok: false,
        });
        if (err instanceof ProviderError && LINK_ERRORS.has(err.kind)) {
          linkError = err;
          break;
        }
        if (!(err instanceof ProviderError))
          this.log.error({ err, system_id: c.system_id }, 'console sync failed');
        linkError ??= err instanceof ProviderError ? err : new ProviderError('transient', message);
      }
    }
    // A link without consoles still proves its credentials now and then (an expired one shows as such).
    if (!consoles.length) {
      try {
        await this.withSession(link, timezone, (s) => s.validate());
      } catch (err) {
        if (err instanceof ProviderError) linkError = err;
        else throw err;
        outcome.errors.push(this.describe(provider, err));
      }
    }
    if (linkError?.kind === 'link_expired') {
      await this.markExpired(link, linkError);
    } else if (linkError) {
      const failures = link.failures + 1;
      const wait = Math.max(
        linkError.options.retryAfterMs ?? 0,
        Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), MAX_BACKOFF_MS),
      );
      await this.repo.updateLink(householdId, provider, {
        status: 'failing',
        failures,
        last_error: this.describe(provider, linkError),
        last_attempt_at: startedAt,
        ...(outcome.synced ? { last_sync_at: startedAt } : {}),
        next_sync_at: new Date(Date.now() + wait).toISOString(),
      });
    } else {
      await this.repo.updateLink(householdId, provider, {
        status: 'ok',
        failures: 0,
        last_error: null,
        last_attempt_at: startedAt,
        last_sync_at: startedAt,
        next_sync_at: new Date(Date.now() + CONSOLE_SYNC_MS).toISOString(),
      });
    }
    return outcome;
  }

  /**
   * One console: the child's week written when the vendor's form of it changed (a digest of the
   * plan; equal means no call), then the playtime of today and the past 6 days into usage, only the
   * days that grew.
   */
  private async syncConsole(session: ProviderSession, c: ConsoleRow, timezone: string): Promise<void> {
    const ref: ConsoleRef = { console_id: c.console_id, player_id: c.player_id };
    const week = await this.time.consoleWeek(c.managed_user_id);
    const plan = this.providers[c.provider].planLimits({
      days: week.days,
      today: week.today,
      today_extra_minutes: week.today_extra_minutes,
    });
    // Stored as "<version>:<digest>": the digest decides whether to write, the version whether the
    // sync row must say the console holds a newer version.
    const digest = sha256Hex(JSON.stringify(plan.payload));
    const [pushedVersion, pushedDigest] = splitPushed(c.pushed_digest);
    if (c.mapping_id && digest !== pushedDigest) {
      await this.timeSync.recordPush({
        mapping_id: c.mapping_id,
        managed_user_id: c.managed_user_id,
        system_id: c.system_id,
        version: week.version,
        status: 'pending',
        applied_version: null,
        last_attempt_at: nowIso(),
        error: null,
      });
      try {
        await session.pushLimits(ref, plan);
      } catch (err) {
        await this.timeSync.recordAnswer(c.mapping_id, week.version, {
          status: 'failed',
          applied_version: null,
          error: this.describe(c.provider, err),
          at: nowIso(),
        });
        throw err;
      }
      await this.timeSync.recordAnswer(c.mapping_id, week.version, {
        status: 'synced',
        applied_version: week.version,
        error: null,
        at: nowIso(),
      });
    } else if (c.mapping_id && pushedVersion !== week.version) {
      // The version rose without changing what the console holds (another day's adjustment, say):
      // the console holds this version too, and no call says so.
      const at = nowIso();
      await this.timeSync.recordPush({
        mapping_id: c.mapping_id,
        managed_user_id: c.managed_user_id,
        system_id: c.system_id,
        version: week.version,
        status: 'synced',
        applied_version: null,
        last_attempt_at: at,
        error: null,
      });
      await this.timeSync.recordAnswer(c.mapping_id, week.version, {
        status: 'synced',
        applied_version: week.version,
        error: null,
        at,
      });
    }
    const today = localDate(Date.now(), timezone);
    const dates = Array.from({ length: PLAYTIME_DAYS }, (_, i) => addDays(today, i - (PLAYTIME_DAYS - 1)));
    const played = await session.playtime(ref, dates);
    const stored = await this.repo.usageSince(c.system_id, c.player_id, dates[0] ?? today);
    let todayGrew = false;
    const at = nowIso();
    for (const day of played) {
      if (!dates.includes(day.date)) continue;
      const seconds = Math.max(0, Math.round(day.seconds));
      if (seconds <= (stored.get(day.date) ?? 0)) continue;
      await this.usage.recordUsage(c.system_id, c.player_id, day.date, seconds, [], at);
      if (day.date === today) todayGrew = true;
    }
    await this.repo.updateConsole(c.system_id, {
      last_sync_at: at,
      last_error: null,
      notes: JSON.stringify(plan.notes),
      pushed_digest: `${week.version}:${digest}`,
    });
    if (todayGrew) await this.time.consoleUsageGrew(c.managed_user_id, c.system_id);
  }

  // ——— sessions and errors ———

  /**
   * Runs `work` with the link's vendor session. A refused refresh token is looked at once more: when
   * another sync (another instance) rotated it meanwhile, the work is tried again with the new one.
   */
  private async withSession<T>(
    link: ConsoleLinkRow,
    timezone: string,
    work: (s: ProviderSession) => Promise<T>,
  ): Promise<T> {
    try {
      return await work(this.sessionOf(link, timezone));
    } catch (err) {
      if (!(err instanceof ProviderError) || err.kind !== 'link_expired') throw err;
      const fresh = await this.repo.link(link.household_id, link.provider);
      const current = this.sessions.get(linkKey(link.household_id, link.provider));
      if (!fresh || fresh.secrets === link.secrets || fresh.secrets === current?.sealed) throw err;
      this.dropSession(link.household_id, link.provider);
      return work(this.sessionOf(fresh, timezone));
    }
  }

  private sessionOf(link: ConsoleLinkRow, timezone: string): ProviderSession {
    const key = linkKey(link.household_id, link.provider);
    const kept = this.sessions.get(key);
    if (kept && kept.timezone === timezone) return kept.session;
    const plain = this.box.open(link.secrets);
    if (!plain)
      throw new ProviderError(
        'link_expired',
        "The stored credentials cannot be read with this server's HEARTH_SECRET_KEY; link the account again.",
      );
    return this.openSession(
      link.household_id,
      link.provider,
      link.secrets,
      JSON.parse(plain) as LinkSecrets,
      timezone,
    );
  }

  /** A session over the stored (`sealed`) secrets, kept for the link's next calls. */
  private openSession(
    householdId: string,
    provider: ProviderName,
    sealed: string,
    secrets: LinkSecrets,
    timezone: string,
    warm?: BearerToken,
  ): ProviderSession {
    const entry = { sealed, timezone, session: null as unknown as ProviderSession };
    entry.session = this.providers[provider].session(
      secrets,
      async (next) => {
        // The vendor rotated the refresh token: it is stored before it is used.
        const resealed = this.box.seal(JSON.stringify(next));
        await this.repo.replaceSecrets(householdId, provider, entry.sealed, resealed);
        entry.sealed = resealed;
      },
      timezone,
      warm,
    );
    this.sessions.set(linkKey(householdId, provider), entry);
    return entry.session;
  }

  private dropSession(householdId: string, provider: ProviderName): void {
    this.sessions.delete(linkKey(householdId, provider));
  }

  private async markExpired(link: ConsoleLinkRow, err: ProviderError): Promise<void> {
    this.dropSession(link.household_id, link.provider);
    await this.repo.updateLink(link.household_id, link.provider, {
      status: 'expired',
      last_error: this.describe(link.provider, err),
      last_attempt_at: nowIso(),
    });
  }

  /** A vendor failure during a parent's request: the link's state follows, the answer is a 4xx/502. */
  private async failed(link: ConsoleLinkRow, err: unknown): Promise<never> {
    if (err instanceof ProviderError && err.kind === 'link_expired') await this.markExpired(link, err);
    throw this.httpError(link.provider, err);
  }

  private call<T>(provider: ProviderName, work: () => T): T {
    try {
      return work();
    } catch (err) {
      throw this.httpError(provider, err);
    }
  }

  private async callAsync<T>(provider: ProviderName, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw this.httpError(provider, err);
    }
  }

  /** A parent-readable sentence for a failure (never a token: the clients' messages carry none). */
  private describe(provider: ProviderName, err: unknown): string {
    if (err instanceof ProviderError) {
      if (err.kind === 'link_expired') return expiredMessage(provider);
      return err.message;
    }
    return `Hearth could not finish the ${VENDOR[provider].product} sync; it will try again.`;
  }

  private httpError(provider: ProviderName, err: unknown): HttpError {
    if (err instanceof HttpError) return err;
    if (!(err instanceof ProviderError)) {
      this.log.error({ err, provider }, 'console provider call failed');
      return new HttpError(502, 'upstream_failed', this.describe(provider, err));
    }
    switch (err.kind) {
      case 'bad_redirect':
        return invalidRequest(err.message, [{ path: 'body/redirect_url', message: err.message }]);
      case 'code_refused':
        return invalidRequest(err.message, [{ path: 'body/redirect_url', message: 'was refused' }]);
      default:
        return new HttpError(502, 'upstream_failed', this.describe(provider, err));
    }
  }

  private async requireLink(householdId: string, provider: ProviderName): Promise<ConsoleLinkRow> {
    const link = await this.repo.link(householdId, provider);
    if (!link) throw conflict(`No ${VENDOR[provider].company} account is linked yet: link one first.`);
    return link;
  }

  private consoleView(c: ConsoleRow): ConsoleView {
    return {
      system_id: c.system_id,
      console_id: c.console_id,
      name: c.display_name ?? c.console_name,
      player_id: c.player_id,
      player_name: c.player_name,
      managed_user_id: c.managed_user_id,
      last_sync_at: c.last_sync_at,
      stale: isStale(c.last_sync_at),
      error: c.last_error,
      notes: parseNotes(c.notes),
    };
  }

  private inBackground(work: Promise<unknown>): void {
    const tracked = work
      .catch((err) => this.log.warn({ err }, 'background console sync failed'))
      .finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  /** Waits for the syncs started in the background (and any running now). */
  async idle(): Promise<void> {
    await Promise.all(
      [...this.background, ...this.running.values(), ...this.queued.values()].map((p) => p.catch(() => {})),
    );
  }

  /** Forgets sign-ins nobody finished (the worker's housekeeping). */
  async pruneLogins(): Promise<number> {
    return this.repo.pruneLogins(new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString());
  }
}

const linkKey = (householdId: string, provider: ProviderName) => `${householdId}\u0000${provider}`;

export const isStale = (lastSyncAt: string | null, now = Date.now()): boolean =>
  lastSyncAt === null || now - Date.parse(lastSyncAt) > CONSOLE_STALE_MS;

function splitPushed(text: string | null): [number | null, string | null] {
  if (!text) return [null, null];
  const at = text.indexOf(':');
  return [Number(text.slice(0, at)), text.slice(at + 1)];
}

function parseNotes(text: string): string[] {
  try {
    const notes = JSON.parse(text) as unknown;
    return Array.isArray(notes) ? notes.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

function expiredMessage(provider: ProviderName): string {
  const v = VENDOR[provider];
  return `The link to the ${v.company} account has expired or was withdrawn at ${v.company}; link the ${v.product} account again.`;
}
