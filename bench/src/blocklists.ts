// Issue 15's benchmark: a generated 1,000,000-domain hosts list served from a loopback server —
// the refresh (fetch, parse, normalise, store, recompile the children using it) time and the server's
// peak RSS, the gzip size and serve time of that policy to an agent, and GET /api/managed-users/<id>/
// domain-check against a bare Fastify route answering the same JSON. `npm run bench:blocklists`.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  cleanEnv,
  type Hearth,
  ownerCall,
  provenance,
  root,
  run,
  seedDevices,
  startHearth,
  writeResult,
} from './hearth-fixture.js';
import { loadOptionsFromEnv, measureInTurns, median, roundRatios } from './load.js';
import { type Child, freePort, spawnNode, stopChild, waitForOk } from './processes.js';

const OPTIONS = loadOptionsFromEnv();
const DOMAINS = Number(process.env.BLOCKLIST_DOMAINS ?? 1_000_000);
const REFRESHES = Number(process.env.BLOCKLIST_REFRESHES ?? 5);
const CHILDREN = Number(process.env.BLOCKLIST_CHILDREN ?? 3);
const SERVES = 20;
const TLDS = ['com', 'net', 'org', 'io', 'de', 'info', 'co.uk', 'fr'];
/** DESIGN §8: a fetched list may be at most 20 MiB, decoded. */
const FETCH_CAP = 20 * 1024 * 1024;

/**
 * A hosts list of `count` distinct domains in the usual style (a header, the machine's own names,
 * `0.0.0.0 name` lines). `salt` changes one domain in a hundred, so two salts are two contents.
 */
