// Issue 17's benchmark: the extension worker's domain policy lookup (extension/src/worker/policy.ts) with a
// 1,000,000-domain policy — build time, lookup time for hosts of 2–6 labels (hits and misses), and what
// the structure costs in memory, in Node (heap + array buffers, after gc) and in a real Chromium (the
// JS heap and array buffer backing stores read over CDP, after HeapProfiler.collectGarbage), each next
// to a Set of strings. Optionally the GET_POLICY parts of that policy delivered by the real agent through
// the real native host. `npm run bench:extension-policy`.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as page from './extension-policy-page.js';

type Page = typeof page;

const DOMAINS = Number(process.env.EXT_POLICY_DOMAINS ?? 1_000_000);
const ALLOWS = Number(process.env.EXT_POLICY_ALLOWS ?? 1_000);
/**
 * Hosts per label count and kind (hit / miss). Each is looked up once while timed, so that what one
 * lookup brought into the cache does not flatter the next: a navigation's lookup is mostly a cold one.
 */
const HOSTS = Number(process.env.EXT_POLICY_HOSTS ?? 20_000);
/** Lookups per timed batch (Chromium's clock cannot time one), and so batches per host set. */
const BATCH = 500;
const ROUNDS = Math.floor(HOSTS / BATCH);
/** Seeds of the host sets: JIT warm-up, lookups timed one by one, lookups timed in batches. */
const WARM = 99;
const EACH = 17;
const BATCHED = 18;
const BUILDS = 3;
const CHROMIUM = '/usr/bin/chromium';
/** EXT_POLICY_E2E=0 leaves out the end-to-end GET_POLICY run (server + agent + native host). */
const E2E = process.env.EXT_POLICY_E2E !== '0';

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const median = (xs: number[]) => pct(xs, 50);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const perName = (bytes: number) => `${(bytes / DOMAINS).toFixed(1)} B`;

interface LookupRow {
  structure: 'table' | 'set';
  labels: number;
  kind: 'hit' | 'miss';
  medianNs: number;
  p99Ns: number;
  meanNs: number;
}

interface Measured {
  fromMs: number[];
  partsMs: number;
  parts: number;
  largestPart: number;
  setMs: number;
  /** Bytes the structure holds once its input is gone: [JS heap, array buffers]. */
  table: [number, number];
  set: [number, number];
  /** What the input lists themselves take (the strings of the arrays). */
  wire: [number, number];
  lookups: LookupRow[];
  clockNs?: number;
  counts: { block: number; allow: number };
}

// ——— Node, in a child with --expose-gc ———

