// Icons (freedesktop Icon Theme spec, the parts an inventory needs): an entry's Icon key is found in
// the account's theme, the themes it inherits, hicolor, then pixmaps; the file (PNG or SVG) is
// rastered with resvg to a PNG of at most MAX_ICON_BYTES, trying smaller sizes until it fits.
//
// resvg runs as WebAssembly (@resvg/resvg-wasm) rather than the native addon: the agent ships as one
// esbuild bundle in an architecture-independent Debian package with the .wasm beside it, and a
// decoder fault in a hostile image traps inside the sandbox instead of taking the daemon down.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { gunzipSync } from 'node:zlib';
import { MAX_ICON_BYTES } from '@hearth/protocol';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { parseKeyFile } from './desktop-entry.js';

/** The size looked for in a theme (the spec's lookup size). */
export const LOOKUP_SIZE = 48;
/** Output sizes, largest first; the first whose PNG fits MAX_ICON_BYTES is kept. */
export const OUTPUT_SIZES = [64, 48, 32, 24];
/** Source limits: a bigger file, or a PNG with more pixels a side, is not rastered (decompression bombs). */
const MAX_SOURCE_BYTES = 8 * 1024 * 1024;
const MAX_SVG_BYTES = 4 * 1024 * 1024;
export const MAX_SOURCE_SIDE = 2048;
const EXTENSIONS = ['png', 'svg', 'svgz'] as const;

export interface IconPng {
  png: Buffer;
  hash: string;
}

let wasmReady: Promise<void> | null = null;

/** The resvg module: HEARTH_AGENT_RESVG_WASM, else the package's file, else `resvg.wasm` beside this bundle. */
export function loadRasterer(): Promise<void> {
  if (!wasmReady) {
    const candidates = [process.env.HEARTH_AGENT_RESVG_WASM];
    try {
      candidates.push(createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm'));
    } catch {
      // bundled: the file sits beside the bundle
    }
    candidates.push(path.join(path.dirname(fileURLToPath(import.meta.url)), 'resvg.wasm'));
    // Baseline (Liftoff) code only: V8's tier-up recompiles resvg's hot functions with TurboFan on
    // background threads, which for one scan of a few hundred icons costs more time than it saves and
    // leaves some 40 MB of freed compiler memory in malloc's arenas for the life of the daemon
    // (BENCHMARKS.md, "The Linux agent"). resvg is the only WebAssembly in the agent.
    setFlagsFromString('--liftoff-only');
    wasmReady = (async () => {
      let lastError: unknown;
      for (const file of candidates) {
        if (!file) continue;
        try {
          await initWasm(readFileSync(file));
          return;
        } catch (err) {
          lastError = err;
        }
      }
      throw new Error(`resvg wasm not found: ${String(lastError)}`);
    })();
  }
  return wasmReady;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR, or null when the bytes do not start like a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_SIGNATURE) || b.toString('latin1', 12, 16) !== 'IHDR')
    return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

const sideOk = (s: { width: number; height: number } | null) =>
  !!s && s.width > 0 && s.height > 0 && s.width <= MAX_SOURCE_SIDE && s.height <= MAX_SOURCE_SIDE;

/**
 * Raster images embedded in an SVG are decoded at full size before scaling, so each must be a PNG
 * whose header says it is small enough; other embedded formats are refused rather than parsed here.
 */
function embeddedImagesOk(svg: string): boolean {
  const re = /data:image\/([a-z+.-]+);base64,\s*([A-Za-z0-9+/\s]{0,64})/gi;
  for (const m of svg.matchAll(re)) {
    if ((m[1] as string).toLowerCase() !== 'png') return false;
    if (!sideOk(pngSize(Buffer.from((m[2] as string).replace(/\s/g, ''), 'base64')))) return false;
  }
  // A link to another file is not followed by resvg-wasm; nothing else to check.
  return true;
}

