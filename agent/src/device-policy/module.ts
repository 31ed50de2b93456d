// Device policies on Linux (DESIGN §12, issue 19): `set_device_policy` for one account is enforced rule
// by rule — polkit rules, hidden and ended terminals, Bluetooth through rfkill, the browsers' managed
// policies — each idempotent and undone exactly when switched off; kept in the state directory and
// enforced again at every start (the server may be away); answered with `policy_applied` naming each
// rule's outcome. Rules the computer only has one switch for (Bluetooth, the browsers) are the union
// over the accounts, and their outcome says so when other accounts share the computer.
import { existsSync, readdirSync } from 'node:fs';
import {
  LINUX_POLICY_RULES,
  type LinuxDevicePolicy,
  type LinuxPolicyRule,
  type RuleResult,
} from '@hearth/protocol';
import { type BrowserSettings, NO_BROWSER_SETTINGS } from '../browser-policy.js';
import type { AgentContext, AgentModule, DevicePolicySummary } from '../context.js';
import { underRoot } from '../paths.js';
import { applyBluetooth, type BluetoothState } from './bluetooth.js';
import { applyPolkit, POLKIT_RULES, type PolkitRule } from './polkit.js';
import { changeOverrides, findTerminalEntries, terminalProcesses } from './terminals.js';

const USERNAME = /^[a-z_][a-z0-9_.-]{0,63}\$?$/i;
const fileOf = (username: string) => `device-policy.${username}.json`;
const MACHINE_FILE = 'device-policy-machine.json';
const BROWSER_RULES = ['block_incognito', 'block_other_extensions', 'youtube_restricted'] as const;
/** Where Debian, Ubuntu's snap and Mozilla's own packages put Firefox, which Hearth does not manage. */
const FIREFOX_PATHS = ['/usr/lib/firefox-esr', '/usr/lib/firefox', '/snap/bin/firefox', '/opt/firefox'];

export interface KeptDevicePolicy {
  linux_username: string;
  version: number;
  policy: LinuxDevicePolicy;
  rules: Record<string, RuleResult>;
  applied_at: string;
  /** Desktop-file IDs of the overrides Hearth wrote into the account's home (removed exactly these). */
  overrides: string[];
}

export const ALL_OFF: LinuxDevicePolicy = {
  block_software_install: false,
  block_removable_media: false,
  block_account_changes: false,
  block_power_actions: false,
  block_terminal: false,
  disable_bluetooth: false,
  block_incognito: false,
  block_other_extensions: false,
  allowed_extension_ids: [],
  youtube_restricted: false,
};

/** The command's policy, checked field by field (unknown fields refused, as the server's schema does). */
export function readLinuxPolicy(value: unknown): LinuxDevicePolicy {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('policy missing');
  const p = value as Record<string, unknown>;
  for (const key of Object.keys(p))
    if (key !== 'allowed_extension_ids' && !(LINUX_POLICY_RULES as readonly string[]).includes(key))
      throw new Error(`policy has an unknown field ${key}`);
  const out = { ...ALL_OFF };
  for (const rule of LINUX_POLICY_RULES) {
    if (typeof p[rule] !== 'boolean') throw new Error(`policy.${rule} must be true or false`);
    out[rule] = p[rule] as boolean;
  }
  const ids = p.allowed_extension_ids ?? [];
  if (
    !Array.isArray(ids) ||
    ids.length > 100 ||
    !ids.every((id) => typeof id === 'string' && /^[a-p]{32}$/.test(id))
  )
    throw new Error('policy.allowed_extension_ids must be at most 100 extension ids');
  out.allowed_extension_ids = [...new Set(ids as string[])];
  return out;
}

const isKept = (d: unknown): d is KeptDevicePolicy => {
  if (!d || typeof d !== 'object') return false;
  const k = d as KeptDevicePolicy;
  if (typeof k.linux_username !== 'string' || !Number.isInteger(k.version) || !Array.isArray(k.overrides))
    return false;
  try {
    readLinuxPolicy(k.policy);
    return true;
  } catch {
    return false;
  }
};

const isMachine = (d: unknown): d is { bluetooth: BluetoothState } =>
  !!d && typeof d === 'object' && typeof (d as { bluetooth?: BluetoothState }).bluetooth?.held === 'boolean';

const positive = (text: string | undefined, fallback: number) => {
  const n = Number(text);
  return text && Number.isFinite(n) && n > 0 ? n : fallback;
};

/** A reason that fits the wire's 500 characters. */
const clip = (text: string) => (text.length > 500 ? `${text.slice(0, 497)}…` : text);

