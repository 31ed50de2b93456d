// The part of issue 17's benchmark that runs the same way in Node and, bundled by esbuild, in a Chromium
// page: a generated policy, the GET_POLICY parts the agent would send, building the extension's
// DomainPolicy (and a Set of strings, the obvious alternative), and timing lookups. No Node APIs here.
import { DomainPolicy, DomainPolicyBuilder, type PolicyWire } from '../../extension/src/worker/policy.js';

const TLDS = ['com', 'net', 'org', 'io', 'de', 'info', 'co.uk', 'fr'];
const SUBDOMAINS = ['www', 'cdn', 'static', 'm', 'img', 'api', 'eu', 'a1'];
/** What the agent puts in one GET_POLICY part at most (POLICY_PART_BYTES in agent/src/domain-policy.ts). */
const PART_BYTES = 512 * 1024;

/** The n-th name of bench/src/blocklists.ts's hosts list: one in five under `ads.`, eight endings. */
const listed = (i: number) =>
  `${i % 5 === 0 ? 'ads.' : ''}${(Math.imul(i, 2654435761) >>> 0).toString(36)}.${TLDS[i % TLDS.length]}`;

/** A policy of `count` blocked names and `allows` allowed ones (subdomains of listed names). */
export function makeWire(count: number, allows: number): PolicyWire {
  const block = new Array<string>(count);
  for (let i = 0; i < count; i++) block[i] = listed(i);
  const allow: string[] = [];
  for (let i = 0; i < allows; i++) allow.push(`www.${listed(i * 7 + 3)}`);
  // Through JSON, as the worker receives them: flat strings, where template literals make ropes that the
  // first charCodeAt would flatten inside the timed build.
  return JSON.parse(JSON.stringify({ version: 1, block, allow })) as PolicyWire;
}

/** The JSON texts of the GET_POLICY parts the agent would send for `wire` (allow first, then block). */
export function policyParts(wire: PolicyWire): string[] {
  const names = [...wire.allow.map((d) => ['a', d] as const), ...wire.block.map((d) => ['b', d] as const)];
  const parts: string[] = [];
  let block: string[] = [];
  let allow: string[] = [];
  let bytes = 0;
  const flush = () => {
    parts.push(JSON.stringify({ id: parts.length, version: wire.version, block, allow, part: parts.length }));
    block = [];
    allow = [];
    bytes = 0;
  };
  for (const [kind, name] of names) {
    if (bytes > 0 && bytes + name.length + 3 > PART_BYTES) flush();
    (kind === 'a' ? allow : block).push(name);
    bytes += name.length + 3;
  }
  flush();
  return parts;
}

/** What the worker does with the parts: parse each as it comes, add it, build at the end. */
export function buildFromParts(parts: readonly string[]): DomainPolicy {
  let builder: DomainPolicyBuilder | null = null;
  for (const text of parts) {
    const part = JSON.parse(text) as PolicyWire;
    builder ??= new DomainPolicyBuilder(part.version);
    builder.add(part.block, part.allow);
  }
  return (builder ?? new DomainPolicyBuilder(0)).build();
}

/** The obvious structure: one Set of the names a kind (lookups walk the host's suffixes). */
export function buildSets(wire: PolicyWire): { block: Set<string>; allow: Set<string> } {
  return { block: new Set(wire.block), allow: new Set(wire.allow) };
}

/** A small deterministic generator (mulberry32), so both runtimes look up the same hosts. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface HostSet {
  labels: number;
  kind: 'hit' | 'miss';
  hosts: string[];
}

/**
 * Hosts of 2–6 labels as a browser would give them: hits are listed names or names under them (with
 * subdomains put in front), misses names no rule covers (a `-` in the first label, which the listed
 * names never have). `count` hosts for each label count and kind.
 */
export function makeHosts(domains: number, count: number, seed = 17): HostSet[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const out: HostSet[] = [];
  for (let labels = 2; labels <= 6; labels++) {
    const hits: string[] = [];
    const misses: string[] = [];
    while (hits.length < count) {
      const name = listed(Math.floor(next() * domains));
      let have = name.split('.').length;
      if (have > labels) continue;
      let host = name;
      while (have < labels) {
        host = `${pick(SUBDOMAINS)}.${host}`;
        have++;
      }
      hits.push(host);
    }
    for (let i = 0; i < count; i++) {
      const tld = pick(TLDS);
      let host = `${Math.floor(next() * 1e9).toString(36)}-x.${tld}`;
      let have = host.split('.').length;
      if (have > labels) {
        host = `${Math.floor(next() * 1e9).toString(36)}-x.${tld.split('.').pop()}`;
        have = 2;
      }
      while (have < labels) {
        host = `${pick(SUBDOMAINS)}.${host}`;
        have++;
      }
      misses.push(host);
    }
    out.push({ labels, kind: 'hit', hosts: hits }, { labels, kind: 'miss', hosts: misses });
  }
  // Flat strings, as URL.hostname gives them (a rope would be flattened inside the timed lookup).
  return JSON.parse(JSON.stringify(out)) as HostSet[];
}

/** The Set structure's decide: the host and each parent, any allow wins (as DomainPolicy decides). */
export function setDecide(sets: { block: Set<string>; allow: Set<string> }, host: string): string | null {
  let blocked = false;
  for (let from = 0; ; ) {
    const name = from === 0 ? host : host.slice(from);
    if (sets.allow.has(name)) return 'allow';
    if (sets.block.has(name)) blocked = true;
    const dot = host.indexOf('.', from);
    if (dot < 0) break;
    from = dot + 1;
  }
  return blocked ? 'block' : null;
}

/**
 * Times `decide` over the hosts in `rounds` batches of `batch` lookups with `now` (ms), each host once;
 * answers each batch's mean time per lookup in ns (browsers coarsen their clock, so one lookup cannot be
 * timed alone there), and how many lookups answered non-null (a check that hits hit).
 */
export function timeBatches(
  decide: (host: string) => string | null,
  hosts: readonly string[],
  batch: number,
  rounds: number,
  now: () => number,
): { ns: number[]; found: number } {
  if (batch * rounds > hosts.length) throw new Error('not enough hosts to look each up once');
  const ns: number[] = [];
  let found = 0;
  for (let r = 0; r < rounds; r++) {
    const from = r * batch;
    const t = now();
    for (let i = from; i < from + batch; i++) if (decide(hosts[i] as string) !== null) found++;
    ns.push(((now() - t) * 1e6) / batch);
  }
  return { ns, found };
}

/** Times each lookup alone with `now` (Node's clock is fine enough); answers ns a lookup, less the clock's own cost. */
export function timeEach(
  decide: (host: string) => string | null,
  hosts: readonly string[],
  now: () => number,
): { ns: number[]; clockNs: number } {
  const clock: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = now();
    clock.push(now() - t);
  }
  clock.sort((a, b) => a - b);
  const clockMs = clock[clock.length >> 1] as number;
  const ns = new Array<number>(hosts.length);
  let found = 0;
  for (let i = 0; i < hosts.length; i++) {
    const t = now();
    if (decide(hosts[i] as string) !== null) found++;
    ns[i] = Math.max(0, (now() - t - clockMs) * 1e6);
  }
  if (found < 0) throw new Error('unreachable');
  return { ns, clockNs: clockMs * 1e6 };
}

export { DomainPolicy };
