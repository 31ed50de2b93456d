// Time accounting and enforcement for every account of the device (DESIGN §10, §14): counts active
// session time into the ledger, reports it, and for an account that belongs to a child applies the
// kept policy — warnings at 5 and 1 minutes left, the overlay at zero or outside the windows, the
// session locked after a grace — and watches the wall clock for tampering. Everything it touches
// outside itself (clocks, logind, the overlay, the server) is injected, so tests drive it directly.
import type { AgeTier, OverlayReason, ShowOverlayArgs, TimeRulesResult } from '@hearth/protocol';
import { DEFAULT_AGE_TIER, localDate } from '@hearth/protocol';
import type { HumanAccount } from '../accounts.js';
import type { Frame } from '../channel.js';
import type { OverlayControl } from '../context.js';
import type { Logger } from '../log.js';
import type { Clocks } from './clock.js';
import { decide } from './decide.js';
import type { LedgerStore } from './ledger.js';
import { UsageLedger } from './ledger.js';
import type { ActivitySource, LogindSession } from './logind.js';
import { type KeptTimePolicy, TimePolicyStore } from './policy.js';
import type { SessionTarget } from './run-as.js';
import { CLOCK_TAMPER_TOLERANCE_MS, JumpDetector } from './tamper.js';

export interface OverlayDetails {
  age_tier: AgeTier;
  parent_note: string | null;
  device_name: string;
}

export interface EnforcerDeps {
  clocks: Clocks;
  activity: ActivitySource;
  log: Logger;
  store: LedgerStore;
  accounts(): HumanAccount[];
  overlay(): OverlayControl | undefined;
  overlayDetails(username: string): OverlayDetails;
  /** Kept until the server takes it (the outbox); `key` keeps only the newest. */
  sendDurable(frame: Frame, key?: string): void;
  /** A desktop notification on the person's session. */
  notify(target: SessionTarget, title: string, body: string): Promise<void>;
  /** The executable in front on the session, when it can be told. */
  focused?(target: SessionTarget): Promise<string | null>;
  /** Server time minus our wall clock, freshly measured, in ms; null when the server cannot be asked. */
  serverMinusWall(): Promise<number | null>;
  /** The zone of the device: the day of an account that belongs to no child. */
  deviceZone: string;
  pollMs: number;
  /** Default seconds between the overlay and the lock (a policy's `lock_grace_seconds` wins). */
  graceSeconds: number;
}

export interface TamperState {
  tampered: boolean;
  since: string | null;
  jump_ms: number | null;
}

export interface AccountTimeStatus {
  date: string;
  state: TimeRulesResult['state'];
  used_seconds: number;
  remaining_seconds: number | null;
  next_change_at: string | null;
  /** The last warning given (minutes left), null when none is due. */
  warning: 5 | 1 | null;
  overlay: OverlayReason | null;
}

const TAMPER_FILE = 'time-tamper.json';
const STATUS_FILE = 'time-status.json';

const isTamper = (d: unknown): d is TamperState =>
  !!d && typeof d === 'object' && typeof (d as TamperState).tampered === 'boolean';

/** A session the person sits at: on this machine (not ssh), not being closed. */
const isLocal = (s: LogindSession) => !s.remote && s.state !== 'closing';
/** A session whose time counts: the one in front, unlocked, not idle. */
const isCounting = (s: LogindSession) => isLocal(s) && s.active && !s.locked && !s.idle;

export class TimeEnforcer {
  readonly ledger: UsageLedger;
  readonly policies: TimePolicyStore;
  private tamper: TamperState;
  private readonly jumps = new JumpDetector();
  private sessions: LogindSession[] = [];
  /** Accounts counting since the last sample, with the application in front. */
  private counting = new Map<string, { app: string | null }>();
  private lastMono: number;
  private readonly shown = new Map<string, string>();
  private readonly blockedSince = new Map<string, number>();
  private readonly warned = new Map<string, { date: string; level: 5 | 1 }>();
  private readonly status = new Map<string, AccountTimeStatus>();
  private statusText = '';
  private nextDelay: number | null = null;
  private checkingJump = false;

