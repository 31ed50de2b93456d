// Issue 16's agent inventory benchmark: a system of 500 .desktop files with icons (PNG in several
// hicolor sizes, SVG, pixmaps, some without), scanned by the agent's own collector in a child process:
// the first scan (everything rastered), a rescan (icons from the cache), the child's RSS after each,
// and the longest event-loop stall during the first scan. `npm run bench:agent-inventory`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { InventoryCollector } from '../../agent/src/inventory/inventory.js';
import { BENCH_ACCOUNTS, buildDesktopTree } from './desktop-tree.js';

const ENTRIES = Number(process.env.AGENT_INVENTORY_ENTRIES ?? 500);
const ACCOUNTS = BENCH_ACCOUNTS;

async function child(root: string): Promise<void> {
  const paths = { stateDir: path.join(root, 'state'), runDir: path.join(root, 'run'), sysroot: root };
  const collector = new InventoryCollector(paths, { PATH: '/usr/bin:/bin' });
  const rss = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
  const rssStart = rss();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let t = performance.now();
  const first = await collector.collect(ACCOUNTS);
  const coldMs = performance.now() - t;
  delay.disable();
  const rssCold = rss();
  t = performance.now();
  await collector.collect(ACCOUNTS);
  const warmMs = performance.now() - t;
  const rssWarm = rss();
  const icons = new Set(first.flatMap((inv) => [...inv.icons.keys()]));
  const iconBytes = [...new Map(first.flatMap((inv) => [...inv.icons])).values()].reduce(
    (n, b) => n + b.length,
    0,
  );
  console.log(
    JSON.stringify({
      apps: first[0]?.apps.length,
      icons: icons.size,
      iconBytes,
      coldMs,
      warmMs,
      rssStart,
      rssCold,
      rssWarm,
      maxStallMs: delay.max / 1e6,
      p99StallMs: delay.percentile(99) / 1e6,
    }),
  );
}

async function main(): Promise<void> {
  // The fixture module loads the server's code; the child that is measured must not.
  const { provenance, writeResult } = await import('./hearth-fixture.js');
  const root = mkdtempSync(path.join(tmpdir(), 'hearth-bench-inventory-'));
  try {
    let t = performance.now();
    await buildDesktopTree(root, ENTRIES, ACCOUNTS);
    console.log(`built ${ENTRIES} entries in ${Math.round(performance.now() - t)} ms`);
    t = performance.now();
    const r = spawnSync(
      process.execPath,
      ['--conditions=hearth-source', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', root],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    if (r.status !== 0) throw new Error(`the scan child failed (${r.status})`);
    const m = JSON.parse(r.stdout.trim().split('\n').pop() as string);
    writeResult('agent-inventory', [
      `### Agent inventory scan: ${ENTRIES} .desktop files, ${ACCOUNTS.length} accounts`,
      '',
      ...provenance(),
      `- nproc: ${cpus().length}`,
      '',
      '| Measure | Value |',
      '|---|---|',
      `| Apps an account / distinct icons rastered | ${m.apps} / ${m.icons} (${Math.round(m.iconBytes / 1024)} KiB of PNG) |`,
      `| First scan (parse, resolve, raster every icon) | ${Math.round(m.coldMs)} ms |`,
      `| Rescan (icons from the cache) | ${Math.round(m.warmMs)} ms |`,
      `| Longest event-loop stall during the first scan (p99) | ${m.maxStallMs.toFixed(1)} ms (${m.p99StallMs.toFixed(1)} ms) |`,
      `| RSS: after start-up → after first scan → after rescan | ${m.rssStart} → ${m.rssCold} → ${m.rssWarm} MiB |`,
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child')
  child(process.argv[3] as string).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
else void import('./hearth-fixture.js').then(({ run }) => run(main));
