// Where a child's kiosk window goes (DESIGN §14): the display of the child's graphical logind session; where
// no logind runs (containers, tests) the daemon's own DISPLAY / WAYLAND_DISPLAY / XAUTHORITY.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HumanAccount } from '../accounts.js';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';

export interface ChildDisplay {
  /** Variables for the window's environment: DISPLAY and XAUTHORITY, or WAYLAND_DISPLAY. */
  env: Record<string, string>;
  wayland: boolean;
  /** Where it came from, for the log. */
  source: 'logind' | 'environment';
}

function run(file: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 5_000, encoding: 'utf8' }, (err, stdout) => resolve(err ? null : stdout));
  });
}

function properties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** The runtime directory logind made for the account, if any. */
export function runtimeDirOf(paths: AgentPaths, uid: number): string | null {
  const dir = underRoot(paths, `/run/user/${uid}`);
  return existsSync(dir) ? dir : null;
}

/**
 * The account's active graphical session from logind: null when logind answers but the child has no
 * graphical session; undefined when logind cannot be asked at all.
 */
async function fromLogind(
  paths: AgentPaths,
  account: HumanAccount,
  loginctl: string,
): Promise<ChildDisplay | null | undefined> {
  const list = await run(loginctl, ['list-sessions', '--no-legend', '--no-pager']);
  if (list === null) return undefined;
  const candidates: { display: string; type: string; active: boolean }[] = [];
  for (const line of list.split('\n')) {
    const [id, uid] = line.trim().split(/\s+/);
    if (!id || Number(uid) !== account.uid) continue;
    const shown = await run(loginctl, [
      'show-session',
      id,
      '-p',
      'Display',
      '-p',
      'Type',
      '-p',
      'Active',
      '-p',
      'Remote',
    ]);
    if (!shown) continue;
    const p = properties(shown);
    if (p.Remote === 'yes' || (p.Type !== 'x11' && p.Type !== 'wayland')) continue;
    candidates.push({ display: p.Display ?? '', type: p.Type, active: p.Active === 'yes' });
  }
  const session = candidates.find((c) => c.active) ?? candidates[0];
  if (!session) return null;
  const runtime = runtimeDirOf(paths, account.uid);
  if (session.type === 'wayland') {
    const socket = runtime && ['wayland-0', 'wayland-1'].find((n) => existsSync(path.join(runtime, n)));
    if (socket) return { env: { WAYLAND_DISPLAY: socket }, wayland: true, source: 'logind' };
    // A Wayland session with Xwayland still has an X display to fall back on.
    if (!session.display) return null;
  }
  if (!session.display) return null;
  const env: Record<string, string> = { DISPLAY: session.display };
  const xauth = [
    runtime && path.join(runtime, 'gdm/Xauthority'),
    underRoot(paths, path.join(account.home, '.Xauthority')),
  ].find((f) => f && existsSync(f));
  if (xauth) env.XAUTHORITY = xauth;
  return { env, wayland: false, source: 'logind' };
}

function fromEnvironment(env: NodeJS.ProcessEnv): ChildDisplay | null {
  if (env.WAYLAND_DISPLAY)
    return { env: { WAYLAND_DISPLAY: env.WAYLAND_DISPLAY }, wayland: true, source: 'environment' };
  if (env.DISPLAY) {
    const out: Record<string, string> = { DISPLAY: env.DISPLAY };
    if (env.XAUTHORITY) out.XAUTHORITY = env.XAUTHORITY;
    return { env: out, wayland: false, source: 'environment' };
  }
  return null;
}

export async function findDisplay(
  paths: AgentPaths,
  account: HumanAccount,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChildDisplay | null> {
  const logind = await fromLogind(paths, account, env.HEARTH_AGENT_LOGINCTL || 'loginctl');
  return logind === undefined ? fromEnvironment(env) : logind;
}