  constructor(private readonly deps: EnforcerDeps) {
    this.ledger = new UsageLedger(deps.store);
    this.policies = new TimePolicyStore(deps.store);
    this.tamper = deps.store.read(TAMPER_FILE, isTamper) ?? { tampered: false, since: null, jump_ms: null };
    this.lastMono = deps.clocks.mono();
    this.jumps.check(deps.clocks.wall(), deps.clocks.steady());
  }

  get tampered(): boolean {
    return this.tamper.tampered;
  }

  /** What enforcement says of each account with a session now (the IPC and status read it). */
  statusOf(username: string): AccountTimeStatus | null {
    return this.status.get(username) ?? null;
  }

  /** Ms until enforcement should look again without a poll (a state change, a warning, a lock), or null. */
  wakeDelay(): number | null {
    return this.nextDelay;
  }

  /** The day an account's use counts on: the household's date once it belongs to a child, else the device's. */
  dateOf(username: string, now = this.deps.clocks.wall()): string {
    const policy = this.policies.get(username);
    return localDate(now, policy?.managed_user_id ? policy.timezone : this.deps.deviceZone);
  }

  /** One poll: the clock, the sessions, then accounting and enforcement. */
  async poll(): Promise<void> {
    const { clocks } = this.deps;
    const jump = this.jumps.check(clocks.wall(), clocks.steady());
    if (jump !== null) await this.onJump(jump);
    const sessions = await this.deps.activity.sessions();
    this.accrue();
    // Without an answer nothing counts, but the last sessions known stay held (an overlay stays up).
    if (sessions) this.sessions = sessions;
    const accounts = new Map(this.deps.accounts().map((a) => [a.username, a]));
    const counting = new Map<string, { app: string | null }>();
    for (const s of sessions ?? []) {
      if (!isCounting(s) || !accounts.has(s.username) || counting.has(s.username)) continue;
      counting.set(s.username, { app: this.counting.get(s.username)?.app ?? null });
    }
    this.counting = counting;
    if (this.deps.focused) await this.readFocus(accounts);
    this.evaluate();
    const now = clocks.wall();
    const days = Object.fromEntries([...accounts.keys()].map((u) => [u, this.dateOf(u, now)]));
    this.deps.log.debug('sessions polled', {
      counting: [...counting.keys()],
      days,
      seconds: Object.fromEntries(
        Object.entries(days).map(([u, day]) => [u, Math.floor(this.ledger.localSeconds(u, day))]),
      ),
    });
  }

  private async readFocus(accounts: Map<string, HumanAccount>): Promise<void> {
    for (const [username, entry] of this.counting) {
      const session = this.sessions.find((s) => s.username === username && isCounting(s));
      const account = accounts.get(username);
      if (!session || !account || (session.type !== 'x11' && !session.display)) continue;
      entry.app =
        (await this.deps.focused?.({ account, display: session.display }).catch(() => null)) ?? null;
    }
  }

  /** Credits the time since the last sample to the accounts that were counting then. */
  private accrue(): void {
    const mono = this.deps.clocks.mono();
    // A gap longer than two polls is the process stalled or the machine asleep, not use.
    const elapsed = Math.min(mono - this.lastMono, 2 * this.deps.pollMs + 10_000);
    this.lastMono = mono;
    if (elapsed <= 0) return;
    const now = this.deps.clocks.wall();
    for (const [username, { app }] of this.counting)
      this.ledger.add(username, this.dateOf(username, now), elapsed, app);
  }

