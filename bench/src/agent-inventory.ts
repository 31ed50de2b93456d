// Issue 16's agent inventory benchmark: a system of 500 .desktop files with icons (PNG in several
// hicolor sizes, SVG, pixmaps, some without), scanned by the agent's own collector in a child process:
// the first scan (everything rastered), a rescan (icons from the cache), the child's RSS after each,
// and the longest event-loop stall during the first scan. `npm run bench:agent-inventory`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { InventoryCollector } from '../../agent/src/inventory/inventory.js';

const ENTRIES = Number(process.env.AGENT_INVENTORY_ENTRIES ?? 500);
const ACCOUNTS = [
  { username: 'ann', home: '/home/ann' },
  { username: 'ben', home: '/home/ben' },
];

const color = (seed: string, at: number) =>
  `#${createHash('md5')
    .update(seed)
    .digest('hex')
    .slice(at, at + 6)}`;
const svgOf = (seed: string, side: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}" viewBox="0 0 48 48">` +
  `<rect x="2" y="2" width="44" height="44" rx="9" fill="${color(seed, 0)}"/>` +
  `<path d="M10 30 L24 8 L38 30 Z" fill="${color(seed, 6)}"/><circle cx="24" cy="32" r="9" fill="${color(seed, 12)}" opacity="0.8"/></svg>`;

function render(svg: string, side: number): Buffer {
  const r = new Resvg(svg, { fitTo: { mode: 'width', value: side } });
  const img = r.render();
  const png = Buffer.from(img.asPng());
  img.free();
  r.free();
  return png;
}

function put(root: string, file: string, data: string | Buffer, mode?: number): void {
  const target = path.join(root, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, data);
  if (mode !== undefined) chmodSync(target, mode);
}

/** The system: entry i has a PNG theme icon (i % 10 < 4), an SVG (< 8), a pixmap (< 9) or none. */
async function buildSystem(root: string): Promise<void> {
  await initWasm(readFileSync(fileURLToPath(import.meta.resolve('@resvg/resvg-wasm/index_bg.wasm'))));
  put(
    root,
    '/etc/passwd',
    ACCOUNTS.map((a, i) => `${a.username}:x:${1000 + i}:${1000 + i}::${a.home}:/bin/bash`).join('\n'),
  );
  put(
    root,
    '/usr/share/icons/hicolor/index.theme',
    '[Icon Theme]\nName=Hicolor\nDirectories=16x16/apps,32x32/apps,48x48/apps,128x128/apps,scalable/apps\n' +
      [16, 32, 48, 128].map((s) => `\n[${s}x${s}/apps]\nSize=${s}\nType=Threshold\n`).join('') +
      '\n[scalable/apps]\nSize=128\nMinSize=1\nMaxSize=256\nType=Scalable\n',
  );
  for (let i = 0; i < ENTRIES; i++) {
    const name = `bench-app-${i}`;
    const kind = i % 10;
    put(root, `/usr/bin/${name}`, '#!/bin/sh\n', 0o755);
    const exec =
      i % 3 === 0 ? `env A=1 ${name} --flag %U` : i % 3 === 1 ? `/usr/bin/${name} %f` : `"/usr/bin/${name}"`;
    put(
      root,
      `/usr/share/applications/${i % 7 === 0 ? 'sub/' : ''}${name}.desktop`,
      `[Desktop Entry]\nType=Application\nName=Bench App ${i}\nName[de]=Testprogramm ${i}\nExec=${exec}\nIcon=${name}\nCategories=Utility;\n`,
    );
    const svg = svgOf(name, 48);
    if (kind < 4)
      for (const side of [16, 32, 48, 128])
        put(
          root,
          `/usr/share/icons/hicolor/${side}x${side}/apps/${name}.png`,
          render(svgOf(name, side), side),
        );
    else if (kind < 8) put(root, `/usr/share/icons/hicolor/scalable/apps/${name}.svg`, svg);
    else if (kind < 9) put(root, `/usr/share/pixmaps/${name}.png`, render(svgOf(name, 256), 256));
  }
}

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
    await buildSystem(root);
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
