// The device policy's polkit rules (DESIGN §12): one rules file per account that answers NO to that
// account, and to no one else, for the actions of each switched-on rule. polkitd reads
// /etc/polkit-1/rules.d/*.rules (JavaScript) and notices new and changed files by itself.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LinuxPolicyRule, RuleResult } from '@hearth/protocol';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';
import { writeAtomic } from '../state.js';

export const POLKIT_DIR = '/etc/polkit-1';
export const POLKIT_RULES_DIR = '/etc/polkit-1/rules.d';

/** The polkit rules and the actions each denies: a trailing `*` matches every action with that prefix. */
export const POLKIT_ACTIONS = {
  // PackageKit (GNOME Software, Discover, apt through PackageKit), system Flatpak and snapd.
  block_software_install: [
    'org.freedesktop.packagekit.*',
    'org.freedesktop.Flatpak.app-install',
    'org.freedesktop.Flatpak.runtime-install',
    'org.freedesktop.Flatpak.app-uninstall',
    'org.freedesktop.Flatpak.runtime-uninstall',
    'org.freedesktop.Flatpak.modify-repo',
    'io.snapcraft.snapd.manage',
  ],
  block_removable_media: [
    'org.freedesktop.udisks2.filesystem-mount*',
    'org.freedesktop.udisks2.encrypted-unlock*',
    'org.freedesktop.udisks2.loop-setup',
    'org.freedesktop.udisks2.eject-media*',
    'org.freedesktop.udisks2.power-off-drive*',
  ],
  block_account_changes: ['org.freedesktop.accounts.*'],
  // Switching off, restarting, sleeping; locking the session (login1.lock-sessions) stays allowed.
  block_power_actions: [
    'org.freedesktop.login1.power-off*',
    'org.freedesktop.login1.reboot*',
    'org.freedesktop.login1.halt*',
    'org.freedesktop.login1.suspend*',
    'org.freedesktop.login1.hibernate*',
    'org.freedesktop.login1.set-reboot*',
    'org.freedesktop.upower.suspend',
    'org.freedesktop.upower.hibernate',
  ],
  block_pkexec: ['org.freedesktop.policykit.exec'],
} as const;

/** The rules of the wire policy that map onto polkit. */
export const POLKIT_RULES = [
  'block_software_install',
  'block_removable_media',
  'block_account_changes',
  'block_power_actions',
] as const satisfies readonly LinuxPolicyRule[];
export type PolkitRule = (typeof POLKIT_RULES)[number];

/**
 * Account names written into the JavaScript: the portable POSIX set, as useradd allows by default. Any
 * other name (quotes, backslashes, `$`) is refused rather than escaped.
 */
export const SAFE_ACCOUNT = /^[a-z_][a-z0-9_-]{0,31}$/;

export const rulesFileOf = (username: string) =>
  path.posix.join(POLKIT_RULES_DIR, `60-hearth-${username}.rules`);

/** The rules file for the account, or null when no rule is on. */
export function polkitRules(username: string, on: ReadonlySet<PolkitRule>): string | null {
  if (!SAFE_ACCOUNT.test(username))
    throw new Error(`the account name ${JSON.stringify(username)} is not safe to write into polkit rules`);
  const actions: string[] = [];
  for (const rule of POLKIT_RULES) if (on.has(rule)) actions.push(...POLKIT_ACTIONS[rule]);
  if (actions.length === 0) return null;
  // pkexec runs anything as root, which could undo every other rule: denied whenever one is on.
  actions.push(...POLKIT_ACTIONS.block_pkexec);
  const exact = actions.filter((a) => !a.endsWith('*'));
  const prefixes = actions.filter((a) => a.endsWith('*')).map((a) => a.slice(0, -1));
  return [
    `// Written by hearth-agent: the device policy of the account "${username}" (${[...on].sort().join(', ')}).`,
    '// Rewritten or removed by the agent whenever a parent changes the policy; edits here do not last.',
    'polkit.addRule(function (action, subject) {',
    `  if (subject.user !== ${JSON.stringify(username)}) return polkit.Result.NOT_HANDLED;`,
    `  var exact = ${JSON.stringify(exact)};`,
    `  var prefixes = ${JSON.stringify(prefixes)};`,
    '  if (exact.indexOf(action.id) !== -1) return polkit.Result.NO;',
    '  for (var i = 0; i < prefixes.length; i++)',
    '    if (action.id.indexOf(prefixes[i]) === 0) return polkit.Result.NO;',
    '  return polkit.Result.NOT_HANDLED;',
    '});',
    '',
  ].join('\n');
}

/**
 * Puts the account's rules file in place (or removes it when no rule is on) and answers each polkit
 * rule's outcome. Without /etc/polkit-1 there is no polkit to ask: every switched-on rule is
 * unsupported.
 */
export function applyPolkit(
  paths: AgentPaths,
  username: string,
  on: ReadonlySet<PolkitRule>,
): Record<PolkitRule, RuleResult> {
  const out = {} as Record<PolkitRule, RuleResult>;
  const file = underRoot(paths, rulesFileOf(username));
  const set = (status: RuleResult['status'], reason?: string, onlyOn = false) => {
    for (const rule of POLKIT_RULES)
      out[rule] = onlyOn && !on.has(rule) ? { status: 'applied' } : { status, ...(reason ? { reason } : {}) };
  };
  try {
    if (!SAFE_ACCOUNT.test(username)) {
      if (on.size > 0)
        set('failed', `the account name "${username}" cannot be written safely into polkit rules`, true);
      else set('applied');
      return out;
    }
    const text = polkitRules(username, on);
    if (text === null) {
      rmSync(file, { force: true });
      set('applied');
      return out;
    }
    if (!existsSync(underRoot(paths, POLKIT_DIR))) {
      set('unsupported', 'polkit is not installed on this computer (no /etc/polkit-1)', true);
      return out;
    }
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    let current: string | null = null;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // absent: written below
    }
    if (current !== text) writeAtomic(file, text, 0o644);
    set('applied');
  } catch (err) {
    set('failed', `could not write ${rulesFileOf(username)}: ${(err as Error).message}`, true);
  }
  return out;
}

/** Removes every account's rules file Hearth wrote (`install --uninstall`); the paths removed. */
export function removePolkitRules(paths: AgentPaths): string[] {
  let names: string[];
  try {
    names = readdirSync(underRoot(paths, POLKIT_RULES_DIR));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names.filter((n) => /^60-hearth-.+\.rules$/.test(n))) {
    const file = path.posix.join(POLKIT_RULES_DIR, name);
    rmSync(underRoot(paths, file), { force: true });
    removed.push(file);
  }
  return removed;
}