  /** Accounting up to now, then each account's verdict acted on. Cheap: no command runs. */
  evaluate(): void {
    this.accrue();
    const { clocks } = this.deps;
    const now = clocks.wall();
    const mono = clocks.mono();
    const present = new Set(this.sessions.filter(isLocal).map((s) => s.username));
    const delays: number[] = [];
    for (const username of new Set([...present, ...this.shown.keys(), ...this.status.keys()])) {
      const policy = this.policies.get(username);
      if (!present.has(username) || !policy?.managed_user_id) {
        this.release(username);
        continue;
      }
      const date = this.dateOf(username, now);
      const used = this.ledger.usedSeconds(username, date);
      const verdict = decide(policy, used, now, this.tamper.tampered);
      if (verdict.wakeAt !== null) delays.push(verdict.wakeAt - now);

      const key = verdict.overlay ? `${verdict.overlay.reason}:${verdict.overlay.context ?? ''}` : null;
      if (key && verdict.overlay) {
        if (this.shown.get(username) !== key) {
          this.shown.set(username, key);
          this.show(username, verdict.overlay.reason, verdict.overlay.context);
        }
        if (!this.blockedSince.has(username)) this.blockedSince.set(username, mono);
        const grace = (policy.lock_grace_seconds ?? this.deps.graceSeconds) * 1000;
        const since = this.blockedSince.get(username) as number;
        if (mono - since >= grace) {
          this.lockSessions(username);
          this.blockedSince.set(username, mono);
          delays.push(grace);
        } else delays.push(grace - (mono - since));
      } else {
        this.blockedSince.delete(username);
        if (this.shown.has(username)) {
          this.shown.delete(username);
          this.dismiss(username);
        }
      }

      const warned = this.warned.get(username);
      if (verdict.warning !== null) {
        if (!warned || warned.date !== verdict.rules.date || verdict.warning < warned.level) {
          this.warned.set(username, { date: verdict.rules.date, level: verdict.warning });
          this.warn(username, verdict.warning);
        }
      } else if (verdict.rules.allowed_now) this.warned.delete(username);

      this.status.set(username, {
        date,
        state: this.tamper.tampered ? 'locked' : verdict.rules.state,
        used_seconds: Math.floor(used),
        remaining_seconds:
          verdict.rules.remaining_seconds === null ? null : Math.floor(verdict.rules.remaining_seconds),
        next_change_at: verdict.rules.next_change_at,
        warning: verdict.warning,
        overlay: verdict.overlay?.reason ?? null,
      });
    }
    this.nextDelay = delays.length ? Math.max(0, Math.min(...delays)) : null;
    this.writeStatus();
  }

  private release(username: string): void {
    this.blockedSince.delete(username);
    this.warned.delete(username);
    this.status.delete(username);
    if (this.shown.delete(username)) this.dismiss(username);
  }

  private show(username: string, reason: OverlayReason, context?: 'paused'): void {
    const args: ShowOverlayArgs = {
      reason,
      linux_username: username,
      ...this.deps.overlayDetails(username),
      ...(context ? { context } : {}),
    };
    this.deps.log.info('asking the overlay to show', { linux_username: username, reason, context });
    const overlay = this.deps.overlay();
    if (!overlay) {
      this.deps.log.debug('no overlay part in this agent', { linux_username: username });
      return;
    }
    overlay
      .show(args)
      .catch((err) => this.deps.log.warn('the overlay did not show', { linux_username: username, err }));
  }

  private dismiss(username: string): void {
    this.deps.log.info('asking the overlay to dismiss', { linux_username: username });
    this.deps
      .overlay()
      ?.dismiss(username)
      .catch((err) => this.deps.log.warn('the overlay did not dismiss', { linux_username: username, err }));
  }

  private lockSessions(username: string): void {
    for (const s of this.sessions) {
      if (s.username !== username || !isLocal(s) || s.locked) continue;
      this.deps.log.info('locking the session', { linux_username: username, session: s.id });
      void this.deps.activity.lock(s.id).then((ok) => {
        if (ok) s.locked = true;
      });
    }
  }