const names = (list: string[]) =>
  list.length > 5 ? `${list.slice(0, 5).join(', ')} and ${list.length - 5} more` : list.join(', ');

/** What the policies need of the agent: the daemon's context, or the few parts `install` builds. */
export type PolicyContext = Pick<AgentContext, 'paths' | 'log' | 'state' | 'accounts' | 'browserPolicies'>;

export class DevicePolicies {
  private readonly kept = new Map<string, KeptDevicePolicy>();
  private bluetooth: BluetoothState;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: PolicyContext,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    let files: string[] = [];
    try {
      files = readdirSync(ctx.state.dir).filter((f) => /^device-policy\..+\.json$/.test(f));
    } catch {
      // no state yet
    }
    for (const file of files) {
      const kept = ctx.state.read(file, isKept);
      if (kept && fileOf(kept.linux_username) === file) this.kept.set(kept.linux_username, kept);
    }
    this.bluetooth = ctx.state.read(MACHINE_FILE, isMachine)?.bluetooth ?? { held: false };
  }

  get(username: string): KeptDevicePolicy | null {
    return this.kept.get(username) ?? null;
  }

  summary(username?: string): Record<string, DevicePolicySummary> {
    const out: Record<string, DevicePolicySummary> = {};
    for (const [name, k] of this.kept)
      if (!username || name === username)
        out[name] = { version: k.version, applied_at: k.applied_at, rules: k.rules };
    return out;
  }

  /** The browser rules over every account: on when any account's policy has them on. */
  browserSettings(): BrowserSettings {
    const s: BrowserSettings = { ...NO_BROWSER_SETTINGS, allowed_extension_ids: [] };
    const allowed = new Set<string>();
    for (const { policy } of this.kept.values()) {
      s.block_incognito ||= policy.block_incognito;
      s.youtube_restricted ||= policy.youtube_restricted;
      if (policy.block_other_extensions) {
        s.block_other_extensions = true;
        for (const id of policy.allowed_extension_ids) allowed.add(id);
      }
    }
    s.allowed_extension_ids = [...allowed].sort();
    return s;
  }

  /** Accounts whose terminals are ended (their uids). */
  terminalUids(): Map<number, string> {
    const out = new Map<number, string>();
    const accounts = this.ctx.accounts();
    for (const k of this.kept.values()) {
      if (!k.policy.block_terminal) continue;
      const a = accounts.find((x) => x.username === k.linux_username);
      if (a) out.set(a.uid, a.username);
    }
    return out;
  }

  wantsBluetoothOff(): boolean {
    return [...this.kept.values()].some((k) => k.policy.disable_bluetooth);
  }

  /** Applies one account's policy (one at a time); the outcome of each rule. */
  apply(username: string, version: number, policy: LinuxDevicePolicy): Promise<KeptDevicePolicy> {
    const run = this.chain.then(() => this.enforce(username, version, policy));
    this.chain = run.catch(() => {});
    return run;
  }

  /** Enforces every kept policy again (at start: files may have been changed while the agent was away). */
  async enforceKept(): Promise<void> {
    for (const k of [...this.kept.values()]) {
      const again = await this.apply(k.linux_username, k.version, k.policy);
      this.ctx.log.info('device policy enforced', {
        linux_username: k.linux_username,
        version: k.version,
        rules: again.rules,
      });
    }
  }

  /**
   * Undoes on this computer what every kept policy did (the agent is being removed), and keeps the
   * policies themselves, unchanged, so that the agent enforces them again if it is installed again
   * with the same enrolment. Answers the accounts released.
   */
  async releaseAll(): Promise<string[]> {
    const kept = [...this.kept.values()];
    for (const k of kept) await this.apply(k.linux_username, k.version, ALL_OFF);
    for (const k of kept) {
      const again: KeptDevicePolicy = { ...k, overrides: [] };
      this.kept.set(k.linux_username, again);
      this.ctx.state.write(fileOf(k.linux_username), again);
    }
    return kept.map((k) => k.linux_username);
  }

  /** Blocks Bluetooth again if a policy wants it off (a person may have switched it back on). */
  reassertBluetooth(): Promise<void> {
    const run = this.chain.then(async () => {
      if (!this.wantsBluetoothOff()) return;
      const { state } = await applyBluetooth(this.ctx.paths, this.env, true, this.bluetooth);
      this.saveBluetooth(state);
    });
    this.chain = run.catch(() => {});
    return run;
  }

  private saveBluetooth(state: BluetoothState): void {
    if (state.held === this.bluetooth.held) return;
    this.bluetooth = state;
    this.ctx.state.write(MACHINE_FILE, { bluetooth: state });
  }

  private async enforce(
    username: string,
    version: number,
    policy: LinuxDevicePolicy,
  ): Promise<KeptDevicePolicy> {
    const { ctx } = this;
    const before = this.kept.get(username);
    const accounts = ctx.accounts();
    const account = accounts.find((a) => a.username === username);
    const others = accounts.filter((a) => a.username !== username).map((a) => a.username);
    const rules = {} as Record<LinuxPolicyRule, RuleResult>;

    // polkit
    const polkitOn = new Set<PolkitRule>(POLKIT_RULES.filter((r) => policy[r]));
    Object.assign(rules, applyPolkit(ctx.paths, username, polkitOn));

    // terminals: the overrides in the account's home, then the launches (ended by the poll)
    let overrides = before?.overrides ?? [];
    if (!account) {
      rules.block_terminal = policy.block_terminal
        ? { status: 'failed', reason: `there is no account named ${username} on this computer` }
        : { status: 'applied' };
    } else {
      try {
        const entries = policy.block_terminal ? findTerminalEntries(ctx.paths, this.env) : [];
        const wanted = new Set(entries.map((e) => e.id));
        const stale = overrides.filter((id) => !wanted.has(id));
        const change =
          entries.length || stale.length
            ? await changeOverrides(ctx.paths, account, entries, stale)
            : { written: [], theirs: [], removed: [] };
        overrides = change.written;
        if (!policy.block_terminal) rules.block_terminal = { status: 'applied' };
        else {
          const notes: string[] = [];
          if (entries.length === 0)
            notes.push('no terminal emulator is in the menus; launches are still ended');
          if (change.theirs.length)
            notes.push(
              `the account's own entries were left as they are (${names(change.theirs)}); their launches are still ended`,
            );
          rules.block_terminal = {
            status: 'applied',
            ...(notes.length ? { reason: clip(notes.join('; ')) } : {}),
          };
        }
      } catch (err) {
        const why = `the menu entries in ${account.home} could not be changed: ${(err as Error).message}`;
        // Launches are still ended: the rule holds, only the menus still show the terminals.
        rules.block_terminal = policy.block_terminal
          ? { status: 'applied', reason: clip(`${why}; terminals are still ended when started`) }
          : { status: 'failed', reason: clip(why) };
      }
    }

    const kept: KeptDevicePolicy = {
      linux_username: username,
      version,
      policy,
      rules: {},
      applied_at: new Date().toISOString(),
      overrides,
    };
    // Kept before the machine-wide rules so that their union counts this account's new policy.
    this.kept.set(username, kept);

    // Bluetooth: one switch for the computer.
    const wantOff = this.wantsBluetoothOff();
    const bt = await applyBluetooth(ctx.paths, this.env, wantOff, this.bluetooth);
    this.saveBluetooth(bt.state);
    const sharers = [...this.kept.values()]
      .filter((k) => k.policy.disable_bluetooth && k.linux_username !== username)
      .map((k) => k.linux_username);
    if (policy.disable_bluetooth)
      rules.disable_bluetooth =
        bt.result.status === 'applied' && others.length
          ? {
              status: 'applied',
              reason: clip(
                `Bluetooth is off for the whole computer (rfkill has one switch), so also for ${names(others)}`,
              ),
            }
          : bt.result;
    else
      rules.disable_bluetooth =
        wantOff && bt.result.status === 'applied'
          ? {
              status: 'applied',
              reason: clip(
                `Bluetooth stays off: the policy of ${names(sharers)} switches it off for the whole computer`,
              ),
            }
          : bt.result.status === 'applied'
            ? { status: 'applied' }
            : bt.result;

    // The browsers: one managed policy for the computer.
    const settings = this.browserSettings();
    let browserError: string | null = null;
    if (!ctx.browserPolicies) browserError = 'the browser policy part of the agent is not running';
    else
      try {
        ctx.browserPolicies.setSettings(settings);
      } catch (err) {
        browserError = `could not write the browsers' policy files: ${(err as Error).message}`;
      }
    const firefox = FIREFOX_PATHS.some((p) => existsSync(underRoot(ctx.paths, p)));
    for (const rule of BROWSER_RULES) {
      if (browserError) {
        rules[rule] = { status: 'failed', reason: clip(browserError) };
        continue;
      }
      const holders = [...this.kept.values()]
        .filter((k) => k.policy[rule] && k.linux_username !== username)
        .map((k) => k.linux_username);
      if (policy[rule]) {
        const notes: string[] = [];
        if (others.length)
          notes.push(
            `Chromium, Chrome, Brave and Edge read one policy for the whole computer, so this also holds for ${names(others)}`,
          );
        if (firefox)
          notes.push('Firefox is installed and is not managed by Hearth: this does not hold there');
        rules[rule] = notes.length
          ? { status: 'applied', reason: clip(notes.join('. ')) }
          : { status: 'applied' };
      } else
        rules[rule] = holders.length
          ? {
              status: 'applied',
              reason: clip(`still on for the whole computer: the policy of ${names(holders)} has it on`),
            }
          : { status: 'applied' };
    }

    kept.rules = Object.fromEntries(LINUX_POLICY_RULES.map((r) => [r, rules[r]]));
    ctx.state.write(fileOf(username), kept);
    return kept;
  }
}

