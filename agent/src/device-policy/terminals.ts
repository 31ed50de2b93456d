// The device policy's terminal rule: the account's menus stop offering terminal emulators (a `.desktop`
// file of the same name with Hidden=true in ~/.local/share/applications, which comes first in the
// Desktop Entry search path, hides the system's entry), and a terminal the account starts anyway (from a
// shell, a file manager, a key binding) is ended within a poll.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import type { HumanAccount } from '../accounts.js';
import { parseKeyFile } from '../inventory/desktop-entry.js';
import { systemDataDirs } from '../inventory/scan.js';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';

/** Desktop-file IDs of terminal emulators, for entries that do not say Categories=TerminalEmulator. */
export const TERMINAL_DESKTOP_IDS = [
  'org.gnome.Terminal.desktop',
  'gnome-terminal.desktop',
  'org.gnome.Console.desktop',
  'org.gnome.Ptyxis.desktop',
  'org.kde.konsole.desktop',
  'konsole.desktop',
  'org.kde.yakuake.desktop',
  'xterm.desktop',
  'uxterm.desktop',
  'debian-xterm.desktop',
  'debian-uxterm.desktop',
  'xfce4-terminal.desktop',
  'kitty.desktop',
  'Alacritty.desktop',
  'com.gexperts.Tilix.desktop',
  'terminator.desktop',
  'lxterminal.desktop',
  'mate-terminal.desktop',
  'qterminal.desktop',
  'foot.desktop',
  'footclient.desktop',
  'foot-server.desktop',
  'org.wezfurlong.wezterm.desktop',
  'rxvt-unicode.desktop',
  'io.elementary.terminal.desktop',
  'com.system76.CosmicTerm.desktop',
  'guake.desktop',
  'tilda.desktop',
  'sakura.desktop',
  'terminology.desktop',
  'cool-retro-term.desktop',
  'deepin-terminal.desktop',
  'com.mitchellh.ghostty.desktop',
  'zutty.desktop',
];

/** Executable names of terminal emulators (the basename of /proc/<pid>/exe, or of a script's path). */
export const TERMINAL_EXECUTABLES = new Set([
  'gnome-terminal',
  'gnome-terminal-server',
  'gnome-terminal.real',
  'kgx',
  'ptyxis',
  'konsole',
  'yakuake',
  'xterm',
  'uxterm',
  'lxterm',
  'koi8rxterm',
  'xfce4-terminal',
  'kitty',
  'alacritty',
  'tilix',
  'terminator',
  'lxterminal',
  'mate-terminal',
  'qterminal',
  'foot',
  'footclient',
  'wezterm',
  'wezterm-gui',
  'urxvt',
  'urxvtd',
  'rxvt',
  'rxvt-unicode',
  'io.elementary.terminal',
  'cosmic-term',
  'guake',
  'tilda',
  'sakura',
  'terminology',
  'cool-retro-term',
  'deepin-terminal',
  'ghostty',
  'zutty',
  'x-terminal-emulator',
]);

/** Interpreters whose script (argv[1]) names the program (terminator and guake are Python). */
const INTERPRETER = /^(?:python[0-9.]*|perl|ruby)$/;

/** Marks a file as Hearth's: only files that carry it are ever replaced or removed. */
export const OVERRIDE_MARK = 'X-Hearth-Override=true';

export interface TerminalEntry {
  id: string;
  name: string;
}

