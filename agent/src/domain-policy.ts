// Each account's domain policy (DESIGN §11): fetched when the server says it changed (and checked with
// its ETag after every reconnect), kept in the state directory so that the extension is served the
// last policy while the server is away, and acknowledged with `policy_applied`.
import type { AgentContext, AgentModule, DomainPolicies, DomainPolicy } from './context.js';

const fileOf = (username: string) => `domain-policy.${username}.json`;
const USERNAME = /^[a-z_][a-z0-9_.-]{0,63}\$?$/i;

const isPolicy = (d: unknown): d is DomainPolicy =>
  !!d &&
  typeof d === 'object' &&
  Number.isInteger((d as DomainPolicy).version) &&
  ((d as DomainPolicy).managed_user_id === null || typeof (d as DomainPolicy).managed_user_id === 'string') &&
  Array.isArray((d as DomainPolicy).block) &&
  Array.isArray((d as DomainPolicy).allow);

/**
 * The names of one GET_POLICY part take at most this many bytes of JSON: half of what Chrome takes from
 * a native host in one message (MAX_TO_CHROME, 1 MiB), which leaves room for the rest of the answer.
 */
export const POLICY_PART_BYTES = 512 * 1024;

const NO_POLICY: DomainPolicy = { version: 0, managed_user_id: null, block: [], allow: [] };

/**
 * Where each part starts in `allow` followed by `block` (and one past the end), worked out once per
 * kept policy: a policy object is replaced, never changed, when a new version arrives.
 */
const cutsOf = new WeakMap<DomainPolicy, Uint32Array>();

function partCuts(policy: DomainPolicy): Uint32Array {
  const kept = cutsOf.get(policy);
  if (kept) return kept;
  const cuts = [0];
  const { allow, block } = policy;
  const total = allow.length + block.length;
  let bytes = 0;
  for (let i = 0; i < total; i++) {
    const name = (i < allow.length ? allow[i] : block[i - allow.length]) as string;
    // The name, its quotes and a comma.
    const cost = Buffer.byteLength(name, 'utf8') + 3;
    if (bytes > 0 && bytes + cost > POLICY_PART_BYTES) {
      cuts.push(i);
      bytes = 0;
    }
    bytes += cost;
  }
  cuts.push(total);
  const out = Uint32Array.from(cuts);
  cutsOf.set(policy, out);
  return out;
}

export interface PolicyPart {
  version: number;
  block: string[];
  allow: string[];
  part: number;
  parts: number;
}

/**
 * Part `part` of an account's policy as GET_POLICY answers it (DESIGN §14): the allow entries come
 * first (all in part 0 when they fit), then the block entries, in slices whose JSON stays under
 * POLICY_PART_BYTES; an empty policy is one part. Null for a part that does not exist.
 */
export function policyPart(policy: DomainPolicy | null, part: number): PolicyPart | null {
  const p = policy ?? NO_POLICY;
  const cuts = partCuts(p);
  const parts = cuts.length - 1;
  if (!Number.isInteger(part) || part < 0 || part >= parts) return null;
  const from = cuts[part] as number;
  const to = cuts[part + 1] as number;
  const a = p.allow.length;
  return {
    version: p.version,
    block: p.block.slice(Math.max(from - a, 0), Math.max(to - a, 0)),
    allow: p.allow.slice(Math.min(from, a), Math.min(to, a)),
    part,
    parts,
  };
}

export class DomainPolicyStore implements DomainPolicies {
  private readonly kept = new Map<string, DomainPolicy | null>();
  private readonly listeners: ((username: string, version: number) => void)[] = [];
  /** One fetch at a time per account; a push during a fetch asks for one more round. */
  private readonly busy = new Map<string, { again: boolean; managedUserId: string | null | undefined }>();

  constructor(private readonly ctx: AgentContext) {}

  get(username: string): DomainPolicy | null {
    if (!USERNAME.test(username)) return null;
    if (!this.kept.has(username)) this.kept.set(username, this.ctx.state.read(fileOf(username), isPolicy));
    return this.kept.get(username) ?? null;
  }

  onChange(listener: (username: string, version: number) => void): void {
    this.listeners.push(listener);
  }

  /** Fetches the account's policy unless one is being fetched (then once more after it). */
  async refresh(username: string, managedUserId?: string | null): Promise<void> {
    const running = this.busy.get(username);
    if (running) {
      running.again = true;
      running.managedUserId = managedUserId;
      return;
    }
    const job = { again: false, managedUserId };
    this.busy.set(username, job);
    try {
      do {
        job.again = false;
        await this.fetchOnce(username, job.managedUserId);
      } while (job.again);
    } finally {
      this.busy.delete(username);
    }
  }

  private async fetchOnce(username: string, managedUserId: string | null | undefined): Promise<void> {
    const held = this.get(username);
    const headers: Record<string, string> = { 'accept-encoding': 'gzip' };
    // Versions count per child: a policy kept for another child says nothing about this one's.
    if (held && (managedUserId === undefined || managedUserId === held.managed_user_id))
      headers['if-none-match'] = `"${held.version}"`;
    const res = await this.ctx.serverFetch(
      `/api/agent/domain-policy?linux_username=${encodeURIComponent(username)}`,
      { headers },
    );
    if (res.status === 304 && held) return this.applied(username, held.version);
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`domain policy: the server answered ${res.status}`);
    }
    const body = (await res.json()) as { version?: unknown; block?: unknown; allow?: unknown };
    const policy = {
      version: body.version,
      managed_user_id: managedUserId === undefined ? (held?.managed_user_id ?? null) : managedUserId,
      block: body.block,
      allow: body.allow,
    };
    if (
      !isPolicy(policy) ||
      !policy.block.every((d) => typeof d === 'string') ||
      !policy.allow.every((d) => typeof d === 'string')
    ) {
      throw new Error('domain policy: the server answered an unexpected shape');
    }
    this.ctx.state.write(fileOf(username), policy);
    this.kept.set(username, policy);
    this.ctx.log.info('domain policy applied', {
      linux_username: username,
      version: policy.version,
      blocked: policy.block.length,
    });
    for (const listener of this.listeners) listener(username, policy.version);
    this.applied(username, policy.version);
  }

  private applied(username: string, version: number): void {
    this.ctx.sendDurable(
      { type: 'policy_applied', kind: 'domain', linux_username: username, version },
      `policy_applied:domain:${username}`,
    );
  }
}

export function domainPolicyModule(): AgentModule {
  return {
    name: 'domain-policy',
    start(ctx) {
      const store = new DomainPolicyStore(ctx);
      ctx.domainPolicies = store;
      const refresh = (username: string, managedUserId?: string | null) =>
        store
          .refresh(username, managedUserId)
          .catch((err) => ctx.log.warn('domain policy fetch failed', { linux_username: username, err }));
      ctx.onCommand('domain_policy_changed', (args) => {
        const username = args.linux_username;
        if (typeof username !== 'string' || !USERNAME.test(username))
          throw new Error('linux_username missing or malformed');
        const managed = args.managed_user_id;
        void refresh(username, typeof managed === 'string' || managed === null ? managed : undefined);
        return {};
      });
      // After a reconnect, a cheap conditional fetch per account catches a push that was lost.
      ctx.events.on('authenticated', () => {
        for (const { username } of ctx.accounts()) void refresh(username);
      });
    },
  };
}