export function devicePolicyModule(): AgentModule {
  const timers: NodeJS.Timeout[] = [];
  return {
    name: 'device-policy',
    start(ctx) {
      const log = ctx.log.child({ part: 'device-policy' });
      const env = process.env;
      const store = new DevicePolicies(ctx, env);
      ctx.deviceBrowserSettings = () => store.browserSettings();
      ctx.devicePolicies = { summary: (u) => store.summary(u) };

      const reap = () => {
        const uids = store.terminalUids();
        if (uids.size === 0) return;
        for (const p of terminalProcesses(new Set(uids.keys()))) {
          try {
            process.kill(p.pid, 'SIGKILL');
            log.info('terminal ended', { linux_username: uids.get(p.uid), pid: p.pid, program: p.program });
          } catch {
            // gone meanwhile
          }
        }
      };

      ctx.onCommand('set_device_policy', (args) => {
        if (args.kind !== 'linux')
          throw new Error(`this is a Linux computer: no ${String(args.kind)} policy here`);
        const username = args.linux_username;
        if (typeof username !== 'string' || !USERNAME.test(username))
          throw new Error('linux_username missing or malformed');
        const version = args.version;
        if (!Number.isInteger(version) || (version as number) < 0)
          throw new Error('version missing or malformed');
        const policy = readLinuxPolicy(args.policy);
        const anyOn = LINUX_POLICY_RULES.some((r) => policy[r]);
        // A policy is enforced only on an account of this computer; an all-off one (an account released)
        // is always taken, so that what an earlier policy did is undone.
        if (anyOn && !ctx.accounts().some((a) => a.username === username))
          throw new Error(`there is no account named ${username} on this computer`);
        // Answered at once (docs/protocol.md); the outcome of each rule follows in policy_applied.
        const ack = (rules: Record<string, RuleResult>) =>
          ctx.sendDurable(
            { type: 'policy_applied', kind: 'linux', linux_username: username, version, rules },
            `policy_applied:linux:${username}`,
          );
        store
          .apply(username, version as number, policy)
          .then((kept) => {
            reap();
            log.info('device policy applied', { linux_username: username, version, rules: kept.rules });
            ack(kept.rules);
            ctx.events.emit('devicePolicyApplied');
          })
          .catch((err) => {
            log.error('device policy not applied', { linux_username: username, version, err });
            const reason = clip(`the agent could not apply the policy: ${(err as Error).message}`);
            ack(Object.fromEntries(LINUX_POLICY_RULES.map((r) => [r, { status: 'failed', reason }])));
          });
        return { accepted: true, version };
      });

      // Enforced again at every start, before the server is asked anything: once every part has started
      // (the browser part, started after this one, writes the browsers' files).
      const first = setTimeout(() => {
        void store
          .enforceKept()
          .catch((err) => log.error('could not enforce the kept device policies', { err }));
      }, 0);
      timers.push(first);
      const reapEvery = positive(env.HEARTH_AGENT_PROCESS_POLL_MS, 1_000);
      const reaper = setInterval(() => {
        try {
          reap();
        } catch (err) {
          log.warn('terminal check failed', { err });
        }
      }, reapEvery);
      reaper.unref();
      const radio = setInterval(
        () => {
          void store.reassertBluetooth().catch((err) => log.warn('could not block Bluetooth again', { err }));
        },
        positive(env.HEARTH_AGENT_BLUETOOTH_CHECK_MS, 60_000),
      );
      radio.unref();
      timers.push(reaper, radio);
    },
    stop() {
      for (const t of timers) clearTimeout(t);
    },
  };
}