function nodeChild(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const mem = (): [number, number] => {
    gc();
    gc();
    const m = process.memoryUsage();
    return [m.heapUsed, m.arrayBuffers];
  };
  const minus = (a: [number, number], b: [number, number]): [number, number] => [a[0] - b[0], a[1] - b[1]];
  const now = () => performance.now();
  const warm = page.makeHosts(DOMAINS, 1_000, WARM);
  const hostSets = page.makeHosts(DOMAINS, HOSTS, EACH);
  const batchSets = page.makeHosts(DOMAINS, HOSTS, BATCHED);

  const m0 = mem();
  let wire: ReturnType<Page['makeWire']> | null = page.makeWire(DOMAINS, ALLOWS);
  const wireCost = minus(mem(), m0);
  const fromMs: number[] = [];
  let policy: page.DomainPolicy | null = null;
  for (let i = 0; i < BUILDS; i++) {
    policy = null;
    gc();
    const t = now();
    policy = page.DomainPolicy.from(wire);
    fromMs.push(now() - t);
  }
  wire = null;
  const table = minus(mem(), m0);
  const p = policy as page.DomainPolicy;
  const lookups: LookupRow[] = [];
  let clockNs = 0;
  for (let r = 0; r < 5; r++) for (const set of warm) for (const h of set.hosts) p.decide(h);
  for (const [i, set] of hostSets.entries()) {
    const each = page.timeEach((h) => p.decide(h), set.hosts, now);
    clockNs = each.clockNs;
    const batched = (batchSets[i] as page.HostSet).hosts;
    const batches = page.timeBatches((h) => p.decide(h), batched, BATCH, ROUNDS, now);
    if (set.kind === 'hit' && batches.found !== BATCH * ROUNDS) throw new Error('a hit did not hit');
    if (set.kind === 'miss' && batches.found !== 0) throw new Error('a miss hit');
    lookups.push({
      structure: 'table',
      labels: set.labels,
      kind: set.kind,
      medianNs: median(each.ns),
      p99Ns: pct(each.ns, 99),
      meanNs: batches.ns.reduce((a, b) => a + b, 0) / batches.ns.length,
    });
  }
  const counts = { block: p.blockCount, allow: p.allowCount };
  policy = null;

  const m1 = mem();
  wire = page.makeWire(DOMAINS, ALLOWS);
  let t = now();
  let sets: ReturnType<Page['buildSets']> | null = page.buildSets(wire);
  const setMs = now() - t;
  wire = null;
  const set = minus(mem(), m1);
  const s = sets;
  for (let r = 0; r < 5; r++) for (const set of warm) for (const h of set.hosts) page.setDecide(s, h);
  for (const [i, hs] of hostSets.entries()) {
    const each = page.timeEach((h) => page.setDecide(s, h), hs.hosts, now);
    const batched = (batchSets[i] as page.HostSet).hosts;
    const batches = page.timeBatches((h) => page.setDecide(s, h), batched, BATCH, ROUNDS, now);
    lookups.push({
      structure: 'set',
      labels: hs.labels,
      kind: hs.kind,
      medianNs: median(each.ns),
      p99Ns: pct(each.ns, 99),
      meanNs: batches.ns.reduce((a, b) => a + b, 0) / batches.ns.length,
    });
  }
  sets = null;

  let parts: string[] | null = page.policyParts(page.makeWire(DOMAINS, ALLOWS));
  gc();
  t = now();
  const fromParts = page.buildFromParts(parts);
  const partsMs = now() - t;
  if (fromParts.blockCount !== counts.block) throw new Error('parts lost names');
  const largestPart = Math.max(...parts.map((x) => x.length));
  const partCount = parts.length;
  parts = null;

  const out: Measured = {
    fromMs,
    partsMs,
    parts: partCount,
    largestPart,
    setMs,
    table,
    set,
    wire: wireCost,
    lookups,
    clockNs,
    counts,
  };
  console.log(JSON.stringify(out));
}

function measureNode(): Measured {
  const r = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--max-old-space-size=4096',
      '--conditions=hearth-source',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--node-child',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`the Node child failed (${r.status})`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as Measured;
}

// ——— Chromium ———

interface Heap {
  usedSize: number;
  backingStorageSize?: number;
}