/** Renders one size; null when nothing visible came out (an image resvg could not decode). */
function renderAt(svg: string | Uint8Array, side: number): Buffer | null {
  const probe = new Resvg(svg, { font: { loadSystemFonts: false } });
  const wide = probe.width >= probe.height;
  probe.free();
  const resvg = new Resvg(svg, {
    fitTo: { mode: wide ? 'width' : 'height', value: side },
    font: { loadSystemFonts: false },
  });
  try {
    const image = resvg.render();
    try {
      const pixels = image.pixels;
      let visible = false;
      for (let i = 3; i < pixels.length; i += 4)
        if (pixels[i] !== 0) {
          visible = true;
          break;
        }
      return visible ? Buffer.from(image.asPng()) : null;
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}

/**
 * A PNG or SVG file's bytes as a PNG of at most MAX_ICON_BYTES: 64, 48, 32 or 24 px (never larger
 * than a PNG source). Throws on anything it will not or cannot raster.
 */
export async function rasterIcon(bytes: Buffer, kind: 'png' | 'svg' | 'svgz'): Promise<IconPng> {
  await loadRasterer();
  let svg: string | Uint8Array;
  let sizes = OUTPUT_SIZES;
  if (kind === 'png') {
    const size = pngSize(bytes);
    if (!size) throw new Error('not a PNG');
    if (!sideOk(size)) throw new Error(`PNG of ${size.width}×${size.height} is too large to raster`);
    const side = Math.max(size.width, size.height);
    sizes = OUTPUT_SIZES.filter((s) => s <= side);
    if (!sizes.length) sizes = [side];
    // resvg has no PNG-to-PNG path; an SVG that holds the image scales it with resvg's filtering.
    svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" ` +
      `viewBox="0 0 ${size.width} ${size.height}"><image width="${size.width}" height="${size.height}" ` +
      `href="data:image/png;base64,${bytes.toString('base64')}"/></svg>`;
  } else {
    const text = kind === 'svgz' ? gunzipSync(bytes, { maxOutputLength: MAX_SVG_BYTES }) : bytes;
    if (text.length > MAX_SVG_BYTES) throw new Error('SVG too large');
    const source = text.toString('utf8');
    if (!embeddedImagesOk(source)) throw new Error('SVG embeds an image that is too large or not a PNG');
    svg = source;
  }
  for (const side of sizes) {
    const png = renderAt(svg, side);
    if (!png) throw new Error('the image rendered empty');
    if (png.length <= MAX_ICON_BYTES) return { png, hash: createHash('sha256').update(png).digest('hex') };
  }
  throw new Error(`no size fits in ${MAX_ICON_BYTES} bytes`);
}

/** Rastered icons by (file, mtime, size), so that a rescan of unchanged icons rasters nothing. */
export class IconCache {
  private entries = new Map<string, IconPng | null>();
  private used = new Set<string>();
  /** How many files were rastered (not served from the cache) since the last `prune`. */
  rastered = 0;
  /** The same count for the pass that `prune` ended. */
  lastRastered = 0;

  constructor(private readonly onSkip: (file: string, err: unknown) => void = () => {}) {}

  /** The file's icon, or null (logged once) when it cannot be rastered. `file` is read as given. */
  async get(file: string): Promise<IconPng | null> {
    const ext = path.extname(file).slice(1).toLowerCase();
    if (!(EXTENSIONS as readonly string[]).includes(ext)) return null;
    let st: Awaited<ReturnType<typeof stat>>;
    try {
      st = await stat(file);
    } catch {
      return null;
    }
    const key = `${file}\0${st.mtimeMs}\0${st.size}`;
    this.used.add(key);
    if (this.entries.has(key)) return this.entries.get(key) ?? null;
    let result: IconPng | null = null;
    try {
      if (!st.isFile() || st.size > MAX_SOURCE_BYTES)
        throw new Error(`not a file of at most ${MAX_SOURCE_BYTES} bytes`);
      result = await rasterIcon(await readFile(file), ext as 'png' | 'svg' | 'svgz');
      this.rastered++;
    } catch (err) {
      this.onSkip(file, err);
    }
    this.entries.set(key, result);
    // Let the socket and timers run between two rasters.
    await new Promise((resolve) => setImmediate(resolve));
    return result;
  }

  /** Forgets what the last scan did not use. */
  prune(): void {
    for (const key of this.entries.keys()) if (!this.used.has(key)) this.entries.delete(key);
    this.used = new Set();
    this.lastRastered = this.rastered;
    this.rastered = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}

interface ThemeDir {
  size: number;
  type: 'Fixed' | 'Scalable' | 'Threshold';
  minSize: number;
  maxSize: number;
  threshold: number;
  /** Position in the theme's Directories list: the spec takes the first exact match. */
  order: number;
}

interface Hit {
  file: string;
  dir: ThemeDir;
  ext: string;
}

/** The spec's DirectoryMatchesSize and DirectorySizeDistance, for scale 1. */
function matches(d: ThemeDir, size: number): boolean {
  if (d.type === 'Fixed') return d.size === size;
  if (d.type === 'Scalable') return d.minSize <= size && size <= d.maxSize;
  return d.size - d.threshold <= size && size <= d.size + d.threshold;
}

function distance(d: ThemeDir, size: number): number {
  if (d.type === 'Fixed') return Math.abs(d.size - size);
  if (d.type === 'Scalable')
    return size < d.minSize ? d.minSize - size : size > d.maxSize ? size - d.maxSize : 0;
  if (size < d.size - d.threshold) return d.minSize - size;
  if (size > d.size + d.threshold) return size - d.maxSize;
  return 0;
}

const int = (v: string | undefined, fallback: number) => {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) ? n : fallback;
};

/** A theme's directories from its index.theme; without one, the usual `NxN/ctx` and `scalable/ctx` layout. */
async function themeDirectories(
  root: (p: string) => string,
  themeRoots: string[],
): Promise<{ dirs: Map<string, ThemeDir>; inherits: string[] }> {
  for (const base of themeRoots) {
    const text = await readFile(root(path.posix.join(base, 'index.theme')), 'utf8').catch(() => null);
    if (text === null) continue;
    const groups = parseKeyFile(text);
    const head = groups.get('Icon Theme');
    if (!head) continue;
    const names = [
      ...(head.get('Directories') ?? '').split(','),
      ...(head.get('ScaledDirectories') ?? '').split(','),
    ]
      .map((s) => s.trim())
      .filter(Boolean);
    const dirs = new Map<string, ThemeDir>();
    names.forEach((name, order) => {
      const g = groups.get(name);
      if (!g || int(g.get('Scale'), 1) !== 1 || dirs.has(name)) return;
      const size = int(g.get('Size'), 0);
      if (size <= 0) return;
      const type =
        (['Fixed', 'Scalable', 'Threshold'] as const).find((t) => t === g.get('Type')) ?? 'Threshold';
      dirs.set(name, {
        size,
        type,
        minSize: int(g.get('MinSize'), size),
        maxSize: int(g.get('MaxSize'), size),
        threshold: int(g.get('Threshold'), 2),
        order,
      });
    });
    const inherits = (head.get('Inherits') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return { dirs, inherits };
  }
  // No index.theme (a bare hicolor): guess from the folder names.
  const dirs = new Map<string, ThemeDir>();
  let order = 0;
  for (const base of themeRoots) {
    for (const sizeDir of await readdir(root(base)).catch(() => [] as string[])) {
      const m = /^(\d+)x\1$/.exec(sizeDir);
      if (!m && sizeDir !== 'scalable') continue;
      for (const ctx of await readdir(root(path.posix.join(base, sizeDir))).catch(() => [] as string[])) {
        const name = `${sizeDir}/${ctx}`;
        if (dirs.has(name)) continue;
        const size = m ? Number(m[1]) : 48;
        dirs.set(
          name,
          m
            ? { size, type: 'Threshold', minSize: size, maxSize: size, threshold: 2, order: order++ }
            : { size, type: 'Scalable', minSize: 1, maxSize: 512, threshold: 2, order: order++ },
        );
      }
    }
  }
  return { dirs, inherits: [] };
}

/** A theme's files by icon name. */
interface ThemeIndex {
  name: string;
  inherits: string[];
  byName: Map<string, Hit[]>;
}

/**
 * Finds icon files for names in one theme chain, over a list of base dirs (system paths). Built per
 * scan: one readdir per theme folder instead of a stat per name and folder.
 */
export class IconFinder {
  private readonly themes = new Map<string, Promise<ThemeIndex | null>>();
  private readonly pixmaps: Promise<Set<string>>;

  constructor(
    private readonly root: (absolute: string) => string,
    /** `icons` base dirs in order (e.g. ~/.icons, ~/.local/share/icons, /usr/share/icons). */
    private readonly baseDirs: string[],
    private readonly pixmapDir = '/usr/share/pixmaps',
  ) {
    this.pixmaps = readdir(root(pixmapDir)).then(
      (names) => new Set(names),
      () => new Set(),
    );
  }

  private theme(name: string): Promise<ThemeIndex | null> {
    let t = this.themes.get(name);
    if (!t) {
      t = this.loadTheme(name);
      this.themes.set(name, t);
    }
    return t;
  }

  private async loadTheme(name: string): Promise<ThemeIndex | null> {
    if (!name || name.includes('/') || name.startsWith('.')) return null;
    const roots: string[] = [];
    for (const base of this.baseDirs) {
      const dir = path.posix.join(base, name);
      if ((await stat(this.root(dir)).catch(() => null))?.isDirectory()) roots.push(dir);
    }
    if (!roots.length) return null;
    const { dirs, inherits } = await themeDirectories(this.root, roots);
    const byName = new Map<string, Hit[]>();
    for (const [dirName, dir] of dirs) {
      for (const r of roots) {
        const folder = path.posix.join(r, dirName);
        for (const file of await readdir(this.root(folder)).catch(() => [] as string[])) {
          const dot = file.lastIndexOf('.');
          const ext = file.slice(dot + 1).toLowerCase();
          if (dot <= 0 || !(EXTENSIONS as readonly string[]).includes(ext)) continue;
          const icon = file.slice(0, dot);
          const hits = byName.get(icon) ?? [];
          byName.set(icon, hits);
          hits.push({ file: path.posix.join(folder, file), dir, ext });
        }
      }
    }
    return { name, inherits, byName };
  }

  /** The theme and everything it inherits, depth first, hicolor last (the spec's order). */
  private async chain(theme: string): Promise<ThemeIndex[]> {
    const out: ThemeIndex[] = [];
    const seen = new Set<string>();
    const visit = async (name: string) => {
      if (seen.has(name) || seen.size > 32) return;
      seen.add(name);
      const t = await this.theme(name);
      if (!t) return;
      out.push(t);
      for (const parent of t.inherits) await visit(parent);
    };
    await visit(theme);
    await visit('hicolor');
    return out;
  }

  /** The file for an Icon key (system path), or null. */
  async find(icon: string, theme: string): Promise<string | null> {
    if (icon.startsWith('/')) {
      const ext = path.extname(icon).slice(1).toLowerCase();
      return (EXTENSIONS as readonly string[]).includes(ext) ? icon : null;
    }
    // Names written with an extension (a legacy habit) are looked up without it.
    const name = icon.replace(/\.(png|svg|svgz|xpm)$/i, '');
    if (!name || name.includes('/')) return null;
    for (const t of await this.chain(theme)) {
      const hits = t.byName.get(name);
      if (!hits?.length) continue;
      return bestHit(hits).file;
    }
    const pixmaps = await this.pixmaps;
    for (const ext of EXTENSIONS)
      if (pixmaps.has(`${name}.${ext}`)) return path.posix.join(this.pixmapDir, `${name}.${ext}`);
    return null;
  }
}

/** An exact size match first (in directory order, PNG before SVG), else the nearest size. */
function bestHit(hits: Hit[]): Hit {
  const rank = (h: Hit) => [
    matches(h.dir, LOOKUP_SIZE) ? 0 : 1,
    distance(h.dir, LOOKUP_SIZE),
    h.dir.order,
    EXTENSIONS.indexOf(h.ext as 'png'),
  ];
  return hits.reduce((best, h) => {
    const a = rank(h);
    const b = rank(best);
    for (let i = 0; i < a.length; i++)
      if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? h : best;
    return best;
  });
}

/** The account's icon theme: HEARTH_AGENT_ICON_THEME, its GTK 3 settings, the system's, else hicolor. */
export async function accountIconTheme(
  root: (absolute: string) => string,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (env.HEARTH_AGENT_ICON_THEME) return env.HEARTH_AGENT_ICON_THEME;
  for (const file of [path.posix.join(home, '.config/gtk-3.0/settings.ini'), '/etc/gtk-3.0/settings.ini']) {
    const text = await readFile(root(file), 'utf8').catch(() => null);
    const name = text === null ? undefined : parseKeyFile(text).get('Settings')?.get('gtk-icon-theme-name');
    if (name?.trim()) return name.trim().replace(/^["']|["']$/g, '');
  }
  return 'hicolor';
}

/** Icon base dirs for an account, in the spec's order: ~/.icons, then each data dir's `icons`. */
export function iconBaseDirs(home: string, dataDirs: string[]): string[] {
  return [...new Set([path.posix.join(home, '.icons'), ...dataDirs.map((d) => path.posix.join(d, 'icons'))])];
}
