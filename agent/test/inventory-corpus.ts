// The inventory corpus (fixtures/xdg) laid into a sysroot, with what git should not hold: the programs
// the entries start, dpkg's database, and the raster icons, rendered here from small SVGs.
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { Resvg } from '@resvg/resvg-wasm';
import { loadRasterer } from '../src/inventory/icons.js';
import { AGENT_DIR } from './harness.js';

export const CORPUS = path.join(AGENT_DIR, 'test/fixtures/xdg');

/** Programs the corpus's entries start (as stub scripts). */
export const PROGRAMS = [
  '/usr/lib/firefox-esr/firefox-esr',
  '/usr/bin/libreoffice',
  '/usr/bin/gimp-2.10',
  '/usr/local/bin/gimp',
  '/usr/bin/vlc',
  '/usr/games/steam',
  '/opt/minecraft-launcher/minecraft-launcher',
  '/opt/My Games/Star Runner/run game.sh',
  '/usr/bin/sh',
  '/usr/bin/bash',
  '/usr/bin/file-roller',
  '/usr/bin/gnome-calculator',
  '/usr/bin/gnome-text-editor',
  '/usr/bin/kate',
  '/usr/games/supertux2',
  '/usr/games/supertuxkart',
  '/usr/games/minetest',
  '/usr/games/0ad',
  '/usr/games/checkers',
  '/usr/bin/tuxpaint',
  '/usr/bin/thunderbird',
  '/usr/bin/chromium',
  '/usr/share/code/code',
  '/usr/share/discord/Discord',
  '/usr/bin/inkscape',
  '/usr/bin/krita',
  '/usr/bin/audacity',
  '/usr/bin/obs',
  '/usr/bin/blender',
  '/usr/bin/percent-tool',
  '/usr/bin/gnome-terminal',
  '/usr/bin/htop',
  '/usr/lib/godot/godot3.bin',
  '/opt/Scratch 3/scratch-desktop',
  '/usr/bin/broken-icon-app',
  '/usr/bin/bomb-icon-app',
  '/usr/bin/big-icon-app',
  '/usr/bin/flatpak',
  '/usr/bin/snap',
  '/usr/bin/wine',
  '/home/ann/.itch/itch',
];

/** Links, which the identifier keeps as found. */
const LINKS: [string, string][] = [
  ['/usr/bin/godot3', '/usr/lib/godot/godot3.bin'],
  ['/snap/bin/spotify', '/usr/bin/snap'],
];

const PACKAGES = [
  {
    pkg: 'firefox-esr',
    arch: '',
    version: '115.9.1esr-1~deb12u1',
    files: ['/usr/lib/firefox-esr/firefox-esr', '/usr/share/applications/firefox-esr.desktop'],
  },
  {
    pkg: 'libreoffice-writer',
    arch: '',
    version: '4:7.4.7-1+deb12u1',
    files: ['/usr/share/applications/libreoffice-writer.desktop'],
  },
  { pkg: 'libreoffice-common', arch: '', version: '4:7.4.7-1+deb12u1', files: ['/usr/bin/libreoffice'] },
  {
    pkg: 'gimp',
    arch: '',
    version: '2.10.34-1+deb12u2',
    files: ['/usr/bin/gimp-2.10', '/usr/share/applications/gimp.desktop'],
  },
  { pkg: 'vlc-bin', arch: '', version: '3.0.20-0+deb12u1', files: ['/usr/bin/vlc'] },
  {
    pkg: 'steam-installer',
    arch: 'i386',
    version: '1:1.0.0.79~ds-2',
    files: ['/usr/games/steam', '/usr/share/applications/steam.desktop'],
  },
  { pkg: 'bash', arch: 'amd64', version: '5.2.15-2+b2', files: ['/bin/bash'] },
  { pkg: 'htop', arch: '', version: '3.2.2-2', files: ['/usr/bin/htop'], removed: true },
];

const color = (seed: string, at: number) =>
  `#${createHash('md5')
    .update(seed)
    .digest('hex')
    .slice(at, at + 6)}`;
export const iconSvg = (seed: string, side = 48) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}" viewBox="0 0 48 48">` +
  `<rect x="2" y="2" width="44" height="44" rx="9" fill="${color(seed, 0)}"/>` +
  `<circle cx="24" cy="24" r="12" fill="${color(seed, 6)}"/></svg>`;

/** A PNG from RGBA pixels (filter 0 rows), for images resvg should not make: noise, lies, garbage. */
export function encodePng(width: number, height: number, rgba: Buffer, declared = { width, height }): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(declared.width, 0);
  ihdr.writeUInt32BE(declared.height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++)
    rgba.copy(rows, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/** Deterministic noise (a PNG that compresses badly). */
export function noise(width: number, height: number, seed = 1): Buffer {
  const out = Buffer.alloc(width * height * 4);
  let x = seed;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = (i & 3) === 3 ? 255 : x >>> 24;
  }
  return out;
}

