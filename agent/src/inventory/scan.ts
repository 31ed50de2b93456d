// The XDG application scan (DESIGN §14): every `applications/` folder of the system and of each
// account, desktop-file IDs with the first data dir winning, the account's own entries (and its
// Hidden=true overrides) over the system's, and one app per identifier.
import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { HumanAccount } from '../accounts.js';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';
import { type DesktopEntry, parseDesktopEntry } from './desktop-entry.js';
import { execIdentifier, resolveProgram } from './exec.js';
import { DpkgIndex, flatpakVersion, snapVersion } from './packages.js';

export interface ScannedApp {
  application_name: string;
  identifier: string;
  version_name: string;
  /** The Icon key as written (a theme name or an absolute path), or null. */
  icon: string | null;
  desktop_id: string;
  /** The .desktop file as a system path (not under the sysroot). */
  desktop_file: string;
}

interface Candidate {
  id: string;
  file: string;
  dataDir: string;
  entry: DesktopEntry;
}

/** Limits that keep a strange tree (loops, a million files, a huge file) from stalling the daemon. */
const MAX_DEPTH = 6;
const MAX_FILES_PER_DIR = 5000;
const MAX_DESKTOP_FILE_BYTES = 256 * 1024;
const GAMES_DIRS = ['/usr/games', '/usr/local/games'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const MAX_NAME = 256;
const MAX_VERSION = 128;
const MAX_IDENTIFIER = 1024;

/** The system's data dirs, in precedence order: flatpak's exports, XDG_DATA_DIRS, snapd's. */
export function systemDataDirs(env: NodeJS.ProcessEnv): string[] {
  const xdg = (env.XDG_DATA_DIRS || '/usr/local/share:/usr/share')
    .split(':')
    .filter((d) => d.startsWith('/'));
  const dirs = [
    '/var/lib/flatpak/exports/share',
    ...xdg,
    '/usr/local/share',
    '/usr/share',
    '/var/lib/snapd/desktop',
  ];
  return [...new Set(dirs.map((d) => path.posix.normalize(d).replace(/\/$/, '')))];
}

/** The account's own data dirs, before the system's (its XDG_DATA_HOME is taken as the default). */
export function userDataDirs(account: Pick<HumanAccount, 'home'>): string[] {
  const share = path.posix.join(account.home, '.local/share');
  return [share, path.posix.join(share, 'flatpak/exports/share')];
}

/** A desktop-file ID: the path under `applications/` with `/` turned into `-`. */
export const desktopId = (relative: string) => relative.split('/').join('-');

export class AppScanner {
  private readonly dpkg: DpkgIndex;
  private readonly searchPath: string[];
  private readonly root: (absolute: string) => string;

  constructor(
    paths: AgentPaths,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.root = (absolute) => underRoot(paths, absolute);
    this.dpkg = new DpkgIndex(this.root);
    this.searchPath = [...(env.PATH || DEFAULT_PATH).split(':'), ...GAMES_DIRS].filter((d) =>
      d.startsWith('/'),
    );
  }

  /** Each account's apps: the system's plus its own. */
  async scan(accounts: Pick<HumanAccount, 'username' | 'home'>[]): Promise<Map<string, ScannedApp[]>> {
    const systemDirs = systemDataDirs(this.env);
    const system = await this.collect(systemDirs);
    const out = new Map<string, ScannedApp[]>();
    for (const account of accounts) {
      const own = await this.collect(userDataDirs(account));
      for (const [id, c] of system) if (!own.has(id)) own.set(id, c);
      out.set(account.username, await this.appsOf(own));
    }
    return out;
  }

  /** Entries by desktop-file ID over `dataDirs` in order; the first dir that has an ID wins. */
  async collect(dataDirs: string[]): Promise<Map<string, Candidate>> {
    const found = new Map<string, Candidate>();
    for (const dataDir of dataDirs) {
      const base = path.posix.join(dataDir, 'applications');
      for (const rel of await this.listDesktopFiles(base)) {
        const id = desktopId(rel);
        if (found.has(id)) continue;
        const file = path.posix.join(base, rel);
        const entry = await this.readEntry(file);
        // A file that is not a desktop entry at all does not hide a lower one of the same ID.
        if (entry) found.set(id, { id, file, dataDir, entry });
      }
    }
    return found;
  }

  private async readEntry(file: string): Promise<DesktopEntry | null> {
    try {
      const st = await stat(this.root(file));
      if (!st.isFile() || st.size > MAX_DESKTOP_FILE_BYTES) return null;
      return parseDesktopEntry(await readFile(this.root(file), 'utf8'));
    } catch {
      return null;
    }
  }

  /** `.desktop` files under `base`, relative to it, sorted so that IDs come out the same every time. */
  private async listDesktopFiles(base: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (rel: string, depth: number) => {
      let entries: Dirent[];
      try {
        entries = await readdir(this.root(path.posix.join(base, rel)), { withFileTypes: true });
      } catch {
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries.slice(0, MAX_FILES_PER_DIR)) {
        const child = rel ? `${rel}/${e.name}` : e.name;
        let isDir = e.isDirectory();
        if (e.isSymbolicLink()) {
          const st = await stat(this.root(path.posix.join(base, child))).catch(() => null);
          isDir = !!st?.isDirectory();
        }
        if (isDir) {
          if (depth < MAX_DEPTH) await walk(child, depth + 1);
        } else if (e.name.endsWith('.desktop')) out.push(child);
      }
    };
    await walk('', 0);
    return out;
  }

  private async appsOf(candidates: Map<string, Candidate>): Promise<ScannedApp[]> {
    const apps: (ScannedApp & { flatpak?: { installation: string; app: string }; snap?: string })[] = [];
    for (const c of candidates.values()) {
      const e = c.entry;
      if (e.type !== 'Application' || e.hidden || e.noDisplay || !e.exec) continue;
      if (e.tryExec && !resolveProgram(e.tryExec, this.resolveOptions(c))) continue;
      const identifier = execIdentifier(e.exec, this.resolveOptions(c));
      if (!identifier || identifier.length > MAX_IDENTIFIER) continue;
      const name = (e.name || c.id.replace(/\.desktop$/, '')).slice(0, MAX_NAME);
      const app: (typeof apps)[number] = {
        application_name: name,
        identifier,
        version_name: '',
        icon: e.icon?.trim() || null,
        desktop_id: c.id,
        desktop_file: c.file,
      };
      const fp = /^(.*)\/exports\/bin\/([^/]+)$/.exec(identifier);
      if (fp) app.flatpak = { installation: fp[1] as string, app: fp[2] as string };
      const snap = /^\/snap\/bin\/([^/]+)$/.exec(identifier);
      if (snap) app.snap = (snap[1] as string).split('.')[0];
      apps.push(app);
    }
    const unique = dedupeByIdentifier(apps);
    const plain = unique.filter((a) => !a.flatpak && !a.snap);
    const versions = await this.dpkg.versionsOf(plain.map((a) => [a.desktop_file, a.identifier]));
    plain.forEach((a, i) => {
      a.version_name = versions[i] ?? '';
    });
    for (const a of unique) {
      if (a.flatpak) a.version_name = await flatpakVersion(this.root, a.flatpak.installation, a.flatpak.app);
      else if (a.snap) a.version_name = await snapVersion(this.root, a.snap);
    }
    return unique.map(({ flatpak: _f, snap: _s, ...a }) => ({
      ...a,
      version_name: a.version_name.slice(0, MAX_VERSION),
    }));
  }

  private resolveOptions(c: Candidate) {
    const exports = /^(.*\/exports)\/share$/.exec(c.dataDir);
    return {
      underRoot: this.root,
      searchPath: this.searchPath,
      flatpakExports: exports ? (exports[1] as string) : null,
    };
  }
}

/**
 * The server keeps one row per identifier, so entries that start the same program (LibreOffice's
 * Writer, Calc, … all run /usr/bin/libreoffice) become one app: the entry named after the program if
 * there is one, else the first by desktop-file ID.
 */
export function dedupeByIdentifier<T extends ScannedApp>(apps: T[]): T[] {
  const byId = new Map<string, T>();
  const sorted = [...apps].sort((a, b) =>
    a.desktop_id < b.desktop_id ? -1 : a.desktop_id > b.desktop_id ? 1 : 0,
  );
  for (const app of sorted) {
    const held = byId.get(app.identifier);
    if (!held || (!namedAfter(held) && namedAfter(app))) byId.set(app.identifier, app);
  }
  return [...byId.values()];
}

function namedAfter(app: ScannedApp): boolean {
  const program = path.posix.basename(app.identifier);
  const id = app.desktop_id.replace(/\.desktop$/, '');
  return id === program || id.endsWith(`-${program}`) || id.endsWith(`.${program}`);
}
