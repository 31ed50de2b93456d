// The application in front on an X11 session: the active window's _NET_WM_PID (xprop, run as the
// person on their display), then that process's executable. Best effort: no X11, no xprop, a window
// without a pid or a process of another account all answer null, and the time still counts for the day.
import { readlinkSync, statSync } from 'node:fs';
import { runAs, type SessionTarget } from './run-as.js';

export function parseActiveWindow(text: string): string | null {
  const m = /window id # (0x[0-9a-f]+)/i.exec(text);
  return m && m[1] !== '0x0' ? (m[1] as string) : null;
}

export function parseWmPid(text: string): number | null {
  const m = /_NET_WM_PID\(CARDINAL\) = (\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

export async function focusedExecutable(target: SessionTarget): Promise<string | null> {
  const window = parseActiveWindow(await runAs(target, 'xprop', ['-root', '_NET_ACTIVE_WINDOW']));
  if (!window) return null;
  const pid = parseWmPid(await runAs(target, 'xprop', ['-id', window, '_NET_WM_PID']));
  if (!pid) return null;
  // A window may claim any pid: count it only when that process is the person's own.
  if (statSync(`/proc/${pid}`).uid !== target.account.uid) return null;
  const exe = readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '');
  return exe.startsWith('/') ? exe : null;
}