const write = (root: string, file: string, data: string | Buffer, mode?: number) => {
  const target = path.join(root, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, data);
  if (mode !== undefined) chmodSync(target, mode);
};

/** PNG icons rendered from a seed at each size. */
const PNG_ICONS: [string, string, number[]][] = [
  ['/usr/share/icons/hicolor/%/apps/firefox-esr.png', 'firefox', [16, 32, 48, 128]],
  ['/usr/share/icons/hicolor/%/apps/libreoffice-writer.png', 'writer', [16, 32, 48, 256]],
  ['/usr/share/icons/hicolor/%/apps/libreoffice-calc.png', 'calc', [32, 128]],
  ['/usr/share/icons/hicolor/%/apps/libreoffice-startcenter.png', 'startcenter', [24]],
  ['/usr/share/icons/hicolor/%/apps/steam.png', 'steam', [16, 24, 32, 48, 256]],
  ['/usr/share/icons/hicolor/%/apps/thunderbird.png', 'thunderbird', [48]],
  ['/usr/share/icons/hicolor/%/apps/chromium.png', 'chromium', [48, 256]],
  ['/usr/share/icons/hicolor/%/apps/supertuxkart.png', 'stk', [32, 128]],
  ['/usr/share/icons/hicolor/%/apps/minetest.png', 'minetest', [128]],
  ['/usr/share/icons/hicolor/%/apps/kate.png', 'kate', [16]],
  ['/usr/share/icons/hicolor/%/apps/krita.png', 'krita', [48]],
  ['/opt/minecraft-launcher/icon.png', 'minecraft', [128]],
  ['/usr/share/pixmaps/star-runner.png', 'star-runner', [64]],
  ['/snap/spotify/current/usr/share/spotify/icons/spotify-linux-128.png', 'spotify', [128]],
  [
    '/home/ann/.local/share/flatpak/exports/share/icons/hicolor/%/apps/io.github.ann.Sketch.png',
    'sketch',
    [48],
  ],
];

/** Copies the corpus into `root` and adds the programs, dpkg's database and the raster icons. */
export async function materialiseCorpus(root: string): Promise<void> {
  cpSync(CORPUS, root, { recursive: true });
  for (const program of PROGRAMS) write(root, program, '#!/bin/sh\nexit 0\n', 0o755);
  for (const [link, target] of LINKS) {
    mkdirSync(path.join(root, path.dirname(link)), { recursive: true });
    symlinkSync(target.startsWith('/') ? path.join(root, target) : target, path.join(root, link));
  }
  const status = PACKAGES.map(
    (p) =>
      `Package: ${p.pkg}\nStatus: ${p.removed ? 'deinstall ok config-files' : 'install ok installed'}\n` +
      `${p.arch ? `Architecture: ${p.arch}\n` : ''}Version: ${p.version}\nDescription: ${p.pkg}\n`,
  ).join('\n');
  write(root, '/var/lib/dpkg/status', status);
  for (const p of PACKAGES)
    write(
      root,
      `/var/lib/dpkg/info/${p.pkg}${p.arch ? `:${p.arch}` : ''}.list`,
      `/.\n/usr\n${p.files.join('\n')}\n`,
    );

  for (const [pattern, seed, sizes] of PNG_ICONS)
    for (const size of sizes) {
      const { png } = await renderSvg(iconSvg(seed, size));
      write(root, pattern.replace('%', `${size}x${size}`), png);
    }
  // A compressed SVG, an undecodable PNG, a PNG whose header claims a bomb, and a huge noisy PNG.
  write(
    root,
    '/usr/share/icons/hicolor/scalable/apps/org.gnome.TextEditor.svgz',
    gzipSync(
      readFileSync(path.join(CORPUS, 'usr/share/icons/hicolor/scalable/apps/org.gnome.Calculator.svg')),
    ),
  );
  write(
    root,
    '/usr/share/icons/hicolor/48x48/apps/broken-icon-app.png',
    Buffer.concat([encodePng(2, 2, noise(2, 2)).subarray(0, 33), Buffer.from('garbage that is no IDAT')]),
  );
  write(
    root,
    '/usr/share/icons/hicolor/48x48/apps/bomb-icon-app.png',
    encodePng(4, 4, noise(4, 4), { width: 100_000, height: 100_000 }),
  );
  write(root, '/usr/share/pixmaps/big-icon-app.png', encodePng(1024, 1024, noise(1024, 1024)));
}

async function renderSvg(svg: string): Promise<{ png: Buffer }> {
  await loadRasterer();
  const side = Number(/width="(\d+)"/.exec(svg)?.[1] ?? 48);
  const r = new Resvg(svg, { fitTo: { mode: 'width', value: side } });
  const img = r.render();
  const png = Buffer.from(img.asPng());
  img.free();
  r.free();
  return { png };
}