  private warn(username: string, minutes: 5 | 1): void {
    this.deps.log.info('time warning', { linux_username: username, minutes_left: minutes });
    const account = this.deps.accounts().find((a) => a.username === username);
    const session = this.sessions.find((s) => s.username === username && isLocal(s));
    if (!account || !session) return;
    const body = minutes === 1 ? 'One minute of screen time left.' : 'Five minutes of screen time left.';
    this.deps
      .notify({ account, display: session.display }, 'Hearth', body)
      .catch((err) => this.deps.log.debug('no desktop notification', { linux_username: username, err }));
  }

  private writeStatus(): void {
    const doc = { tampered: this.tamper.tampered, accounts: Object.fromEntries(this.status) };
    const text = JSON.stringify(doc);
    if (text === this.statusText) return;
    this.statusText = text;
    try {
      this.deps.store.write(STATUS_FILE, doc);
    } catch (err) {
      this.deps.log.warn('could not write the time status', { err });
    }
  }

  // ——— the server's side ———

  /** `set_time_policy`: answers the version held after it. */
  applyPolicy(policy: KeptTimePolicy): { applied_version: number } {
    const { applied, version } = this.policies.apply(policy);
    if (applied) {
      this.deps.log.info('time policy applied', {
        linux_username: policy.linux_username,
        managed_user_id: policy.managed_user_id,
        version,
      });
      this.evaluate();
    }
    return { applied_version: version };
  }

  /** `time_status`: the child's use today on all devices. */
  serverUsage(username: string, date: string, usedSeconds: number): void {
    this.accrue();
    this.ledger.setServerSeconds(username, date, usedSeconds);
    this.evaluate();
  }

  /** Hands the changed totals to the outbox and keeps the ledger on disk. */
  report(): void {
    this.accrue();
    for (const report of this.ledger.takeReports())
      this.deps.sendDurable(
        { type: 'usage_report', ...report },
        `usage:${report.linux_username}:${report.date}`,
      );
    this.ledger.save();
  }

  private async onJump(jump: number): Promise<void> {
    if (this.tamper.tampered || this.checkingJump) return;
    this.checkingJump = true;
    let serverOffset: number | null = null;
    try {
      serverOffset = await this.deps.serverMinusWall();
    } catch {
      serverOffset = null;
    } finally {
      this.checkingJump = false;
    }
    // A jump that brings the clock to the server's time is a correction (NTP), not a child's doing.
    if (serverOffset !== null && Math.abs(serverOffset) <= CLOCK_TAMPER_TOLERANCE_MS) {
      this.deps.log.info('the wall clock moved and now agrees with the server', {
        jump_ms: Math.round(jump),
      });
      return;
    }
    this.tamper = {
      tampered: true,
      since: new Date(this.deps.clocks.wall()).toISOString(),
      jump_ms: Math.round(jump),
    };
    this.deps.store.write(TAMPER_FILE, this.tamper);
    const who = this.sessions.find(
      (s) => isLocal(s) && this.policies.get(s.username)?.managed_user_id,
    )?.username;
    this.deps.log.warn('clock tamper detected', {
      jump_ms: Math.round(jump),
      server_offset_ms: serverOffset === null ? null : Math.round(serverOffset),
    });
    this.deps.sendDurable({
      type: 'alert_event',
      event_type: 'clock_tamper',
      ...(who ? { linux_username: who } : {}),
      detail: {
        jump_seconds: Math.round(jump / 1000),
        device_time: this.tamper.since,
        server_offset_seconds: serverOffset === null ? null : Math.round(serverOffset / 1000),
      },
    });
  }

  /** `clear_clock_tamper`: a parent lifted the lockdown. */
  clearTamper(): void {
    this.tamper = { tampered: false, since: null, jump_ms: null };
    this.deps.store.write(TAMPER_FILE, this.tamper);
    this.jumps.check(this.deps.clocks.wall(), this.deps.clocks.steady());
    this.deps.log.info('clock tamper cleared');
    this.evaluate();
  }
}

export const DEFAULT_OVERLAY_DETAILS = (deviceName: string): OverlayDetails => ({
  age_tier: DEFAULT_AGE_TIER,
  parent_note: null,
  device_name: deviceName,
});
