import type { SimAgent } from '../../bench/src/simulator.js';
import { type ChildAgentsSuite, withChildAgents } from './child-agents.js';
import type { ServerSuite } from './helpers.js';

export interface ApprovalsSuite extends ChildAgentsSuite {
  /** The agent's sign-up check for `domain` as `account`. */
  check(agent: SimAgent, domain: string, account?: string): Promise<any>;
}

/** The sign-up home: the child Kit, agents that also report the unmapped account `guest`. */
export function approvalsSuite(suite: ServerSuite): ApprovalsSuite {
  const ctx = withChildAgents(suite, { child: 'Kit', spareAccount: 'guest' }) as ApprovalsSuite;
  ctx.check = async (a, domain, account = 'kid') =>
    (
      await ctx.bearer(
        a.secureToken,
        'GET',
        `/api/registration/check?domain=${encodeURIComponent(domain)}&linux_username=${account}`,
      )
    ).body;
  return ctx;
}
