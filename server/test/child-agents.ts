import { after, before } from 'node:test';
import { SimAgent, type SimAgentOptions } from '../../bench/src/simulator.js';
import { enrollmentToken, type ServerSuite } from './helpers.js';

/** A suite whose household has one child and agents paired to it through the public routes. */
export interface ChildAgentsSuite extends ServerSuite {
  childId: string;
  /** Every agent the suite started; stopped after its tests. */
  agents: SimAgent[];
  /** A paired, approved agent whose `account` is mapped to `child`; returns the mapping id too. */
  pairedAgent(
    options?: Partial<SimAgentOptions>,
    child?: string,
    account?: string,
  ): Promise<{ agent: SimAgent; mappingId: string }>;
  /** A request with an agent's bearer token, answered as JSON. */
  bearer(
    token: string | undefined,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }>;
}

/**
 * Adds the child `child` (created before the tests) and paired agents to a suite; each agent also
 * reports the unmapped account `spareAccount`.
 */
export function withChildAgents(
  suite: ServerSuite,
  { child, spareAccount }: { child: string; spareAccount: string },
): ChildAgentsSuite {
  const ctx = suite as ChildAgentsSuite;
  ctx.agents = [];
  ctx.pairedAgent = async (options = {}, childId = ctx.childId, account = 'kid') => {
    const a = new SimAgent({
      url: ctx.server.wsUrl,
      enrollmentToken: await enrollmentToken(ctx.home),
      linuxUsers: [{ username: account }, { username: spareAccount }],
      ...options,
    });
    ctx.agents.push(a);
    await a.connect();
    const approved = a.waitFor('pairing_approved');
    await ctx.home.client.post(`/api/device/approve/${a.systemId}`);
    await approved;
    const mapping = (
      await ctx.home.client.post(`/managed-users/${childId}/mappings/add`, {
        system_id: a.systemId,
        linux_username: account,
      })
    ).body;
    return { agent: a, mappingId: mapping.id as string };
  };
  ctx.bearer = (token, method, url, body) =>
    fetch(`${ctx.server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  before(async () => {
    ctx.childId = (await ctx.home.client.post('/api/user/create', { name: child })).body.id;
  });
  after(() => Promise.all(ctx.agents.map((a) => a.stop())));
  return ctx;
}