function hostsList(count: number, salt: number): Buffer {
  const lines = [
    '# Title: generated benchmark list',
    `# Entries: ${count}`,
    '127.0.0.1 localhost',
    '::1 localhost ip6-localhost ip6-loopback',
    '0.0.0.0 0.0.0.0',
    '',
  ];
  for (let i = 0; i < count; i++) {
    const mixed = (Math.imul(i, 2654435761) >>> 0).toString(36);
    const label = i % 100 === 7 ? `${mixed}s${salt}` : mixed;
    lines.push(`0.0.0.0 ${i % 5 === 0 ? 'ads.' : ''}${label}.${TLDS[i % TLDS.length]}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'latin1');
}

/** Resident memory of a process now and at its peak (kB), from /proc. */
function memoryOf(pid: number): { rssKb: number; peakKb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssKb: field('VmRSS'), peakKb: field('VmHWM') };
}

/** Resets a process's peak RSS to its current RSS (Linux clear_refs 5), so a peak is one phase's. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** One GET with raw bytes (no decoding), timed. */
function rawGet(url: string, headers: Record<string, string>) {
  const started = performance.now();
  return new Promise<{ status: number; bytes: Buffer; ms: number; encoding: string | undefined }>(
    (resolve, reject) => {
      httpRequest(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            bytes: Buffer.concat(chunks),
            ms: performance.now() - started,
            encoding: res.headers['content-encoding'],
          }),
        );
      })
        .on('error', reject)
        .end();
    },
  );
}

interface SourceItem {
  id: string;
  domain_count: number;
  last_attempt_at: string | null;
  last_error: string | null;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ms = (x: number) => x.toFixed(0);

/** What one server's refreshes measured. */
interface RefreshPhase {
  hearth: Hearth;
  source: string;
  children: string[];
  domainCount: number;
  firstMs: number;
  refreshMs: number[];
  notModifiedMs: number;
  versions: number[];
  idleKb: number;
  /** Peak RSS from the start through the first fetch and the assignments. */
  firstPeakKb: number;
  /** Peak RSS over the refreshes (reset before them when the kernel lets us). */
  peakKb: number;
  peakReset: boolean;
  afterKb: number;
}

/**
 * Starts Hearth (with `env`), adds the url source and waits for its first fetch, has the children use
 * it, then times REFRESHES refreshes that each change the content and one answered 304.
 */
async function refreshPhase(
  name: string,
  env: Record<string, string>,
  list: ListServer,
): Promise<RefreshPhase> {
  const hearth = await startHearth(name, { HEARTH_FETCH_ALLOW_CIDRS: '127.0.0.0/8', ...env });
  try {
    const idle = memoryOf(hearth.pid);
    const children: string[] = [];
    for (let i = 0; i < CHILDREN; i++)
      children.push(
        (await ownerCall<{ id: string }>(hearth, 'POST', '/api/user/create', { name: `Kid ${i}` })).id,
      );
    // The first fetch runs by itself after the 201; wait for it through the list.
    const firstStarted = performance.now();
    const source = await ownerCall<{ id: string }>(hearth, 'POST', '/blocklists/sources/add', {
      name: 'Generated million',
      kind: 'url',
      url: list.url,
    });
    let first: SourceItem | undefined;
    for (;;) {
      const items = (await ownerCall<{ items: SourceItem[] }>(hearth, 'GET', '/api/blocklists/sources'))
        .items;
      first = items.find((s) => s.id === source.id);
      if (first?.last_attempt_at) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const firstMs = performance.now() - firstStarted;
    if (first?.last_error) throw new Error(`first fetch failed: ${first.last_error}`);
    // Children use it: one as it is, one with own entries, one with an allow (lines it covers marked).
    for (const [i, child] of children.entries())
      await ownerCall(hearth, 'POST', `/managed-users/${child}/blocklists/update`, {
        source_ids: [source.id],
        ...(i === 1 ? { block_domains: ['extra.example'] } : {}),
        ...(i === 2 ? { allow_domains: ['example.com', 'com'] } : {}),
      });
    const firstPeakKb = memoryOf(hearth.pid).peakKb;
    const peakReset = resetPeak(hearth.pid);
    const refreshMs: number[] = [];
    for (let r = 0; r < REFRESHES; r++) {
      list.next();
      const started = performance.now();
      const result = await ownerCall<{ changed: boolean }>(
        hearth,
        'POST',
        `/blocklists/sources/${source.id}/refresh`,
        {},
      );
      refreshMs.push(performance.now() - started);
      if (!result.changed) throw new Error('a refresh with new content reported no change');
    }
    const peak = memoryOf(hearth.pid);
    const versions = await Promise.all(
      children.map(
        async (c) =>
          (await ownerCall<{ version: number }>(hearth, 'GET', `/api/managed-users/${c}/blocklists`)).version,
      ),
    );
    const notModifiedStarted = performance.now();
    const unchanged = await ownerCall<{ changed: boolean }>(
      hearth,
      'POST',
      `/blocklists/sources/${source.id}/refresh`,
      {},
    );
    const notModifiedMs = performance.now() - notModifiedStarted;
    if (unchanged.changed) throw new Error('a 304 refresh reported a change');
    return {
      hearth,
      source: source.id,
      children,
      domainCount: first?.domain_count ?? 0,
      firstMs,
      refreshMs,
      notModifiedMs,
      versions,
      idleKb: idle.rssKb,
      firstPeakKb,
      peakKb: peak.peakKb,
      peakReset,
      afterKb: memoryOf(hearth.pid).rssKb,
    };
  } catch (err) {
    await hearth.stop();
    throw err;
  }
}

/** The list on loopback, alternating between two contents (each `next` changes it). */
interface ListServer {
  url: string;
  next(): void;
  close(): void;
}

async function listServer(variants: Buffer[]): Promise<ListServer> {
  let current = 0;
  const etags = variants.map((v) => `"${createHash('sha1').update(v).digest('hex').slice(0, 16)}"`);
  const server = createServer((req, res) => {
    const etag = etags[current] as string;
    if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
    res.writeHead(200, { 'content-type': 'text/plain', etag }).end(variants[current]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hosts.txt`,
    next: () => {
      current = 1 - current;
    },
    close: () => server.close(),
  };
}

run(async () => {
  let hearth: Hearth | null = null;
  let bare: Child | null = null;
  const variants = [hostsList(DOMAINS, 1), hostsList(DOMAINS, 2)];
  for (const v of variants)
    if (v.length > FETCH_CAP) throw new Error(`the generated list is ${mb(v.length)}, over the fetch cap`);
  const list = await listServer(variants);
  try {
    // glibc's per-thread arenas keep freed memory; MALLOC_ARENA_MAX=2 (set by `npm start`, docs/operations.md)
    // bounds that.
    const capped = await refreshPhase('blocklists-arenas', { MALLOC_ARENA_MAX: '2' }, list);
    await capped.hearth.stop();
    const phase = await refreshPhase('blocklists', {}, list);
    hearth = phase.hearth;
    const { children, domainCount, refreshMs } = phase;

    // An agent of the first child fetches the policy: the first answer compresses, the next are kept.
    const [device] = await seedDevices(hearth, 1, { mapTo: children[0] });
    const policyUrl = `${hearth.baseUrl}/api/agent/domain-policy?linux_username=kid`;
    const auth = { authorization: `Bearer ${device?.token}` };
    const cold = await rawGet(policyUrl, { ...auth, 'accept-encoding': 'gzip' });
    if (cold.status !== 200 || cold.encoding !== 'gzip') throw new Error(`policy fetch: ${cold.status}`);
    const warm: number[] = [];
    for (let i = 0; i < SERVES; i++)
      warm.push((await rawGet(policyUrl, { ...auth, 'accept-encoding': 'gzip' })).ms);
    const plain = await rawGet(policyUrl, auth);
    const version = JSON.parse(plain.bytes.toString('utf8')).version as number;
    const notModified = await rawGet(policyUrl, { ...auth, 'if-none-match': `"${version}"` });
    if (notModified.status !== 304) throw new Error(`If-None-Match answered ${notModified.status}`);

    // The domain check of a name under a listed one, against a bare route with the same answer.
    const sample = plain.bytes.toString('latin1').match(/"block":\["([^"]+)"/)?.[1] ?? 'example.com';
    const checkPath = `/api/managed-users/${children[0]}/domain-check?domain=cdn.${sample}`;
    const answer = await (await fetch(`${hearth.baseUrl}${checkPath}`, { headers: hearth.owner })).text();
    if (!answer.includes('"blocked":true')) throw new Error(`unexpected check answer ${answer}`);
    const barePort = await freePort();
    const barePath = path.join(hearth.dataDir, 'bare.mjs');
    writeFileSync(
      barePath,
      `import Fastify from '${import.meta.resolve('fastify')}';
const app = Fastify({ logger: false });
const body = ${answer};
app.get('/api/managed-users/:id/domain-check', async () => body);
await app.listen({ port: ${barePort}, host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
`,
    );
    bare = spawnNode('bare', [barePath], { cwd: root, env: cleanEnv() });
    await waitForOk(bare, `http://127.0.0.1:${barePort}${checkPath}`);
    const session = { cookie: hearth.owner.cookie };
    const [baseline, measured] = await measureInTurns(
      [
        { label: 'bare', url: `http://127.0.0.1:${barePort}${checkPath}`, headers: session },
        { label: 'check', url: `${hearth.baseUrl}${checkPath}`, headers: session },
      ],
      OPTIONS,
      { round: (n) => console.log(`# round ${n} of ${OPTIONS.rounds}`) },
    );
    if (!baseline || !measured) throw new Error('no measurement');
    const ratios = roundRatios(measured, baseline);
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    const sortedRefresh = [...refreshMs].sort((a, b) => a - b);
    const mbOf = (kb: number) => (kb / 1024).toFixed(0);
    const memoryRow = (label: string, p: RefreshPhase) =>
      `| ${label} | ${ms(median(p.refreshMs))} ms | ${mbOf(p.idleKb)} MB | ${mbOf(p.firstPeakKb)} MB | **${mbOf(p.peakKb)} MB** | ${mbOf(p.afterKb)} MB |`;
    writeResult('blocklists', [
      `# Blocklists: a ${DOMAINS.toLocaleString('en')}-domain hosts list`,
      '',
      `List: ${mb((variants[0] as Buffer).length)} of hosts lines (under the 20 MiB fetch cap), ${domainCount.toLocaleString('en')} distinct domains stored; ${CHILDREN} children use it (one as is, one with an own entry, one with allows that lift every .com entry).`,
      '',
      '| step | time |',
      '| --- | ---: |',
      `| first fetch after the 201 (fetch, parse, normalise, store; no child yet) | ${ms(phase.firstMs)} ms |`,
      `| refresh with changed content (fetch, parse, normalise, store, recompile ${CHILDREN} children), median of ${REFRESHES} | ${ms(median(refreshMs))} ms |`,
      `| … slowest of the ${REFRESHES} | ${ms(sortedRefresh.at(-1) ?? 0)} ms |`,
      `| refresh answered 304 (nothing changes) | ${ms(phase.notModifiedMs)} ms |`,
      '',
      `Versions after ${REFRESHES} changing refreshes and one 304: ${phase.versions.join(', ')}.`,
      '',
      '| server memory (RSS) | refresh (median) | at rest before | peak to the first fetch | peak over the refreshes | after |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      memoryRow('glibc defaults', phase),
      memoryRow('MALLOC_ARENA_MAX=2 (what `npm start` sets)', capped),
      '',
      `Refresh **${ms(median(refreshMs))} ms** median (target ≤ 3 s); peak RSS over the refreshes **${mbOf(phase.peakKb)} MB** with glibc's defaults, **${mbOf(capped.peakKb)} MB** with MALLOC_ARENA_MAX=2, as \`npm start\` runs the server (target ≤ 300 MB)${phase.peakReset ? '' : '; peaks since start: clear_refs was refused'}.`,
      '',
      '| agent fetch of the policy | |',
      '| --- | ---: |',
      `| JSON size | ${mb(plain.bytes.length)} |`,
      `| gzip size | ${mb(cold.bytes.length)} |`,
      `| first gzip answer (compresses once per version and account) | ${ms(cold.ms)} ms |`,
      `| later gzip answers, median of ${SERVES} | ${median(warm).toFixed(1)} ms |`,
      `| uncompressed answer | ${ms(plain.ms)} ms |`,
      `| If-None-Match → 304 | ${notModified.ms.toFixed(1)} ms |`,
      '',
      '| route | requests/s | p50 (ms) | p99 (ms) | requests |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| bare Fastify route, same JSON | ${baseline.requestsPerSecond.toFixed(0)} | ${baseline.latencyP50.toFixed(2)} | ${baseline.latencyP99.toFixed(2)} | ${baseline.requests.toLocaleString('en')} |`,
      `| GET domain-check (session; a name under a listed one, 1 source of ${domainCount.toLocaleString('en')}) | ${measured.requestsPerSecond.toFixed(0)} | ${measured.latencyP50.toFixed(2)} | ${measured.latencyP99.toFixed(2)} | ${measured.requests.toLocaleString('en')} |`,
      '',
      `Check / bare: **${pct(measured.requestsPerSecond / baseline.requestsPerSecond)}**; round by round: ${ratios.map(pct).join(', ')} (median ${pct(median(ratios))}).`,
      '',
      ...provenance(),
      `- Server: compiled server/dist, SQLite, log level warn, no worker; the list served by a loopback server in the benchmark process (reached through HEARTH_FETCH_ALLOW_CIDRS=127.0.0.0/8); RSS from /proc (VmRSS, VmHWM; the peak reset with clear_refs before the refreshes); the same phase run on a second server with MALLOC_ARENA_MAX=2; autocannon ${OPTIONS.connections} connections, a ${OPTIONS.warmup} s warm-up per route, then ${OPTIONS.rounds} rounds of ${OPTIONS.duration} s each in turn.`,
    ]);
  } finally {
    if (bare) await stopChild(bare);
    await hearth?.stop();
    list.close();
  }
});
