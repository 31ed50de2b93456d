// The system tree the agent benchmarks scan: .desktop files with icons (PNG in several hicolor sizes,
// SVG, pixmaps, some without), an /etc/passwd with the accounts and their homes, under one root that
// the agent reads as its HEARTH_AGENT_SYSROOT.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initWasm, Resvg } from '@resvg/resvg-wasm';

export interface TreeAccount {
  username: string;
  home: string;
}

export const BENCH_ACCOUNTS: TreeAccount[] = [
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

let wasmReady: Promise<void> | null = null;

/**
 * Writes the system under `root`: entry i has a PNG theme icon (i % 10 < 4), an SVG (< 8), a pixmap
 * (< 9) or none; the accounts get uids from 1000, a login shell and an empty home.
 */
export async function buildDesktopTree(
  root: string,
  entries: number,
  accounts: TreeAccount[] = BENCH_ACCOUNTS,
): Promise<void> {
  wasmReady ??= initWasm(readFileSync(fileURLToPath(import.meta.resolve('@resvg/resvg-wasm/index_bg.wasm'))));
  await wasmReady;
  put(
    root,
    '/etc/passwd',
    `${accounts.map((a, i) => `${a.username}:x:${1000 + i}:${1000 + i}::${a.home}:/bin/bash`).join('\n')}\n`,
  );
  for (const a of accounts) mkdirSync(path.join(root, a.home), { recursive: true });
  put(
    root,
    '/usr/share/icons/hicolor/index.theme',
    '[Icon Theme]\nName=Hicolor\nDirectories=16x16/apps,32x32/apps,48x48/apps,128x128/apps,scalable/apps\n' +
      [16, 32, 48, 128].map((s) => `\n[${s}x${s}/apps]\nSize=${s}\nType=Threshold\n`).join('') +
      '\n[scalable/apps]\nSize=128\nMinSize=1\nMaxSize=256\nType=Scalable\n',
  );
  for (let i = 0; i < entries; i++) {
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