/** The system's terminal entries: a known ID or Categories with TerminalEmulator, first data dir winning. */
export function findTerminalEntries(
  paths: AgentPaths,
  env: NodeJS.ProcessEnv = process.env,
): TerminalEntry[] {
  const found = new Map<string, TerminalEntry>();
  const known = new Set(TERMINAL_DESKTOP_IDS);
  for (const dataDir of systemDataDirs(env)) {
    const dir = underRoot(paths, path.posix.join(dataDir, 'applications'));
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.desktop'));
    } catch {
      continue;
    }
    for (const id of names.slice(0, 5000)) {
      if (found.has(id)) continue;
      let text: string;
      try {
        text = readFileSync(path.join(dir, id), 'utf8').slice(0, 256 * 1024);
      } catch {
        continue;
      }
      const group = parseKeyFile(text).get('Desktop Entry');
      if (!group) continue;
      const categories = (group.get('Categories') ?? '').split(';');
      if (!known.has(id) && !categories.includes('TerminalEmulator')) continue;
      found.set(id, { id, name: (group.get('Name') ?? id).slice(0, 200) });
    }
  }
  return [...found.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export function overrideText(entry: TerminalEntry): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${entry.name.replace(/[\r\n]/g, ' ')}`,
    '# Hidden by Hearth: a parent switched terminals off for this account.',
    'Hidden=true',
    OVERRIDE_MARK,
    '',
  ].join('\n');
}

// Run as the account itself, so the kernel checks every path against the account's own rights: a link
// the account planted in its home can never make root write elsewhere.
const WRITER = `
const fs = require('node:fs');
const path = require('node:path');
const { dir, write, remove, mark } = JSON.parse(process.argv[1]);
const out = { written: [], theirs: [], removed: [] };
const kind = (f) => { try { return fs.lstatSync(f); } catch { return null; } };
const ours = (f) => { try { return fs.readFileSync(f, 'utf8').split('\\n').includes(mark); } catch { return false; } };
if (write.length) fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
for (const { name, text } of write) {
  const f = path.join(dir, name);
  const st = kind(f);
  if (st && !(st.isFile() && ours(f))) { out.theirs.push(name); continue; }
  if (!st || fs.readFileSync(f, 'utf8') !== text) {
    const tmp = path.join(dir, '.' + name + '.hearth-tmp');
    fs.rmSync(tmp, { force: true });
    fs.writeFileSync(tmp, text, { flag: 'wx', mode: 0o644 });
    fs.renameSync(tmp, f);
  }
  out.written.push(name);
}
for (const name of remove) {
  const f = path.join(dir, name);
  const st = kind(f);
  if (st && st.isFile() && ours(f)) { fs.rmSync(f); out.removed.push(name); }
}
process.stdout.write(JSON.stringify(out));
`;

export interface OverrideChange {
  written: string[];
  /** Files of the same name the account made itself: left alone. */
  theirs: string[];
  removed: string[];
}

/** Writes and removes override files in the account's applications folder, as the account. */
export function changeOverrides(
  paths: AgentPaths,
  account: HumanAccount,
  write: TerminalEntry[],
  remove: string[],
): Promise<OverrideChange> {
  const self = process.getuid?.();
  if (self !== 0 && self !== account.uid)
    return Promise.reject(
      new Error('the agent does not run as root, so it cannot write into the account’s home'),
    );
  const home = underRoot(paths, account.home);
  const input = {
    dir: path.join(home, '.local/share/applications'),
    write: write.map((e) => ({ name: e.id, text: overrideText(e) })),
    remove,
    mark: OVERRIDE_MARK,
  };
  const switching = self === 0 && account.uid !== 0;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', WRITER, JSON.stringify(input)],
      {
        env: { PATH: process.env.PATH || '/usr/bin:/bin', HOME: home },
        cwd: '/',
        timeout: 10_000,
        maxBuffer: 1024 * 1024,
        ...(switching ? { uid: account.uid, gid: account.gid } : {}),
      },
      (err, stdout, stderr) => {
        if (err)
          return reject(
            new Error(
              stderr
                .trim()
                .split('\n')
                .find((l) => /Error/.test(l)) || err.message,
            ),
          );
        try {
          resolve(JSON.parse(stdout) as OverrideChange);
        } catch {
          reject(new Error('the override writer answered nothing readable'));
        }
      },
    );
  });
}

/** The name a process goes by: its executable's basename, or its script's for an interpreter. */
export function programName(exe: string, argv: string[]): string {
  const base = path.basename(exe.replace(/ \(deleted\)$/, ''));
  if (INTERPRETER.test(base)) {
    const script = argv.slice(1).find((a) => !a.startsWith('-'));
    if (script) return path.basename(script);
  }
  return base;
}

export interface FoundProcess {
  pid: number;
  uid: number;
  program: string;
}

/** Terminal processes of the given uids, read from /proc (processes that vanish meanwhile are skipped). */
export function terminalProcesses(uids: ReadonlySet<number>, proc = '/proc'): FoundProcess[] {
  const out: FoundProcess[] = [];
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const uid = statSync(`${proc}/${entry}`).uid;
      if (!uids.has(uid)) continue;
      const exe = readlinkSync(`${proc}/${entry}/exe`);
      const argv = readFileSync(`${proc}/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const program = programName(exe, argv);
      if (TERMINAL_EXECUTABLES.has(program)) out.push({ pid: Number(entry), uid, program });
    } catch {
      // gone meanwhile, or a kernel thread without an executable
    }
  }
  return out;
}
