// The agent's domain policy in the worker (DESIGN §11, §15): fetched in parts with GET_POLICY (the host
// takes at most 1 MiB a message, so a long list comes in pages), rebuilt into a DomainPolicy, and fetched
// again when the agent pushes POLICY_CHANGED. Nothing of it is stored: the worker lives as long as its
// native port is open, and a fresh worker asks again.
import type { Answer } from './native.ts';
import { DomainPolicy, DomainPolicyBuilder } from './policy.ts';

export class AgentAnswerError extends Error {
  constructor(readonly code: string) {
    super(`agent: ${code}`);
  }
}

/** A version that changes under us more often than this is fetched again later, not chased. */
const MAX_RESTARTS = 3;

const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null;

/** All parts of one version of the policy; starts again when the version changes between parts. */
export async function fetchPolicy(request: (message: { type: string; part?: number }) => Promise<Answer>) {
  for (let attempt = 0; attempt <= MAX_RESTARTS; attempt++) {
    let builder: DomainPolicyBuilder | null = null;
    let version = -1;
    let parts = 1;
    let restarted = false;
    for (let part = 0; part < parts; part++) {
      const answer = await request(part === 0 ? { type: 'GET_POLICY' } : { type: 'GET_POLICY', part });
      if (answer.ok === false) throw new AgentAnswerError(String(answer.error ?? 'failed'));
      const block = strings(answer.block);
      const allow = strings(answer.allow);
      if (!Number.isInteger(answer.version) || !block || !allow) throw new AgentAnswerError('bad_policy');
      // An agent without paging answers the whole policy and no `parts`.
      const total = answer.parts === undefined ? 1 : Number(answer.parts);
      if (!Number.isInteger(total) || total < 1 || total > 100_000) throw new AgentAnswerError('bad_policy');
      if (answer.part !== undefined && answer.part !== part) throw new AgentAnswerError('bad_policy');
      if (part === 0) {
        version = answer.version as number;
        parts = total;
        builder = new DomainPolicyBuilder(version);
      } else if (answer.version !== version || total !== parts) {
        restarted = true;
        break;
      }
      builder?.add(block, allow);
    }
    if (!restarted && builder) return builder.build();
  }
  throw new AgentAnswerError('policy_kept_changing');
}

export interface PolicyKeeperOptions {
  fetch(): Promise<DomainPolicy>;
  /** A new policy is in use. */
  onLoaded(policy: DomainPolicy, previous: DomainPolicy | null): void;
  onFailed(error: unknown): void;
  retryMs?: [number, number];
}

export class PolicyKeeper {
  private current: DomainPolicy = DomainPolicy.empty();
  private loadedOnce = false;
  private running: Promise<void> | null = null;
  private again = false;
  private failures = 0;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private waiters: (() => void)[] = [];

  constructor(private readonly o: PolicyKeeperOptions) {}

  get policy(): DomainPolicy {
    return this.current;
  }

  get loaded(): boolean {
    return this.loadedOnce;
  }

  /** Fetches again unless `version` is the one in use; a call during a fetch asks for one more round. */
  refresh(version?: number): void {
    if (version !== undefined && this.loadedOnce && version === this.current.version) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.retry) {
      clearTimeout(this.retry);
      this.retry = null;
    }
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  /** Resolves true once a policy is loaded, or false after `ms` (the navigation then goes ahead). */
  whenLoaded(ms: number): Promise<boolean> {
    if (this.loadedOnce) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, ms);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        const next = await this.o.fetch();
        const previous = this.loadedOnce ? this.current : null;
        this.current = next;
        this.loadedOnce = true;
        this.failures = 0;
        for (const w of this.waiters.splice(0)) w();
        this.o.onLoaded(next, previous);
      } catch (err) {
        this.failures += 1;
        this.o.onFailed(err);
        if (!this.again) {
          const [first, last] = this.o.retryMs ?? [2_000, 60_000];
          const delay = Math.min(last, first * 2 ** Math.min(this.failures - 1, 16));
          this.retry = setTimeout(() => {
            this.retry = null;
            this.refresh();
          }, delay);
        }
      }
    } while (this.again);
  }
}
