// A reader for freedesktop Desktop Entry files (and the same key-file syntax of index.theme): groups,
// `key[locale]=value`, comments, escapes. It tolerates what real files contain — a BOM, CRLF, stray
// lines, repeated keys (the last wins, as in GLib) — and never throws.

/** One group's keys: `key` → value, `key[locale]` kept under that exact name. */
export type KeyFileGroup = Map<string, string>;

const GROUP = /^\[([^\][]+)\]\s*$/;
const ENTRY = /^([A-Za-z0-9-]+(?:\[[^\]\s]+\])?)\s*=\s?(.*)$/;

/** Groups in file order; a group named twice is merged into its first appearance. */
export function parseKeyFile(text: string): Map<string, KeyFileGroup> {
  const groups = new Map<string, KeyFileGroup>();
  let current: KeyFileGroup | null = null;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const raw of body.split(/\r\n|\n|\r/)) {
    const line = raw.trimStart();
    if (line === '' || line.startsWith('#')) continue;
    const group = GROUP.exec(line);
    if (group) {
      const name = group[1] as string;
      current = groups.get(name) ?? new Map();
      groups.set(name, current);
      continue;
    }
    const entry = ENTRY.exec(line);
    // Keys before any group, and lines that are neither, are ignored rather than failing the file.
    if (!entry || !current) continue;
    current.set(entry[1] as string, (entry[2] as string).replace(/\s+$/, ''));
  }
  return groups;
}

/** The spec's string escapes: \s \n \t \r \\; any other backslash is kept as written. */
export function unescapeString(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(/\\([sntr\\]?)/g, (_, c: string) => {
    switch (c) {
      case 's':
        return ' ';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case '\\':
        return '\\';
      default:
        return '\\';
    }
  });
}

/** `true`/`false` (and GLib's `1`/`0`); anything else is the fallback. */
export function parseBoolean(value: string | undefined, fallback = false): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return fallback;
}

export interface DesktopEntry {
  type: string;
  /** The unlocalised Name, else an English one, else any; empty when the file has none. */
  name: string;
  /** Exec after the string-level unescape, still with its own quoting and field codes. */
  exec: string | null;
  tryExec: string | null;
  icon: string | null;
  hidden: boolean;
  noDisplay: boolean;
}

/** The `[Desktop Entry]` group of a .desktop file, or null when the file has none. */
export function parseDesktopEntry(text: string): DesktopEntry | null {
  const group = parseKeyFile(text).get('Desktop Entry');
  if (!group) return null;
  const str = (key: string) => {
    const v = group.get(key);
    return v === undefined ? null : unescapeString(v);
  };
  return {
    type: str('Type') ?? '',
    name: chooseName(group),
    exec: str('Exec'),
    tryExec: str('TryExec'),
    icon: str('Icon'),
    hidden: parseBoolean(group.get('Hidden')),
    noDisplay: parseBoolean(group.get('NoDisplay')),
  };
}

/**
 * The inventory is the parent's view, not the child's desktop, so one name per app regardless of the
 * child's locale: the unlocalised Name, as the author wrote it.
 */
function chooseName(group: KeyFileGroup): string {
  const plain = group.get('Name');
  if (plain?.trim()) return unescapeString(plain).trim();
  for (const key of ['Name[en_US]', 'Name[en_GB]', 'Name[en]']) {
    const v = group.get(key);
    if (v?.trim()) return unescapeString(v).trim();
  }
  for (const [key, v] of group) if (key.startsWith('Name[') && v.trim()) return unescapeString(v).trim();
  return '';
}
