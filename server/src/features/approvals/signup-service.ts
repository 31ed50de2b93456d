import type {
  AgentAccountView,
  ApprovalSettingsBody,
  GrantView,
  RegistrationCheckView,
  RegistrationRequestBody,
} from '@hearth/protocol';
import type { BearerDevice, SessionAuth } from '../../platform/access.js';
import { creationIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import type { ApprovalRequestTable } from '../../platform/db/schema.js';
import { domainAndParents, registrableDomain } from '../../platform/domain.js';
import { invalidRequest, notFound } from '../../platform/errors.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessService } from '../access/service.js';
import type { ApprovalRepository } from './repository.js';
import { domainOrFail, forgetMapping, onceGrantExpiry, requireAccount, signupSupported } from './rules.js';
import type { ApprovalService } from './service.js';

/** What the registration check needs to know about one account of one device, cached between changes. */
interface SignupFacts {
  mapping: { id: string; managed_user_id: string } | null;
  /** Mapped, the toggle on, and a platform and agent version the feature covers. */
  enforced: boolean;
  /** The pending sign-up request of each site (registrable domain, see `registrableDomain`). */
  pending: ReadonlyMap<string, string>;
  /** Grants by domain: persistent ones never end; a one-time grant until used or expired (ms). */
  grants: readonly { domain: string; persistent: boolean; usable: boolean; expiresAt: number }[];
}

/**
 * Sign-up approvals: the registration check and sign-up requests of agents, and each mapping's
 * enforcement toggle and grants.
 */
export class SignupService {
  // The registration check runs on every sign-up-looking page: its facts come from the cache, or
  // from three prepared reads that are then kept until a change to the mapping or device.
  private readonly cachedFacts: CacheSpace<SignupFacts>;

  constructor(
    private readonly repo: ApprovalRepository,
    private readonly access: AccessService,
    private readonly approvals: ApprovalService,
    private readonly cache: ReadCache,
    /** A grant went: a domain_unblock one leaves the child's domain policy (the blocklists feature). */
    private readonly grantRemoved: (mappingId: string) => Promise<void> = async () => {},
  ) {
    this.cachedFacts = cache.space('signup');
  }

  /** Whether a child may sign up on a domain now, and whether a request is waiting for a parent. */
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

  /** The account's child, overlay settings and whether its sign-ups wait for a parent (the extension's popup and pages). */
  async account(device: BearerDevice, linuxUsername: string): Promise<AgentAccountView> {
    requireAccount(device, linuxUsername);
    const [row, facts] = await Promise.all([
      this.repo.accountSettings(device.systemId, linuxUsername),
      this.signupFacts(device, linuxUsername),
    ]);
    if (!row) throw notFound('The device');
    return {
      linux_username: linuxUsername,
      device_name: row.display_name || row.hostname,
      managed_user_id: row.managed_user_id ?? null,
      child_name: row.child_name ?? null,
      age_tier: row.overlay_age_tier ?? 'eight12',
      parent_note: row.overlay_parent_note ?? null,
      signup_enforced: facts.enforced,
    };
  }

  /** Kept under the device's tag too, so a new agent version or platform is seen at once. */
  private signupFacts(device: BearerDevice, linuxUsername: string): Promise<SignupFacts> {
    const systemId = device.systemId;
    return this.cachedFacts.load(`${systemId}|${linuxUsername}`, async () => {
      const row = await this.repo.signupMapping(systemId, linuxUsername);
      if (!row) {
        const value = { mapping: null, enforced: false, pending: new Map(), grants: [] };
        return { value, tags: [cacheTags.device(systemId)] };
      }
      const [pending, grants] = await Promise.all([
        this.repo.pendingSignups(row.id),
        this.repo.signupGrants(row.id),
      ]);
      const value: SignupFacts = {
        mapping: { id: row.id, managed_user_id: row.managed_user_id },
        enforced:
          Number(row.enforce_signup_approvals) === 1 && signupSupported(device.platform, device.agentVersion),
        // Keyed by site, so a request stored under a full hostname before sites were grouped still answers.
        pending: new Map(
          pending.flatMap((r) => (r.domain ? [[registrableDomain(r.domain), r.id] as const] : [])),
        ),
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
    // One request per site: www.example.com and example.com wait for the same answer.
    return { allowed: false, pendingId: pending.get(registrableDomain(domain)) ?? null, mapping };
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
    // The request, and so the grant that approving it makes, is for the whole site: a sign-up on
    // www.example.com is a sign-up on example.com. The URL keeps the page the child was on.
    const site = registrableDomain(domain);
    const row: ApprovalRequestTable = {
      id: newId(),
      household_id: device.householdId,
      type: 'site_signup',
      status: 'pending',
      mapping_id: mapping.id,
      managed_user_id: mapping.managed_user_id,
      system_id: device.systemId,
      linux_username: body.linux_username,
      domain: site,
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
      const existing = await this.repo.pendingRequest(mapping.id, 'site_signup', site);
      if (existing) return { created: false, view: { id: existing.id, status: 'pending' } };
      throw err;
    }
    await forgetMapping(this.cache, mapping.id);
    await this.approvals.announce(device.householdId, row.id, 'approval_created');
    return { created: true, view: { id: row.id, status: 'pending' } };
  }

  /**
   * A mapping's settings: sign-up enforcement and the periodic screenshot interval (DESIGN §6, §12). A
   * change names only what it changes.
   */
  async settings(actor: SessionAuth, mappingId: string, change?: ApprovalSettingsBody) {
    await this.access.requireMapping(actor, mappingId, change ? 'manage' : 'view');
    const mapping = await this.repo.mapping(actor.householdId, mappingId);
    if (!mapping) throw notFound('The mapping');
    let enforce = Number(mapping.enforce_signup_approvals) === 1;
    let interval = Number(mapping.screenshot_interval_minutes ?? 0);
    if (change) {
      await this.repo.setSettings(mappingId, change);
      await forgetMapping(this.cache, mappingId);
      enforce = change.enforce_signup_approvals ?? enforce;
      interval = change.screenshot_interval_minutes ?? interval;
    }
    return {
      mapping_id: mappingId,
      enforce_signup_approvals: enforce,
      signup_supported: signupSupported(mapping.platform, mapping.agent_version),
      screenshot_interval_minutes: interval,
    };
  }

  async grants(actor: SessionAuth, mappingId: string): Promise<GrantView[]> {
    await this.access.requireMapping(actor, mappingId, 'view');
    return this.repo.listGrants(mappingId, 'site_signup');
  }

  async addGrant(
    actor: SessionAuth,
    mappingId: string,
    body: { domain: string; kind: 'once' | 'persistent' },
  ): Promise<GrantView> {
    await this.access.requireMapping(actor, mappingId, 'manage');
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
      expires_at: body.kind === 'once' ? onceGrantExpiry() : null,
      consumed_at: null,
    };
    await this.repo.insertGrant(row);
    await forgetMapping(this.cache, mappingId);
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
    await this.access.requireMapping(actor, mappingId, 'manage');
    if (!(await this.repo.deleteGrant(mappingId, grantId))) throw notFound('The grant');
    await forgetMapping(this.cache, mappingId);
    await this.grantRemoved(mappingId);
    return { id: grantId, deleted: true };
  }
}
