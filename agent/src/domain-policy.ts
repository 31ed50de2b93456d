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
