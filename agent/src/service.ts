// The systemd side of an installed agent. Only the real system is touched: a sysroot or a moved state
// directory (tests, package staging) never reaches systemctl.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Logger } from './log.js';
import type { AgentPaths } from './paths.js';
import { STATE_DIR, UNIT_NAME, UNIT_PATH } from './system-files.js';

/** True when this is the real system and systemd runs it (the same test as the .deb's scripts). */
export function systemdManages(paths: AgentPaths): boolean {
  return paths.sysroot === '/' && paths.stateDir === STATE_DIR && existsSync('/run/systemd/system');
}

export function systemctl(log: Logger, ...args: string[]): boolean {
  const r = spawnSync('systemctl', args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status === 0) return true;
  log.warn('systemctl failed', { args, status: r.status, error: r.error });
  return false;
}

/** After enrolling: (re)start the installed service so it pairs with the new identity. */
export function restartInstalledService(paths: AgentPaths, log: Logger): boolean {
  if (!systemdManages(paths) || !existsSync(UNIT_PATH)) return false;
  return systemctl(log, 'restart', UNIT_NAME);
}
