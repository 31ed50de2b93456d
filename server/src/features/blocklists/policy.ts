import type {
  AssignBlocklistsBody,
  DomainCheckView,
  DomainMatch,
  DomainPolicyChangedArgs,
  DomainPolicySyncView,
  DomainPolicyView,
  PolicyAppliedMessage,
} from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { hearsPolicies, syncStatusItems } from '../../agent-channel/policy-sync.js';
import type { AuthenticatedDevice, CommandResult } from '../../agent-channel/types.js';
import type { BearerDevice, SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { type ErrorDetail, invalidRequest, notFound } from '../../platform/errors.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessService } from '../access/service.js';
import type { DeviceService } from '../devices/service.js';
import { DomainList } from './domain-list.js';
import { EffectiveList } from './effective-list.js';
import { listDomain, sortedDistinct } from './formats.js';
import type { BlocklistRepository, PolicyRow } from './repository.js';
import type { Compiled, ListStore, Lists } from './store.js';

export const DOMAIN_POLICY_COMMAND = 'domain_policy_changed';

const EMPTY_BLOCK = new EffectiveList([], DomainList.EMPTY);
/** The policy of an account no child owns, or of a child never given one. */
const EMPTY_COMPILED: Compiled = {
  block: EMPTY_BLOCK,
  allow: DomainList.EMPTY,
  hash: EMPTY_BLOCK.hash(DomainList.EMPTY),
};

/** A grant a compile took in (stored with the policy, so what is served does not move with the clock). */
interface GrantEntry {
  id: string;
  domain: string;
  expires_at: string | null;
}

/** What the domain check reads of a child, kept between the writes that change it. */
interface CheckInputs {
  block_domains: string[];
  allow_domains: string[];
  sources: { id: string; name: string; content_hash: string | null }[];
  grants: { id: string; domain: string | null; expires_at: string | null }[];
}

/** What `GET /api/agent/domain-policy` sends: 304, or the body (gzipped when the agent takes it). */
export type AgentPolicyAnswer =
  | { status: 304; etag: string }
  | { status: 200; etag: string; body: Buffer; gzip: boolean };

const parseList = (text: string): string[] => {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};
const parseGrants = (text: string): GrantEntry[] => {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
};

/** Whether an If-None-Match header names the ETag (a list, weak forms and `*` included). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** Whether Accept-Encoding takes gzip (not with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding?.trim() !== 'gzip' && coding?.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/**
 * Each child's domain policy (DESIGN §11): the sources a parent assigned, their own block and allow
 * entries and the unexpired `domain_unblock` grants, compiled into one effective list whose version
 * rises only when its content does; delivered by `domain_policy_changed` and fetched by the agents.
 */
export class DomainPolicyService {
  /** One compile per child at a time, in the order asked, so a later compile never stores older inputs. */
  private readonly chains = new Map<string, Promise<unknown>>();

  /** The domain check's reads of each child (every check of a busy page would otherwise read them). */
  private readonly checkInputs: CacheSpace<CheckInputs>;

  constructor(
    private readonly repo: BlocklistRepository,
    private readonly store: ListStore,
    private readonly access: AccessService,
    private readonly devices: DeviceService,
    private readonly cache: ReadCache,
    private readonly log: FastifyBaseLogger,
  ) {
    this.checkInputs = cache.space('domain-check');
  }

  /** The child's policy inputs changed (entries, sources, grants): cached reads of them go. */
  private forget(managedUserId: string): Promise<void> {
    return this.cache.invalidate(cacheTags.domainPolicy(managedUserId));
  }

  // ——— the parent's view ———

  async view(actor: SessionAuth, managedUserId: string): Promise<DomainPolicyView> {
    await this.access.requireChild(actor, managedUserId, 'view');
    return this.viewOf(managedUserId);
  }

  private async viewOf(managedUserId: string): Promise<DomainPolicyView> {
    const [row, sources] = await Promise.all([
      this.repo.policy(managedUserId),
      this.repo.policySources(managedUserId),
    ]);
    return {
      managed_user_id: managedUserId,
      version: Number(row?.version ?? 0),
      source_ids: sources.map((s) => s.id),
      block_domains: row ? parseList(row.block_domains) : [],
      allow_domains: row ? parseList(row.allow_domains) : [],
      domain_count: Number(row?.domain_count ?? 0),
    };
  }

  /**
   * Sets the child's sources (and, when given, own entries), then compiles: the version rises only if
   * the effective content changed. An unknown source id — missing or another household's — is 404,
   * like an unknown id in a path (DESIGN §4).
   */
  async assign(
    actor: SessionAuth,
    managedUserId: string,
    body: AssignBlocklistsBody,
  ): Promise<DomainPolicyView> {
    await this.access.requireChild(actor, managedUserId, 'manage');
    const sourceIds = [...new Set(body.source_ids)];
    const found = new Set((await this.repo.sourcesIn(actor.householdId, sourceIds)).map((s) => s.id));
    const unknown = sourceIds.find((id) => !found.has(id));
    if (unknown) throw notFound(`The blocklist source ${unknown}`);
    const current = await this.repo.policy(managedUserId);
    const block =
      body.block_domains !== undefined
        ? ownEntries(body.block_domains, 'block_domains')
        : current
          ? parseList(current.block_domains)
          : [];
    const allow =
      body.allow_domains !== undefined
        ? ownEntries(body.allow_domains, 'allow_domains')
        : current
          ? parseList(current.allow_domains)
          : [];
    await this.serial(managedUserId, async () => {
      await this.repo.saveInputs(
        managedUserId,
        actor.householdId,
        { source_ids: sourceIds, block_domains: JSON.stringify(block), allow_domains: JSON.stringify(allow) },
        { at: nowIso(), by: actor.parentId, emptyHash: EMPTY_COMPILED.hash },
      );
      await this.compileAndSave(managedUserId);
    });
    return this.viewOf(managedUserId);
  }

  // ——— compiling ———

  private serial<T>(managedUserId: string, work: () => Promise<T>): Promise<T> {
    const before = this.chains.get(managedUserId) ?? Promise.resolve();
    const p = before.then(work, work);
    const tail = p.catch(() => {});
    this.chains.set(managedUserId, tail);
    void tail.then(() => {
      if (this.chains.get(managedUserId) === tail) this.chains.delete(managedUserId);
    });
    return p;
  }

  /**
   * The effective policy: the union of the sources' and the child's own blocked domains, less every
   * entry an allow covers; the allows are the child's own, the grants' and the sources' exceptions.
   */
  private async compile(
    managedUserId: string,
    row: PolicyRow,
    grants: readonly GrantEntry[],
  ): Promise<Compiled> {
    const sources = await this.repo.policySources(managedUserId);
    const parts = await Promise.all(sources.map((s) => this.store.source(s.id, s.content_hash)));
    const allow = DomainList.union([
      DomainList.fromSorted(parseList(row.allow_domains)),
      DomainList.fromSorted(sortedDistinct(grants.map((g) => g.domain))),
      ...parts.map((p) => p.allow),
    ]);
    const block = new EffectiveList(
      [...parts.map((p) => p.block), DomainList.fromSorted(parseList(row.block_domains))],
      allow,
    );
    return { block, allow, hash: block.hash(allow) };
  }

  /** Compiles with the grants in force now and stores the result; a new version is pushed. */
  private async compileAndSave(managedUserId: string): Promise<{ version: number; changed: boolean }> {
    const row = await this.repo.policy(managedUserId);
    if (!row) return { version: 0, changed: false };
    const at = nowIso();
    const grants: GrantEntry[] = (await this.repo.liveGrants(managedUserId, at)).flatMap((g) =>
      g.domain ? [{ id: g.id, domain: g.domain, expires_at: g.expires_at }] : [],
    );
    const compiled = await this.compile(managedUserId, row, grants);
    this.store.keepCompiled(managedUserId, compiled);
    const saved = await this.repo.saveCompiled(managedUserId, {
      content_hash: compiled.hash,
      domain_count: compiled.block.count,
      grants: JSON.stringify(grants),
      at,
    });
    await this.forget(managedUserId);
    if (saved.changed) await this.push(managedUserId, saved.version);
    return saved;
  }

  /** Compiles the child's policy again (a source, grant or clock changed something it takes in). */
  recompile(managedUserId: string): Promise<{ version: number; changed: boolean }> {
    return this.serial(managedUserId, () => this.compileAndSave(managedUserId));
  }

  /** A source changed or went: every child using it compiles again. */
  async sourcesChanged(childIds: readonly string[]): Promise<void> {
    for (const child of childIds) await this.recompile(child);
  }

  /** A `domain_unblock` grant was made or removed for one of the child's accounts. */
  async grantsChanged(managedUserId: string): Promise<void> {
    await this.recompile(managedUserId);
    await this.forget(managedUserId);
  }

  /** A grant of this mapping was removed (by the grants route): its child compiles again. */
  async grantRemoved(mappingId: string): Promise<void> {
    const child = await this.repo.childOfMapping(mappingId);
    if (!child) return;
    if (await this.repo.policy(child)) await this.recompile(child);
    await this.forget(child);
  }

  /**
   * Worker task: a policy whose grants are no longer the ones in force (one expired, was used up or
   * was removed) compiles again, so the version rises and the devices hear of it.
   */
  async expireGrants(): Promise<string> {
    const at = nowIso();
    let recompiled = 0;
    for (const p of await this.repo.policiesWithGrants()) {
      const stored = parseGrants(p.grants)
        .map((g) => g.id)
        .sort();
      const live = (await this.repo.liveGrants(p.managed_user_id, at)).map((g) => g.id).sort();
      if (stored.join() === live.join()) continue;
      await this.recompile(p.managed_user_id);
      recompiled++;
    }
    return `compiled ${recompiled} domain policies again for changed grants`;
  }

  // ——— delivery ———

  /**
   * Sends `domain_policy_changed` to the child's mapped accounts on approved devices now, or queues it
   * (also for devices waiting for approval); a newer push replaces a queued one for the account.
   */
  private async push(
    managedUserId: string,
    version: number,
    only: (mappingId: string) => boolean = () => true,
  ) {
    const mappings = await this.repo.mappingsOf(managedUserId);
    await Promise.all(
      mappings
        .filter((m) => hearsPolicies(m) && only(m.id))
        .map(async (m) => {
          if (!(await this.repo.sync.beginPush(m, managedUserId, version))) return;
          const args: DomainPolicyChangedArgs = {
            managed_user_id: managedUserId,
            linux_username: m.linux_username,
            version,
          };
          try {
            const outcome = await this.devices.command(
              m.system_id,
              DOMAIN_POLICY_COMMAND,
              { ...args },
              {
                coalesceKey: `${DOMAIN_POLICY_COMMAND}:${m.linux_username}`,
              },
            );
            // A delivered push waits for the agent's policy_applied; an error answer fails it.
            if (outcome.delivered && outcome.error !== undefined)
              await this.recordFailure(m.id, version, outcome.error);
          } catch (err) {
            this.log.warn({ err, system_id: m.system_id }, 'could not send domain_policy_changed');
            await this.recordFailure(m.id, version, (err as Error).message);
          }
        }),
    );
  }

  private recordFailure(mappingId: string, version: number, error: unknown): Promise<void> {
    const text = typeof error === 'string' ? error : JSON.stringify(error ?? 'failed');
    return this.repo.sync.recordAnswer(mappingId, version, {
      status: 'failed',
      applied_version: null,
      error: text.slice(0, 500),
      at: nowIso(),
    });
  }

  /**
   * An account was mapped to the child: while the policy holds something, its device gets it (queued
   * while offline or waiting for approval, then sent once it is approved and connects).
   */
  async mappingAdded(managedUserId: string): Promise<void> {
    const row = await this.repo.policy(managedUserId);
    const version = Number(row?.version ?? 0);
    if (!row || version === 0) return;
    const empty = Number(row.domain_count) === 0 && row.allow_domains === '[]' && row.grants === '[]';
    if (empty) return;
    const synced = new Set(
      (await this.repo.sync.syncOf(managedUserId))
        .filter((r) => Number(r.version) >= version)
        .map((r) => r.mapping_id),
    );
    await this.push(managedUserId, version, (id) => !synced.has(id));
  }

  /** An account no longer belongs to the child: its device fetches the empty policy (version 0). */
  async release(systemId: string, linuxUsername: string): Promise<void> {
    await this.devices.command(
      systemId,
      DOMAIN_POLICY_COMMAND,
      { managed_user_id: null, linux_username: linuxUsername, version: 0 } satisfies DomainPolicyChangedArgs,
      { coalesceKey: `${DOMAIN_POLICY_COMMAND}:${linuxUsername}` },
    );
  }

  /** A queued push reached the device and was answered (the channel's onAnswered hook). */
  async onAnswered(systemId: string, command: string, args: Record<string, unknown>, result: CommandResult) {
    if (command !== DOMAIN_POLICY_COMMAND || result.status !== 'error') return;
    if (typeof args.linux_username !== 'string' || typeof args.version !== 'number') return;
    const mapping = await this.repo.mappingOf(systemId, args.linux_username);
    if (mapping) await this.recordFailure(mapping.id, args.version, result.error);
  }

  /** The agent's `policy_applied` for the domain policy of an account it named in its hello. */
  async onApplied(device: AuthenticatedDevice, message: PolicyAppliedMessage): Promise<void> {
    if (message.linux_username === undefined || !device.linuxUsers.has(message.linux_username)) {
      device.send({
        type: 'error',
        code: 'unknown_account',
        message: `The account "${message.linux_username}" was not in this device's hello.`,
      });
      return;
    }
    const mapping = await this.repo.mappingOf(device.systemId, message.linux_username);
    if (!mapping) return;
    await this.repo.recordApplied(mapping, device.systemId, message.version, nowIso());
  }

  async syncStatus(actor: SessionAuth, managedUserId: string): Promise<DomainPolicySyncView> {
    await this.access.requireChild(actor, managedUserId, 'view');
    const [row, mappings, rows] = await Promise.all([
      this.repo.policy(managedUserId),
      this.repo.mappingsOf(managedUserId),
      this.repo.sync.syncOf(managedUserId),
    ]);
    const version = Number(row?.version ?? 0);
    return { managed_user_id: managedUserId, version, items: syncStatusItems(version, mappings, rows) };
  }

  // ——— what agents fetch ———

  /**
   * The effective policy of one of the device's accounts: `block` sorted, `allow` the child's own,
   * the grants' and the sources' exceptions. An account the device did not report is 404; one not
   * mapped to a child gets the empty policy (version 0). 304 when `If-None-Match` names the version.
   */
  async agentPolicy(
    device: BearerDevice,
    linuxUsername: string,
    request: { ifNoneMatch?: string; acceptEncoding?: string },
  ): Promise<AgentPolicyAnswer> {
    if (!device.linuxUsers.includes(linuxUsername)) throw notFound('The account on this device');
    const mapping = await this.repo.mappingOf(device.systemId, linuxUsername);
    const { version, lists } = mapping
      ? await this.served(mapping.managed_user_id)
      : { version: 0, lists: EMPTY_COMPILED };
    const etag = `"${version}"`;
    if (etagMatches(request.ifNoneMatch, etag)) return { status: 304, etag };
    const json = () =>
      Buffer.concat([
        Buffer.from(`{"linux_username":${JSON.stringify(linuxUsername)},"version":${version},"block":`),
        lists.block.jsonArray(),
        Buffer.from(',"allow":'),
        lists.allow.jsonArray(),
        Buffer.from('}'),
      ]);
    if (!acceptsGzip(request.acceptEncoding)) return { status: 200, etag, body: json(), gzip: false };
    const key = `${mapping?.managed_user_id ?? '-'}:${linuxUsername}`;
    return { status: 200, etag, body: await this.store.gzipped(key, String(version), json), gzip: true };
  }

  /**
   * The stored version with its lists: kept in memory by content hash, else compiled from the sources
   * and the grants the version was compiled with. Should that not give the stored hash (a source
   * changed and its children's compile has not run here yet), the child compiles again first.
   */
  private async served(managedUserId: string, again = true): Promise<{ version: number; lists: Compiled }> {
    const row = await this.repo.policy(managedUserId);
    if (!row) return { version: 0, lists: EMPTY_COMPILED };
    const kept = this.store.compiledFor(managedUserId, row.content_hash);
    if (kept) return { version: Number(row.version), lists: kept };
    const compiled = await this.compile(managedUserId, row, parseGrants(row.grants));
    if (compiled.hash === row.content_hash || !again) {
      this.store.keepCompiled(managedUserId, compiled);
      return { version: Number(row.version), lists: compiled };
    }
    await this.recompile(managedUserId);
    return this.served(managedUserId, false);
  }

  // ——— "why is this blocked?" ———

  /**
   * Every rule that covers the domain (the rule itself or a parent domain of it) with where it comes
   * from; blocked when some rule blocks and none allows. Lookups run on the in-memory lists: O(labels)
   * binary searches per source, whatever the list's size.
   */
  async domainCheck(actor: SessionAuth, managedUserId: string, input: string): Promise<DomainCheckView> {
    await this.access.requireChild(actor, managedUserId, 'view');
    const domain = listDomain(input);
    if (!domain)
      throw invalidRequest(`"${input.slice(0, 80)}" is not a domain name.`, [
        { path: 'querystring/domain', message: 'is not a domain name' },
      ]);
    const inputs = await this.checkInputs.load(managedUserId, async () => {
      const [row, sources, grants] = await Promise.all([
        this.repo.policy(managedUserId),
        this.repo.policySources(managedUserId),
        this.repo.unusedGrants(managedUserId),
      ]);
      return {
        value: {
          block_domains: row ? parseList(row.block_domains) : [],
          allow_domains: row ? parseList(row.allow_domains) : [],
          sources,
          grants,
        },
        // Mappings (and with them grants) come and go with the household's children list.
        tags: [
          cacheTags.domainPolicy(managedUserId),
          cacheTags.children(actor.householdId),
          ...sources.map((s) => cacheTags.blocklistSource(s.id)),
        ],
      };
    });
    const now = nowIso();
    const matches: DomainMatch[] = [];
    const lists = await Promise.all(inputs.sources.map((s) => this.store.source(s.id, s.content_hash)));
    inputs.sources.forEach((s, i) => {
      const l = lists[i] as Lists;
      for (const rule of l.block.covering(domain))
        matches.push({ kind: 'source', action: 'block', rule, source_id: s.id, source_name: s.name });
      for (const rule of l.allow.covering(domain))
        matches.push({ kind: 'source', action: 'allow', rule, source_id: s.id, source_name: s.name });
    });
    const covers = (entry: string) => domain === entry || domain.endsWith(`.${entry}`);
    for (const rule of inputs.block_domains)
      if (covers(rule)) matches.push({ kind: 'block_domain', action: 'block', rule });
    for (const rule of inputs.allow_domains)
      if (covers(rule)) matches.push({ kind: 'allow_domain', action: 'allow', rule });
    for (const g of inputs.grants)
      if (g.domain && (g.expires_at === null || g.expires_at > now) && covers(g.domain))
        matches.push({
          kind: 'grant',
          action: 'allow',
          rule: g.domain,
          grant_id: g.id,
          expires_at: g.expires_at,
        });
    const blocked = matches.some((m) => m.action === 'block') && !matches.some((m) => m.action === 'allow');
    return { domain, blocked, matches };
  }
}

/** A child's own entries, normalised, sorted and distinct; an invalid one is 400 naming it. */
function ownEntries(entries: readonly string[], field: string): string[] {
  const out: string[] = [];
  const details: ErrorDetail[] = [];
  entries.forEach((entry, i) => {
    const domain = listDomain(entry);
    if (domain) out.push(domain);
    else details.push({ path: `body/${field}/${i}`, message: 'is not a domain name' });
  });
  if (details.length)
    throw invalidRequest(
      `${details.length === 1 ? 'An entry' : `${details.length} entries`} of ${field} ${details.length === 1 ? 'is' : 'are'} not a domain name (such as ads.example.com).`,
      details,
    );
  return sortedDistinct(out);
}
