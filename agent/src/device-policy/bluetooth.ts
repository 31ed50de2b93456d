// The device policy's Bluetooth rule: the radios soft-blocked with rfkill, and unblocked when the rule
// goes off only if Hearth was the one that blocked them. rfkill acts on the whole computer.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import type { RuleResult } from '@hearth/protocol';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';

/** rfkill: HEARTH_AGENT_RFKILL (tests give a stand-in), else the first on PATH, /usr/sbin or /sbin. */
export function findRfkill(env: NodeJS.ProcessEnv): string | null {
  if (env.HEARTH_AGENT_RFKILL) return env.HEARTH_AGENT_RFKILL;
  const dirs = [...(env.PATH || '').split(':'), '/usr/sbin', '/sbin', '/usr/bin', '/bin'].filter((d) =>
    d.startsWith('/'),
  );
  for (const dir of dirs) {
    const file = path.join(dir, 'rfkill');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) =>
      err ? reject(new Error(`rfkill ${args.join(' ')}: ${stderr.trim() || err.message}`)) : resolve(stdout),
    );
  });
}

export interface BluetoothState {
  /** Hearth soft-blocked the radios (and so may unblock them). */
  held: boolean;
}

/**
 * Blocks (`want`) or releases Bluetooth. Blocking again while held is cheap and undoes a switch the
 * person flipped in their settings meanwhile.
 */
export async function applyBluetooth(
  paths: AgentPaths,
  env: NodeJS.ProcessEnv,
  want: boolean,
  state: BluetoothState,
): Promise<{ result: RuleResult; state: BluetoothState }> {
  const rfkill = findRfkill(env);
  if (!want) {
    if (!state.held) return { result: { status: 'applied' }, state };
    if (!rfkill)
      return {
        result: { status: 'applied', reason: 'rfkill is gone; nothing to unblock' },
        state: { held: false },
      };
    try {
      await run(rfkill, ['unblock', 'bluetooth']);
      return { result: { status: 'applied' }, state: { held: false } };
    } catch (err) {
      return { result: { status: 'failed', reason: (err as Error).message.slice(0, 400) }, state };
    }
  }
  if (!existsSync(underRoot(paths, '/sys/class/rfkill')))
    return {
      result: {
        status: 'unsupported',
        reason:
          'this computer has no rfkill switch (/sys/class/rfkill is missing: no radio, or a kernel without rfkill)',
      },
      state,
    };
  if (!rfkill)
    return {
      result: { status: 'unsupported', reason: 'rfkill is not installed (Debian package "rfkill")' },
      state,
    };
  try {
    let held = state.held;
    if (!held) {
      // Radios someone had already switched off stay theirs: Hearth will not switch them on later.
      const listed = await run(rfkill, ['list', 'bluetooth']);
      const soft = [...listed.matchAll(/Soft blocked:\s*(yes|no)/g)].map((m) => m[1]);
      held = !(soft.length > 0 && soft.every((s) => s === 'yes'));
    }
    await run(rfkill, ['block', 'bluetooth']);
    return { result: { status: 'applied' }, state: { held } };
  } catch (err) {
    return { result: { status: 'failed', reason: (err as Error).message.slice(0, 400) }, state };
  }
}
