// Runs a small program as a person on their session (a desktop notification, a window query): their
// uid and gid, their home, their display and session bus. The daemon runs as root; when it does not
// (a developer's shell, the tests), only its own account can be spoken for.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { HumanAccount } from '../accounts.js';

export interface SessionTarget {
  account: HumanAccount;
  /** X11 display of the session (":0"), or "" when it has none. */
  display: string;
}

/** The environment a program of the person's session expects. */
export function sessionEnv(target: SessionTarget): Record<string, string> {
  const { account, display } = target;
  const runtime = `/run/user/${account.uid}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin',
    HOME: account.home,
    USER: account.username,
    LOGNAME: account.username,
    XDG_RUNTIME_DIR: runtime,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${runtime}/bus`,
  };
  // Where no logind session names a display (containers, tests), the daemon's own is used (DESIGN §14).
  const x = display || process.env.DISPLAY;
  if (x) env.DISPLAY = x;
  if (process.env.WAYLAND_DISPLAY) env.WAYLAND_DISPLAY = process.env.WAYLAND_DISPLAY;
  const gdm = `${runtime}/gdm/Xauthority`;
  const xauthority = existsSync(gdm) ? gdm : process.env.XAUTHORITY || `${account.home}/.Xauthority`;
  env.XAUTHORITY = xauthority;
  return env;
}

export function runAs(
  target: SessionTarget,
  command: string,
  args: string[],
  timeoutMs = 5_000,
): Promise<string> {
  const self = process.getuid?.();
  const asOther = self === 0 && target.account.uid !== 0;
  if (self !== 0 && self !== target.account.uid)
    return Promise.reject(new Error(`not root: cannot run ${command} as ${target.account.username}`));
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        env: sessionEnv(target),
        cwd: existsSync(target.account.home) ? target.account.home : '/',
        timeout: timeoutMs,
        maxBuffer: 256 * 1024,
        ...(asOther ? { uid: target.account.uid, gid: target.account.gid } : {}),
      },
      (err, stdout, stderr) => {
        if (err)
          reject(
            Object.assign(new Error(`${command}: ${stderr.trim() || err.message}`), {
              code: (err as NodeJS.ErrnoException).code,
            }),
          );
        else resolve(stdout);
      },
    );
  });
}
