// The running totals of use per account and day, kept in the state directory so that a restart (or a
// crash: at most one report's worth is lost) does not give a child their day again. A damaged file is
// logged and ignored by the state store; the totals then start again from what the server knows.
import { MAX_USAGE_APPS_PER_REPORT, MAX_USAGE_SECONDS, type UsageApp } from '@hearth/protocol';

export interface DayUsage {
  /** Use counted on this device, ms. */
  ms: number;
  /** Per application (absolute executable path), ms. */
  apps: Record<string, number>;
  /** The whole seconds last handed to the outbox (a report goes out only when this changes). */
  sent: number;
  /** The child's use on all devices that day, as the server last said (`time_status`), seconds. */
  server: number;
  /** `ms` when the server said it: this device's use since then is not in `server` yet. */
  serverAtMs?: number;
}

type Days = Record<string, Record<string, DayUsage>>;

export interface LedgerStore {
  read<T>(name: string, valid: (d: unknown) => d is T): T | null;
  write(name: string, data: unknown): void;
}

const FILE = 'time-usage.json';
/** Days kept per account: today, and the days before it whose last report may still be waiting. */
const KEEP_DAYS = 3;

const isDays = (d: unknown): d is Days =>
  !!d &&
  typeof d === 'object' &&
  Object.values(d).every(
    (days) =>
      !!days &&
      typeof days === 'object' &&
      Object.values(days as object).every(
        (u: DayUsage) =>
          !!u &&
          Number.isFinite(u.ms) &&
          Number.isFinite(u.sent) &&
          Number.isFinite(u.server) &&
          !!u.apps &&
          typeof u.apps === 'object',
      ),
  );

export interface UsageReport {
  linux_username: string;
  date: string;
  seconds_used: number;
  apps?: UsageApp[];
}

export class UsageLedger {
  private days: Days;
  private dirty = false;

  constructor(private readonly store: LedgerStore) {
    this.days = store.read(FILE, isDays) ?? {};
  }

  private day(username: string, date: string): DayUsage {
    const account = this.days[username] ?? {};
    this.days[username] = account;
    let day = account[date];
    if (!day) {
      day = { ms: 0, apps: {}, sent: -1, server: 0 };
      account[date] = day;
      const dates = Object.keys(account).sort();
      for (const old of dates.slice(0, Math.max(0, dates.length - KEEP_DAYS))) delete account[old];
    }
    return day;
  }

  add(username: string, date: string, ms: number, app?: string | null): void {
    if (!(ms > 0)) return;
    const day = this.day(username, date);
    day.ms = Math.min(day.ms + ms, MAX_USAGE_SECONDS * 1000);
    if (app) day.apps[app] = Math.min((day.apps[app] ?? 0) + ms, MAX_USAGE_SECONDS * 1000);
    this.dirty = true;
  }

  /** What the server says the child used that day on all devices. */
  setServerSeconds(username: string, date: string, seconds: number): void {
    const day = this.day(username, date);
    day.server = Math.max(0, Math.min(seconds, MAX_USAGE_SECONDS));
    day.serverAtMs = day.ms;
    this.dirty = true;
  }

  localSeconds(username: string, date: string): number {
    return (this.days[username]?.[date]?.ms ?? 0) / 1000;
  }

  /**
   * The seconds the rules are given: the larger of this device's count and the server's all-devices
   * total plus what this device counted since the server said it (the total holds our use only up to
   * the report it had then).
   */
  usedSeconds(username: string, date: string): number {
    const day = this.days[username]?.[date];
    if (!day) return 0;
    return Math.max(day.ms / 1000, day.server + (day.ms - (day.serverAtMs ?? day.ms)) / 1000);
  }

  /** The reports whose whole seconds changed since they were last taken; marks them taken. */
  takeReports(): UsageReport[] {
    const out: UsageReport[] = [];
    for (const [username, days] of Object.entries(this.days)) {
      for (const [date, day] of Object.entries(days)) {
        const seconds = Math.floor(day.ms / 1000);
        if (seconds === day.sent || seconds === 0) continue;
        day.sent = seconds;
        this.dirty = true;
        const apps = Object.entries(day.apps)
          .map(([identifier, ms]) => ({
            identifier,
            match_type: 'executable' as const,
            seconds: Math.floor(ms / 1000),
          }))
          .filter((a) => a.seconds > 0)
          .sort((a, b) => b.seconds - a.seconds)
          .slice(0, MAX_USAGE_APPS_PER_REPORT);
        out.push({ linux_username: username, date, seconds_used: seconds, ...(apps.length ? { apps } : {}) });
      }
    }
    return out;
  }

  save(): void {
    if (!this.dirty) return;
    this.store.write(FILE, this.days);
    this.dirty = false;
  }
}
