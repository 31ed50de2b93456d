// Versions from the package managers: dpkg (which package owns a file, and that package's Version),
// flatpak (the app's metainfo release) and snap (meta/snap.yaml). Everything is read under the
// sysroot; a missing database just means no version.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** The paths dpkg may list a file under: on a merged-/usr system `/usr/bin/x` is listed as `/bin/x` and back. */
function dpkgAliases(file: string): string[] {
  const m = /^\/usr\/(bin|sbin|lib\w*)\/(.*)$/.exec(file);
  if (m) return [file, `/${m[1]}/${m[2]}`];
  const n = /^\/(bin|sbin|lib\w*)\/(.*)$/.exec(file);
  return n ? [file, `/usr/${n[1]}/${n[2]}`] : [file];
}

/** `Package` → `Version` for installed packages, from /var/lib/dpkg/status. */
export function parseDpkgStatus(text: string): Map<string, string> {
  const versions = new Map<string, string>();
  for (const stanza of text.split(/\n\s*\n/)) {
    const pkg = /^Package:\s*(\S+)/m.exec(stanza)?.[1];
    const version = /^Version:\s*(\S+)/m.exec(stanza)?.[1];
    const status = /^Status:\s*(.*)$/m.exec(stanza)?.[1] ?? '';
    if (pkg && version && /\binstalled$/.test(status.trim())) versions.set(pkg, version);
  }
  return versions;
}

/**
 * Looks up owners of many files at once: one pass over every `info/*.list`, keeping only the lines
 * asked for. Kept between scans while dpkg's database has not changed.
 */
export class DpkgIndex {
  private stamp = '';
  private versions = new Map<string, string>();
  private owners = new Map<string, string | null>();

  constructor(private readonly underRoot: (absolute: string) => string) {}

  /** Version of the package owning each file (first path that has an owner wins), or '' if unknown. */
  async versionsOf(files: string[][]): Promise<string[]> {
    const statusFile = this.underRoot('/var/lib/dpkg/status');
    const infoDir = this.underRoot('/var/lib/dpkg/info');
    let stamp: string;
    try {
      const [s, i] = await Promise.all([stat(statusFile), stat(infoDir)]);
      stamp = `${s.mtimeMs}:${s.size}:${i.mtimeMs}`;
    } catch {
      return files.map(() => '');
    }
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      this.owners = new Map();
      this.versions = parseDpkgStatus(await readFile(statusFile, 'utf8').catch(() => ''));
    }
    const wanted = new Map<string, string>();
    for (const group of files)
      for (const f of group)
        for (const alias of dpkgAliases(f)) if (!this.owners.has(alias)) wanted.set(alias, f);
    if (wanted.size) await this.findOwners(infoDir, new Set(wanted.keys()));
    return files.map((group) => {
      for (const f of group)
        for (const alias of dpkgAliases(f)) {
          const pkg = this.owners.get(alias);
          if (pkg) return this.versions.get(pkg) ?? '';
        }
      return '';
    });
  }

  private async findOwners(infoDir: string, wanted: Set<string>): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(infoDir)).filter((n) => n.endsWith('.list'));
    } catch {
      names = [];
    }
    for (const name of names) {
      const pkg = name.slice(0, -'.list'.length).split(':')[0] as string;
      const text = await readFile(path.join(infoDir, name), 'utf8').catch(() => '');
      for (const line of text.split('\n'))
        if (wanted.has(line) && !this.owners.get(line)) this.owners.set(line, pkg);
    }
    for (const w of wanted) if (!this.owners.has(w)) this.owners.set(w, null);
  }
}

/** The newest release version in a flatpak app's metainfo (or appdata), or ''. */
export async function flatpakVersion(
  underRoot: (absolute: string) => string,
  installation: string,
  appId: string,
): Promise<string> {
  const files = path.posix.join(installation, 'app', appId, 'current', 'active', 'files', 'share');
  for (const rel of [`metainfo/${appId}.metainfo.xml`, `appdata/${appId}.appdata.xml`]) {
    const text = await readFile(underRoot(path.posix.join(files, rel)), 'utf8').catch(() => null);
    if (text === null) continue;
    // Releases are listed newest first.
    const m = /<release\b[^>]*\bversion\s*=\s*["']([^"']{1,128})["']/.exec(text);
    if (m) return m[1] as string;
  }
  return '';
}

/** A snap's version from /snap/NAME/current/meta/snap.yaml, or ''. */
export async function snapVersion(
  underRoot: (absolute: string) => string,
  snapName: string,
): Promise<string> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(snapName)) return '';
  const text = await readFile(underRoot(`/snap/${snapName}/current/meta/snap.yaml`), 'utf8').catch(() => '');
  const m = /^version:\s*['"]?([^'"\n]{1,128}?)['"]?\s*$/m.exec(text);
  return m ? (m[1] as string) : '';
}
