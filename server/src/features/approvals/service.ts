import type {
  AgentApprovalRequestBody,
  ApprovalView,
  ApproveBody,
  GrantView,
  LogLoginBody,
  OnlineAccountQuery,
  OnlineAccountView,
  RegistrationCheckView,
  RegistrationRequestBody,
} from '@hearth/protocol';
import { type BearerDevice, isAdmin, type SessionAuth } from '../../platform/access.js';
import { creationIso, nowIso, utcDay } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { ApprovalRequestTable } from '../../platform/db/schema.js';
import { domainAndParents, normalizeDomain } from '../../platform/domain.js';
import { conflict, invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { UserService } from '../users/service.js';
import { ApprovalRepository } from './repository.js';

const ONCE_GRANT_MS = 24 * 60 * 60 * 1000;
/** SPEC "Platform availability": the extension with the Linux or Windows agent; not Android, not consoles. */
const SIGNUP_PLATFORMS = new Set(['linux', 'windows']);
/** SPEC "Versioning": sign-up approvals need agents at 0.57.0 or later. */
const SIGNUP_MIN_VERSION = '0.57.0';

export function versionAtLeast(version: string | null | undefined, minimum: string): boolean {
  if (!version) return false;
  const parse = (v: string) =>
    v
      .replace(/^v/, '')
      .split(/[.+-]/)
      .slice(0, 3)
      .map((n) => Number.parseInt(n, 10) || 0);
  const [a, b] = [parse(version), parse(minimum)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

export function signupSupported(platform: string, agentVersion: string | null): boolean {
  return SIGNUP_PLATFORMS.has(platform) && versionAtLeast(agentVersion, SIGNUP_MIN_VERSION);
}

function domainOrFail(input: string, path = 'domain'): string {
  const domain = normalizeDomain(input);
  if (!domain)
    throw invalidRequest(`"${input.slice(0, 80)}" is not a valid domain.`, [
      { path: `body/${path}`, message: 'is not a hostname' },
    ]);
  return domain;
}

function requireAccount(device: BearerDevice, linuxUsername: string): void {
  if (!device.linuxUsers.includes(linuxUsername)) {
    throw invalidRequest(`The account "${linuxUsername}" is not one this device reported.`, [
      { path: 'linux_username', message: 'is not an account of this device' },
    ]);
  }
}

/** What the registration check needs to know about one account of one device, cached between changes. */
interface SignupFacts {
  mapping: { id: string; managed_user_id: string } | null;
  /** Mapped, the toggle on, and a platform and agent version the feature covers. */
  enforced: boolean;
  /** The pending sign-up request of each domain. */
  pending: ReadonlyMap<string, string>;
  /** Grants by domain: persistent ones never end; a one-time grant until used or expired (ms). */
  grants: readonly { domain: string; persistent: boolean; usable: boolean; expiresAt: number }[];
}

type RequestRow = NonNullable<Awaited<ReturnType<ApprovalRepository['getRequest']>>>;

function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export function approvalView(row: RequestRow): ApprovalView {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    managed_user_id: row.managed_user_id,
    managed_user_name: row.managed_user_name ?? null,
    mapping_id: row.mapping_id,
    system_id: row.system_id,
    linux_username: row.linux_username,
    domain: row.domain,
    url: row.url,
    details: parseObject(row.details),
    requested_at: row.requested_at,
    decided_at: row.decided_at,
    decided_by: row.decided_by,
    grant: row.grant,
  };
}

/** Sign-up approvals (SPEC "States and transitions"), the other approval requests, grants and the online account audit. */
export class ApprovalService {
  private readonly repo: ApprovalRepository;
  // The registration check runs on every sign-up-looking page: its facts come from the cache, or
  // from three prepared reads that are then kept until a change to the mapping or device.
  private readonly mappingOfAccount: Prepared<
    'system' | 'account',
    { id: string; managed_user_id: string; enforce_signup_approvals: number | undefined }
  >;
  private readonly pendingOfMapping: Prepared<
    'mapping' | 'type' | 'status',
    { id: string; domain: string | null }
  >;
  private readonly grantsOfMapping: Prepared<
    'mapping' | 'type',
    { domain: string | null; kind: string; expires_at: string | null; consumed_at: string | null }
  >;
  private readonly cachedFacts: CacheSpace<SignupFacts>;

  constructor(
    database: Db,
    private readonly users: UserService,
    private readonly events: EventPublisher,
    private readonly cache: ReadCache,
  ) {
    this.repo = new ApprovalRepository(database.kysely);
    this.cachedFacts = cache.space('signup');
    this.mappingOfAccount = new Prepared(database, (k, p) =>
      k
        .selectFrom('device_mapping')
        .select(['id', 'managed_user_id', 'enforce_signup_approvals'])
        .where('system_id', '=', p('system'))
        .where('linux_username', '=', p('account')),
    );
    this.pendingOfMapping = new Prepared(database, (k, p) =>
      k
        .selectFrom('approval_request')
        .select(['id', 'domain'])
        .where('mapping_id', '=', p('mapping'))
        .where('type', '=', p('type') as 'site_signup')
        .where('status', '=', p('status') as 'pending'),
    );
    this.grantsOfMapping = new Prepared(database, (k, p) =>
      k
        .selectFrom('approval_grant')
        .select(['domain', 'kind', 'expires_at', 'consumed_at'])
        .where('mapping_id', '=', p('mapping'))
        .where('type', '=', p('type') as 'site_signup'),
    );
  }

  /** The registration check of SPEC "Registration check outcomes". */
  async check(
    device: BearerDevice,
    domainInput: string,
    linuxUsername: string,
  ): Promise<RegistrationCheckView> {
    const domain = domainOrFail(domainInput);
    requireAccount(device, linuxUsername);
    const state = await this.signupState(device, linuxUsername, domain);
    return { allowed: state.allowed, pending: state.pendingId !== null, domain };
  }

  /** Kept under the device's tag too, so a new agent version or platform is seen at once. */
  private signupFacts(device: BearerDevice, linuxUsername: string): Promise<SignupFacts> {
    const systemId = device.systemId;
    return this.cachedFacts.load(`${systemId}|${linuxUsername}`, async () => {
      const row = await this.mappingOfAccount.first({ system: systemId, account: linuxUsername });
      if (!row) {
        const value = { mapping: null, enforced: false, pending: new Map(), grants: [] };
        return { value, tags: [cacheTags.device(systemId)] };
      }
      const [pending, grants] = await Promise.all([
        this.pendingOfMapping.all({ mapping: row.id, type: 'site_signup', status: 'pending' }),
        this.grantsOfMapping.all({ mapping: row.id, type: 'site_signup' }),
      ]);
      const value: SignupFacts = {
        mapping: { id: row.id, managed_user_id: row.managed_user_id },
        enforced:
          Number(row.enforce_signup_approvals) === 1 && signupSupported(device.platform, device.agentVersion),
        pending: new Map(pending.flatMap((r) => (r.domain ? [[r.domain, r.id] as const] : []))),
        grants: grants.flatMap((g) =>
          g.domain
            ? [
                {
                  domain: g.domain,
                  persistent: g.kind === 'persistent',
                  usable: !g.consumed_at,
                  expiresAt: g.expires_at ? Date.parse(g.expires_at) : Number.POSITIVE_INFINITY,
                },
              ]
            : [],
        ),
      };
      return { value, tags: [cacheTags.device(systemId), cacheTags.mapping(row.id)] };
    });
  }

  private async signupState(device: BearerDevice, linuxUsername: string, domain: string) {
    const { mapping, enforced, pending, grants } = await this.signupFacts(device, linuxUsername);
    // Not enforced: an account of no child, a platform or agent the feature does not cover, or the toggle off.
    if (!enforced) return { allowed: true, pendingId: null, mapping };
    const now = Date.now();
    const covering = grants.length ? domainAndParents(domain) : [];
    const live = grants.some(
      (g) => covering.includes(g.domain) && (g.persistent || (g.usable && g.expiresAt > now)),
    );
    if (live) return { allowed: true, pendingId: null, mapping };
    return { allowed: false, pendingId: pending.get(domain) ?? null, mapping };
  }

  /** Drops the cached sign-up facts of a mapping after a change to its settings, requests or grants. */
  private forgetMapping(mappingId: string | null | undefined): Promise<void> {
    return mappingId ? this.cache.invalidate(cacheTags.mapping(mappingId)) : Promise.resolve();
  }

  async requestSignup(
    device: BearerDevice,
    body: RegistrationRequestBody,
  ): Promise<{ created: boolean; view: { id?: string; status: string } }> {
    const domain = domainOrFail(body.domain);
    requireAccount(device, body.linux_username);
    if (body.url !== undefined && !/^https?:\/\//i.test(body.url)) {
      throw invalidRequest('url must be an http(s) address.', [
        { path: 'body/url', message: 'must be http or https' },
      ]);
    }
    const state = await this.signupState(device, body.linux_username, domain);
    if (state.allowed) return { created: false, view: { status: 'approved' } };
    if (state.pendingId) return { created: false, view: { id: state.pendingId, status: 'pending' } };
    const mapping = state.mapping;
    if (!mapping) return { created: false, view: { status: 'approved' } };
    const row: ApprovalRequestTable = {
      id: newId(),
      household_id: device.householdId,
      type: 'site_signup',
      status: 'pending',
      mapping_id: mapping.id,
      managed_user_id: mapping.managed_user_id,
      system_id: device.systemId,
      linux_username: body.linux_username,
      domain,
      url: body.url ?? null,
      details: '{}',
      requested_at: creationIso(),
      decided_at: null,
      decided_by: null,
      grant: null,
    };
    try {
      await this.repo.insertRequest(row);
    } catch (err) {
      // Two requests at once: the database kept one pending request; answer with it.
      const existing = await this.repo.pendingRequest(mapping.id, 'site_signup', domain);
      if (existing) return { created: false, view: { id: existing.id, status: 'pending' } };
      throw err;
    }
    await this.forgetMapping(mapping.id);
    await this.announce(device.householdId, row.id, 'approval_created');
    return { created: true, view: { id: row.id, status: 'pending' } };
  }

  /** Agents ask for more time, an app, or an unblocked domain. */
  async requestOther(device: BearerDevice, body: AgentApprovalRequestBody) {
    requireAccount(device, body.linux_username);
    const detailsText = JSON.stringify(body.details);
    if (detailsText.length > 8192) throw invalidRequest('details is too large (8 KB at most).');
    let domain: string | null = null;
    if (body.type === 'domain_unblock') {
      if (typeof body.details.domain !== 'string')
        throw invalidRequest('details.domain is required for domain_unblock.', [
          { path: 'body/details/domain', message: 'is required' },
        ]);
      domain = domainOrFail(body.details.domain, 'details/domain');
    }
    if (body.type === 'time_extension' && body.details.minutes !== undefined) {
      const m = body.details.minutes;
      if (!Number.isInteger(m) || (m as number) < 1 || (m as number) > 1440)
        throw invalidRequest('details.minutes must be a whole number from 1 to 1440.');
    }
    if (body.type === 'app_access' && typeof body.details.identifier !== 'string') {
      throw invalidRequest('details.identifier is required for app_access.', [
        { path: 'body/details/identifier', message: 'is required' },
      ]);
    }
    const mapping = await this.repo.mappingForAccount(device.systemId, body.linux_username);
    if (mapping && domain) {
      const pending = await this.repo.pendingRequest(mapping.id, body.type, domain);
      if (pending) return { created: false, view: { id: pending.id, status: 'pending' } };
    }
    const row: ApprovalRequestTable = {
      id: newId(),
      household_id: device.householdId,
      type: body.type,
      status: 'pending',
      mapping_id: mapping?.id ?? null,
      managed_user_id: mapping?.managed_user_id ?? null,
      system_id: device.systemId,
      linux_username: body.linux_username,
      domain,
      url: null,
      details: detailsText,
      requested_at: creationIso(),
      decided_at: null,
      decided_by: null,
      grant: null,
    };
    await this.repo.insertRequest(row);
    await this.forgetMapping(row.mapping_id);
    await this.announce(device.householdId, row.id, 'approval_created');
    return { created: true, view: { id: row.id, status: 'pending' } };
  }

  private async announce(householdId: string, id: string, kind: 'approval_created' | 'approval_decided') {
    const row = await this.repo.getRequest(householdId, id);
    if (row) this.events.publish(householdId, kind, approvalView(row));
  }

  async logLogin(device: BearerDevice, body: LogLoginBody): Promise<OnlineAccountView> {
    const domain = domainOrFail(body.domain);
    requireAccount(device, body.linux_username);
    const username = body.username.trim();
    if (!username)
      throw invalidRequest('username is empty.', [{ path: 'body/username', message: 'is empty' }]);
    const mapping = await this.repo.mappingForAccount(device.systemId, body.linux_username);
    const ownerKey = mapping?.managed_user_id ?? `device:${device.systemId}:${body.linux_username}`;
    const at = nowIso();
    await this.repo.upsertOnlineAccount({
      id: newId(),
      household_id: device.householdId,
      owner_key: ownerKey,
      managed_user_id: mapping?.managed_user_id ?? null,
      system_id: device.systemId,
      linux_username: body.linux_username,
      domain,
      username,
      first_detected_at: at,
      last_active_at: at,
    });
    // The first login after a one-time approval uses the approval up.
    if (mapping) {
      await this.repo.consumeOnceGrants(mapping.id, domainAndParents(domain), at);
      await this.forgetMapping(mapping.id);
    }
    const row = await this.repo.getOnlineAccount(device.householdId, ownerKey, domain, username);
    if (!row) throw new Error('online account vanished after upsert');
    return { ...row, managed_user_name: row.managed_user_name ?? null };
  }

  private async visibleChildren(actor: SessionAuth): Promise<string[] | undefined> {
    return isAdmin(actor.role) ? undefined : this.users.viewableIds(actor);
  }

  async list(
    actor: SessionAuth,
    query: { status?: string; type?: string; managed_user_id?: string },
  ): Promise<ApprovalView[]> {
    const rows = await this.repo.listRequests({
      householdId: actor.householdId,
      status: query.status,
      type: query.type,
      managedUserId: query.managed_user_id,
      onlyChildren: await this.visibleChildren(actor),
    });
    return rows.map(approvalView);
  }

  countPending(actor: SessionAuth): Promise<number> {
    return this.visibleChildren(actor).then((only) => this.repo.countPending(actor.householdId, only));
  }

  /** A request the parent may decide: their child's with can_manage_policies, or any as owner/admin. */
  private async requireRequest(actor: SessionAuth, id: string): Promise<RequestRow> {
    const row = await this.repo.getRequest(actor.householdId, id);
    if (!row) throw notFound('The request');
    if (isAdmin(actor.role)) return row;
    if (!row.managed_user_id) throw notFound('The request');
    await this.users.requireChild(actor, row.managed_user_id, 'manage');
    return row;
  }

  async approve(actor: SessionAuth, id: string, body: ApproveBody): Promise<ApprovalView> {
    const row = await this.requireRequest(actor, id);
    if (row.status !== 'pending') throw conflict(`This request was already ${row.status}.`);
    const at = nowIso();
    const kind = body.grant ?? 'once';
    const details = parseObject(row.details);
    if (row.type === 'time_extension') {
      const minutes =
        body.minutes ?? (Number.isInteger(details.minutes) ? (details.minutes as number) : undefined);
      if (!minutes)
        throw invalidRequest('Say how many minutes to add: minutes is required for a time extension.', [
          { path: 'body/minutes', message: 'is required' },
        ]);
      if (!row.managed_user_id)
        throw conflict('This account is not mapped to a child, so there is no allowance to extend.');
      if (
        !(await this.repo.decide(id, {
          status: 'approved',
          decided_at: at,
          decided_by: actor.parentId,
          grant: null,
        }))
      )
        throw conflict('This request was decided meanwhile.');
      await this.repo.insertAdjustment({
        id: newId(),
        managed_user_id: row.managed_user_id,
        date: utcDay(),
        seconds: minutes * 60,
        source_request_id: id,
        created_at: at,
      });
    } else {
      if (!row.mapping_id)
        throw conflict('This account is not mapped to a child, so nothing can be allowed for it.');
      if (
        !(await this.repo.decide(id, {
          status: 'approved',
          decided_at: at,
          decided_by: actor.parentId,
          grant: kind,
        }))
      )
        throw conflict('This request was decided meanwhile.');
      await this.repo.insertGrant({
        id: newId(),
        household_id: actor.householdId,
        mapping_id: row.mapping_id,
        type: row.type,
        domain: row.domain,
        target: row.type === 'app_access' ? String(details.identifier ?? '') : null,
        kind,
        source_request_id: id,
        created_at: creationIso(),
        expires_at: kind === 'once' ? new Date(Date.now() + ONCE_GRANT_MS).toISOString() : null,
        consumed_at: null,
      });
    }
    await this.forgetMapping(row.mapping_id);
    await this.announce(actor.householdId, id, 'approval_decided');
    return this.view(actor, id);
  }

  async deny(actor: SessionAuth, id: string): Promise<ApprovalView> {
    const row = await this.requireRequest(actor, id);
    if (row.status !== 'pending') throw conflict(`This request was already ${row.status}.`);
    if (
      !(await this.repo.decide(id, {
        status: 'denied',
        decided_at: nowIso(),
        decided_by: actor.parentId,
        grant: null,
      }))
    ) {
      throw conflict('This request was decided meanwhile.');
    }
    await this.forgetMapping(row.mapping_id);
    await this.announce(actor.householdId, id, 'approval_decided');
    return this.view(actor, id);
  }

  private async view(actor: SessionAuth, id: string): Promise<ApprovalView> {
    const row = await this.repo.getRequest(actor.householdId, id);
    if (!row) throw notFound('The request');
    return approvalView(row);
  }

  private async requireMapping(actor: SessionAuth, mappingId: string, need: 'view' | 'manage') {
    const mapping = await this.repo.mapping(actor.householdId, mappingId);
    if (!mapping) throw notFound('The mapping');
    await this.users.requireChild(actor, mapping.managed_user_id, need);
    return mapping;
  }

  async settings(actor: SessionAuth, mappingId: string, change?: { enforce_signup_approvals: boolean }) {
    const mapping = await this.requireMapping(actor, mappingId, change ? 'manage' : 'view');
    let enforce = mapping.enforce_signup_approvals === 1;
    if (change) {
      await this.repo.setEnforce(mappingId, change.enforce_signup_approvals);
      await this.forgetMapping(mappingId);
      enforce = change.enforce_signup_approvals;
    }
    return {
      mapping_id: mappingId,
      enforce_signup_approvals: enforce,
      signup_supported: signupSupported(mapping.platform, mapping.agent_version),
    };
  }

  async grants(actor: SessionAuth, mappingId: string): Promise<GrantView[]> {
    await this.requireMapping(actor, mappingId, 'view');
    return this.repo.listGrants(mappingId, 'site_signup');
  }

  async addGrant(
    actor: SessionAuth,
    mappingId: string,
    body: { domain: string; kind: 'once' | 'persistent' },
  ): Promise<GrantView> {
    await this.requireMapping(actor, mappingId, 'manage');
    const domain = domainOrFail(body.domain);
    const row = {
      id: newId(),
      household_id: actor.householdId,
      mapping_id: mappingId,
      type: 'site_signup' as const,
      domain,
      target: null,
      kind: body.kind,
      source_request_id: null,
      created_at: creationIso(),
      expires_at: body.kind === 'once' ? new Date(Date.now() + ONCE_GRANT_MS).toISOString() : null,
      consumed_at: null,
    };
    await this.repo.insertGrant(row);
    await this.forgetMapping(mappingId);
    return {
      id: row.id,
      domain,
      kind: row.kind,
      source_request_id: null,
      created_at: row.created_at,
      expires_at: row.expires_at,
      consumed_at: null,
    };
  }

  async removeGrant(actor: SessionAuth, mappingId: string, grantId: string) {
    await this.requireMapping(actor, mappingId, 'manage');
    if (!(await this.repo.deleteGrant(mappingId, grantId))) throw notFound('The grant');
    await this.forgetMapping(mappingId);
    return { id: grantId, deleted: true };
  }

  async onlineAccounts(actor: SessionAuth, query: OnlineAccountQuery): Promise<OnlineAccountView[]> {
    if (query.managed_user_id) await this.users.requireChild(actor, query.managed_user_id, 'view');
    const rows = await this.repo.listOnlineAccounts({
      householdId: actor.householdId,
      q: query.q,
      sort: query.sort ?? 'last_active_at',
      order: query.order ?? (query.sort === 'domain' || query.sort === 'username' ? 'asc' : 'desc'),
      managedUserId: query.managed_user_id,
      onlyChildren: await this.visibleChildren(actor),
    });
    return rows.map((r) => ({ ...r, managed_user_name: r.managed_user_name ?? null }));
  }
}