async function measureChromium(): Promise<Measured & { version: string; isolated: boolean }> {
  const esbuild = await import('esbuild');
  const { chromium } = await import('playwright-core');
  const bundled = await esbuild.build({
    entryPoints: [path.join(import.meta.dirname, 'extension-policy-page.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'B',
    target: 'chrome120',
    write: false,
    minify: true,
  });
  const script = bundled.outputFiles[0]?.text ?? '';
  // Cross-origin isolated, so performance.now() is fine to 5 µs rather than 100 µs.
  const server = createServer((req, res) => {
    const headers = {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cache-control': 'no-store',
    };
    if (req.url === '/policy.js')
      res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end(script);
    else
      res
        .writeHead(200, { ...headers, 'content-type': 'text/html' })
        .end('<!doctype html><title>policy</title><script src="/policy.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const tab = await browser.newPage();
    await tab.goto(url);
    const cdp = await tab.context().newCDPSession(tab);
    await cdp.send('HeapProfiler.enable');
    const heap = async (): Promise<[number, number]> => {
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('HeapProfiler.collectGarbage');
      const h = (await cdp.send('Runtime.getHeapUsage')) as Heap;
      return [h.usedSize, h.backingStorageSize ?? Number.NaN];
    };
    const minus = (a: [number, number], b: [number, number]): [number, number] => [a[0] - b[0], a[1] - b[1]];
    // Everything in the page hangs off globalThis.S; B is the bundle.
    type G = { B: Page; S: Record<string, unknown> };
    const isolated = await tab.evaluate(() => globalThis.crossOriginIsolated);
    await tab.evaluate(
      ([domains, hosts, seeds]) => {
        const g = globalThis as unknown as G;
        g.S = {
          warm: g.B.makeHosts(domains, 1_000, seeds[0]),
          hostSets: g.B.makeHosts(domains, hosts, seeds[1]),
        };
      },
      [DOMAINS, HOSTS, [WARM, BATCHED]] as const,
    );
    const h0 = await heap();
    await tab.evaluate(
      ([domains, allows]) => {
        const g = globalThis as unknown as G;
        g.S.wire = g.B.makeWire(domains, allows);
      },
      [DOMAINS, ALLOWS] as const,
    );
    const wire = minus(await heap(), h0);
    const fromMs: number[] = [];
    for (let i = 0; i < BUILDS; i++) {
      await tab.evaluate(() => {
        (globalThis as unknown as G).S.policy = null;
      });
      await heap();
      fromMs.push(
        await tab.evaluate(() => {
          const g = globalThis as unknown as G;
          const t = performance.now();
          g.S.policy = g.B.DomainPolicy.from(g.S.wire as ReturnType<Page['makeWire']>);
          return performance.now() - t;
        }),
      );
    }
    await tab.evaluate(() => {
      (globalThis as unknown as G).S.wire = null;
    });
    const table = minus(await heap(), h0);
    const counts = await tab.evaluate(() => {
      const p = (globalThis as unknown as G).S.policy as Page['DomainPolicy']['prototype'];
      return { block: p.blockCount, allow: p.allowCount };
    });
    const lookups: LookupRow[] = [];
    const timeLookups = async (structure: 'table' | 'set') => {
      const rows = await tab.evaluate(
        ([structure, batch, rounds]) => {
          const g = globalThis as unknown as G;
          const sets = g.S.hostSets as ReturnType<Page['makeHosts']>;
          const p = g.S.policy as Page['DomainPolicy']['prototype'];
          const s = g.S.sets as ReturnType<Page['buildSets']>;
          const decide =
            structure === 'table' ? (h: string) => p.decide(h) : (h: string) => g.B.setDecide(s, h);
          const warm = g.S.warm as ReturnType<Page['makeHosts']>;
          for (let r = 0; r < 5; r++) for (const set of warm) for (const h of set.hosts) decide(h);
          return sets.map((set) => {
            const r = g.B.timeBatches(decide, set.hosts, batch, rounds, () => performance.now());
            return { labels: set.labels, kind: set.kind, ns: r.ns, found: r.found };
          });
        },
        [structure, BATCH, ROUNDS] as const,
      );
      for (const r of rows) {
        if (structure === 'table' && (r.kind === 'hit') !== (r.found === BATCH * ROUNDS))
          throw new Error('Chromium: a lookup answered wrongly');
        lookups.push({
          structure,
          labels: r.labels,
          kind: r.kind,
          medianNs: median(r.ns),
          p99Ns: pct(r.ns, 99),
          meanNs: r.ns.reduce((a, b) => a + b, 0) / r.ns.length,
        });
      }
    };
    await timeLookups('table');
    await tab.evaluate(() => {
      (globalThis as unknown as G).S.policy = null;
    });

    const h1 = await heap();
    const setMs = await tab.evaluate(
      ([domains, allows]) => {
        const g = globalThis as unknown as G;
        const w = g.B.makeWire(domains, allows);
        const t = performance.now();
        g.S.sets = g.B.buildSets(w);
        return performance.now() - t;
      },
      [DOMAINS, ALLOWS] as const,
    );
    const set = minus(await heap(), h1);
    await timeLookups('set');
    await tab.evaluate(() => {
      (globalThis as unknown as G).S.sets = null;
    });

    await tab.evaluate(
      ([domains, allows]) => {
        const g = globalThis as unknown as G;
        g.S.parts = g.B.policyParts(g.B.makeWire(domains, allows));
      },
      [DOMAINS, ALLOWS] as const,
    );
    await heap();
    const fromParts = await tab.evaluate(() => {
      const g = globalThis as unknown as G;
      const parts = g.S.parts as string[];
      const t = performance.now();
      const p = g.B.buildFromParts(parts);
      return {
        ms: performance.now() - t,
        block: p.blockCount,
        parts: parts.length,
        largest: Math.max(...parts.map((x) => x.length)),
      };
    });
    if (fromParts.block !== counts.block) throw new Error('Chromium: parts lost names');
    return {
      fromMs,
      partsMs: fromParts.ms,
      parts: fromParts.parts,
      largestPart: fromParts.largest,
      setMs,
      table,
      set,
      wire,
      lookups,
      counts,
      version: browser.version(),
      isolated,
    };
  } finally {
    await browser.close();
    server.close();
  }
}

// ——— GET_POLICY end to end: the real server, agent and native host ———

interface EndToEnd {
  parts: number;
  largestFrame: number;
  agentFetchMs: number;
  deliverMs: number;
  names: number;
}

async function measureEndToEnd(): Promise<EndToEnd> {
  const { ALLOW_LOOPBACK, hostsList, ListServer } = await import('../../server/test/blocklists-fixture.js');
  const { createHousehold, startTestServer } = await import('../../server/test/helpers.js');
  const { startApprovedAgent, IpcClient } = await import('../../agent/test/approved-agent.js');
  const { makeSysroot } = await import('../../agent/test/harness.js');
  const { encodeFrame, FrameReader } = await import('../../agent/src/native-host.js');
  const { spawn } = await import('node:child_process');
  const { chmodSync } = await import('node:fs');
  const { root } = await import('./hearth-fixture.js');
  type AgentProcess = InstanceType<typeof import('../../agent/test/harness.js').AgentProcess>;

  const server = await startTestServer({ name: 'sqlite' }, ALLOW_LOOPBACK);
  const lists = await new ListServer().start();
  const sys = makeSysroot([{ username: 'kid', uid: 1000 }]);
  chmodSync(sys.root, 0o755);
  const running: AgentProcess[] = [];
  try {
    const home = await createHousehold(server, 'Bench home');
    const { systemId } = await startApprovedAgent(server, home, sys, running);
    const wire = page.makeWire(DOMAINS, 0);
    const url = lists.set('/million.txt', { body: hostsList(wire.block) });
    const source = await home.client.post('/blocklists/sources/add', { name: 'Million', kind: 'url', url });
    const refreshed = await home.client.post(`/blocklists/sources/${source.body.id}/refresh`, {});
    if (refreshed.status !== 200) throw new Error(`refresh: ${refreshed.status} ${refreshed.text}`);
    const child = (await home.client.post('/api/user/create', { name: 'Kid' })).body.id as string;
    await home.client.post(`/managed-users/${child}/blocklists/update`, {
      source_ids: [source.body.id],
      allow_domains: wire.allow,
    });
    const socket = path.join(sys.runDir, 'users', '1000', 'ipc.sock');
    const ipc = await IpcClient.connect(socket);
    const t0 = performance.now();
    await home.client.post(`/managed-users/${child}/mappings/add`, {
      system_id: systemId,
      linux_username: 'kid',
    });
    await ipc.next((l) => l.type === 'POLICY_CHANGED');
    const agentFetchMs = performance.now() - t0;
    ipc.close();

    // The native host as Chrome starts it; frames read and sized as they come.
    const host = spawn(
      process.execPath,
      [
        '--conditions=hearth-source',
        '--import',
        'tsx',
        path.join(root, 'agent/src/native-host-main.ts'),
        'chrome-extension://abcdefghijklmnopabcdefghijklmnop/',
      ],
      { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HEARTH_AGENT_IPC_SOCKET: socket } },
    );
    const reader = new FrameReader(16 * 1024 * 1024);
    let largestFrame = 0;
    const waiting = new Map<string, (m: Record<string, unknown>) => void>();
    host.stdout.on('data', (d: Buffer) => {
      for (const m of reader.push(d) ?? []) {
        const message = m as Record<string, unknown>;
        largestFrame = Math.max(largestFrame, Buffer.byteLength(JSON.stringify(message)) + 4);
        waiting.get(String(message.id))?.(message);
      }
    });
    const ask = (part: number) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const id = `p${part}`;
        waiting.set(id, resolve);
        host.stdin.write(encodeFrame({ id, type: 'GET_POLICY', part }));
      });
    // A warm-up round trip starts the host and connects it; then every part, one at a time.
    await ask(0);
    const t1 = performance.now();
    let parts = 1;
    let names = 0;
    for (let part = 0; part < parts; part++) {
      const a = await ask(part);
      if (a.ok === false) throw new Error(`GET_POLICY part ${part}: ${a.error}`);
      parts = Number(a.parts);
      names += (a.block as string[]).length + (a.allow as string[]).length;
    }
    const deliverMs = performance.now() - t1;
    host.stdin.end();
    await new Promise((resolve) => host.once('exit', resolve));
    return { parts, largestFrame, agentFetchMs, deliverMs, names };
  } finally {
    await Promise.all(running.map((p) => p.stop()));
    await lists.close();
    await server.close();
    sys.cleanup();
  }
}

// ——— report ———

async function main(): Promise<void> {
  const { provenance, writeResult } = await import('./hearth-fixture.js');
  // Timings mean little while other work shares the cores; the load average says whether it did.
  const load: number[] = [];
  console.log(`Node: ${DOMAINS.toLocaleString('en-US')} domains…`);
  load.push(loadavg()[0] ?? 0);
  const node = measureNode();
  console.log('Chromium…');
  load.push(loadavg()[0] ?? 0);
  const chrome = await measureChromium();
  let e2e: EndToEnd | null = null;
  if (E2E) {
    console.log('GET_POLICY end to end…');
    load.push(loadavg()[0] ?? 0);
    e2e = await measureEndToEnd();
  }
  load.push(loadavg()[0] ?? 0);
  // The run itself keeps about one core busy; more runnable work than cores means others took a share.
  const busy = Math.max(...load) > cpus().length;
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  const ns = (x: number) => `${x.toFixed(0)} ns`;
  const cost = (m: [number, number]) =>
    `${mib(m[0])} heap + ${mib(m[1])} buffers = **${mib(m[0] + m[1])}** (${perName(m[0] + m[1])} a name)`;
  const lookupRows = (m: Measured, structure: 'table' | 'set') =>
    m.lookups
      .filter((l) => l.structure === structure)
      .map((l) => `| ${l.labels} | ${l.kind} | ${ns(l.medianNs)} | ${ns(l.p99Ns)} | ${ns(l.meanNs)} |`);
  const chromeRows = (structure: 'table' | 'set') =>
    chrome.lookups
      .filter((l) => l.structure === structure)
      .map((l) => `| ${l.labels} | ${l.kind} | ${ns(l.medianNs)} | ${ns(l.p99Ns)} |`);
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    `# Extension: domain policy lookup, ${n(DOMAINS)} blocked + ${n(ALLOWS)} allowed names (issue 17)`,
    '',
    `Names as bench/src/blocklists.ts generates them (one in five under \`ads.\`, eight endings, co.uk among them); ` +
      `${n(node.counts.block)} distinct blocked, ${n(node.counts.allow)} allowed. ` +
      `The table: extension/src/worker/policy.ts (one byte array of the names + an open-addressing table of ` +
      `one Uint32 a slot, the name's offset and a fingerprint of its hash; load ≤ 0.7). The alternative measured ` +
      `beside it: two Set<string>, looked up with a slice of the host per label.`,
    '',
    '| build | Node | Chromium |',
    '| --- | ---: | ---: |',
    `| DomainPolicy.from(lists), median of ${BUILDS} | ${ms(median(node.fromMs))} | ${ms(median(chrome.fromMs))} |`,
    `| from the ${node.parts} GET_POLICY parts (JSON.parse of each + builder.add, largest part ${(node.largestPart / 1024).toFixed(0)} KiB) | ${ms(node.partsMs)} | ${ms(chrome.partsMs)} |`,
    `| new Set(lists) | ${ms(node.setMs)} | ${ms(chrome.setMs)} |`,
    '',
    '| memory, after gc, input lists dropped | Node (heapUsed + arrayBuffers) | Chromium (JS heap + backing stores) |',
    '| --- | --- | --- |',
    `| DomainPolicy | ${cost(node.table)} | ${cost(chrome.table)} |`,
    `| Set<string> (keeps the strings) | ${cost(node.set)} | ${cost(chrome.set)} |`,
    `| the input lists themselves (arrays of strings) | ${cost(node.wire)} | ${cost(chrome.wire)} |`,
    '',
    `Lookups: every host is looked up once while timed (after the JIT warmed up on other hosts), so most ` +
      `lookups start with the table out of the CPU's caches, as a navigation's does. Hits are listed names or ` +
      `names under them; a hit stops at the first block rule with no allow beneath it. Node: each lookup timed ` +
      `alone with performance.now() (the clock's own ${ns(node.clockNs ?? 0)} taken off), ${n(HOSTS)} hosts a row; ` +
      `"mean" from ${ROUNDS} batches of ${n(BATCH)} other hosts.`,
    '',
    '| labels | hosts | DomainPolicy median | p99 | mean |',
    '| ---: | --- | ---: | ---: | ---: |',
    ...lookupRows(node, 'table'),
    '',
    '| labels | hosts | Set<string> median | p99 | mean |',
    '| ---: | --- | ---: | ---: | ---: |',
    ...lookupRows(node, 'set'),
    '',
    `Lookups, Chromium ${chrome.version} (page cross-origin isolated: ${chrome.isolated}, so its clock is fine to 5 µs): ` +
      `the browser cannot time one lookup, so each figure is a batch of ${n(BATCH)} lookups divided by ${n(BATCH)}; ` +
      `median and p99 over the ${ROUNDS} batches of a row.`,
    '',
    '| labels | hosts | DomainPolicy median | p99 |',
    '| ---: | --- | ---: | ---: |',
    ...chromeRows('table'),
    '',
    '| labels | hosts | Set<string> median | p99 |',
    '| ---: | --- | ---: | ---: |',
    ...chromeRows('set'),
    '',
    ...(e2e
      ? [
          `GET_POLICY end to end (the real server, agent and native host on loopback; ${n(DOMAINS)} names in a url source):`,
          '',
          '| step | |',
          '| --- | ---: |',
          `| mapping added → the agent has fetched and kept the policy (POLICY_CHANGED) | ${ms(e2e.agentFetchMs)} |`,
          `| all ${e2e.parts} parts through the native host, one request at a time (${n(e2e.names)} names) | ${ms(e2e.deliverMs)} |`,
          `| largest frame to Chrome | ${(e2e.largestFrame / 1024).toFixed(0)} KiB (limit 1024 KiB) |`,
          '',
        ]
      : []),
    busy
      ? `**The 1-minute load average reached ${Math.max(...load).toFixed(1)} on ${cpus().length} cores during the run ` +
        `(${load.map((l) => l.toFixed(1)).join(', ')} at the phases' starts): other work shared the cores, so the ` +
        `times are high and noisy; the memory figures do not depend on it.**`
      : `Load average (1 min) at the phases' starts: ${load.map((l) => l.toFixed(1)).join(', ')} on ${cpus().length} ` +
        'cores (the run itself accounts for about 1).',
    '',
    ...provenance(),
    `- Node: child process with --expose-gc; memory from process.memoryUsage() after two gc() calls.`,
    `- Chromium: ${CHROMIUM} headless via playwright-core (--no-sandbox --disable-gpu --disable-background-networking ` +
      `--disable-component-update --disable-sync); policy.ts bundled by esbuild into a loopback page; ` +
      `HeapProfiler.collectGarbage (twice), then Runtime.getHeapUsage (usedSize + backingStorageSize).`,
  ];
  writeResult('extension-policy', lines);
}

if (process.argv.includes('--node-child')) nodeChild();
else {
  const { run } = await import('./hearth-fixture.js');
  run(main);
}
