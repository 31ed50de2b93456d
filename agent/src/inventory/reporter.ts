// Sends the inventory (DESIGN §5, §14): after the socket authenticates, every 24 h and on
// `refresh_installed_apps`. Icons go first, each once (the hashes the server acknowledged are kept), so
// a report never points at an icon the server refused; then the report in chunks. An account whose
// report is unchanged since the server last took it is skipped unless a parent asked for a rescan.
import { randomUUID } from 'node:crypto';
import { MAX_APPS_PER_CHUNK, MAX_CHUNKS_PER_REPORT } from '@hearth/protocol';
import type { Frame } from '../channel.js';
import type { AgentContext, AgentModule } from '../context.js';
import { type AccountInventory, InventoryCollector, inventoryHash } from './inventory.js';

export const REPORT_INTERVAL_MS = 24 * 60 * 60_000;
const STATE_FILE = 'inventory.json';
/** How long an ack may take before the agent gives up on it (the next scan tries again). */
const ACK_TIMEOUT_MS = 60_000;
/** Icons sent before their acks come back. */
const ICON_WINDOW = 16;
/** Frames a second, under the server's budget (docs/protocol.md, "Budgets") even for thousands of icons. */
const FRAMES_PER_SECOND = 100;

interface InventoryState {
  system_id: string;
  /** Per account, the hash of the last report the server completed. */
  reports: Record<string, string>;
  /** Icons the server has (acked, new or duplicate). */
  icons: string[];
}

const isState = (d: unknown): d is InventoryState =>
  !!d &&
  typeof d === 'object' &&
  typeof (d as InventoryState).system_id === 'string' &&
  !!(d as InventoryState).reports &&
  typeof (d as InventoryState).reports === 'object' &&
  Array.isArray((d as InventoryState).icons);

type Waiter<T> = { resolve: (value: T | null) => void; timer: NodeJS.Timeout };

export class InventoryReporter {
  private running = false;
  private again: { force: boolean } | null = null;
  private readonly iconAcks = new Map<string, Waiter<{ success: boolean }>>();
  private readonly reportAcks = new Map<string, Waiter<Record<string, unknown>>>();
  private sentAt: number[] = [];
  private stopped = false;

  constructor(
    private readonly ctx: AgentContext,
    private readonly collector: InventoryCollector,
  ) {}

  onIconAck(frame: Frame): void {
    const hash = frame.content_hash;
    if (typeof hash === 'string') settle(this.iconAcks, hash, { success: frame.success === true });
  }

  onReportAck(frame: Frame): void {
    const id = frame.report_id;
    // `pending:true` acks only say a chunk arrived; the one that completes (or refuses) the report counts.
    if (typeof id === 'string' && frame.pending !== true) settle(this.reportAcks, id, frame);
  }

  /** Scans and reports soon; a request during a pass runs one more pass after it. */
  request(force: boolean): void {
    if (this.running) {
      this.again = { force: force || !!this.again?.force };
      return;
    }
    this.running = true;
    void (async () => {
      let next: { force: boolean } | null = { force };
      while (next && !this.stopped) {
        this.again = null;
        try {
          await this.pass(next.force);
        } catch (err) {
          this.ctx.log.warn('inventory pass failed', { err: String(err) });
        }
        next = this.again;
      }
      this.running = false;
    })();
  }

  stop(): void {
    this.stopped = true;
    for (const map of [this.iconAcks, this.reportAcks] as Map<string, Waiter<unknown>>[])
      for (const key of [...map.keys()]) settle(map, key, null);
  }

  private readState(): InventoryState {
    const kept = this.ctx.state.read(STATE_FILE, isState);
    // Another enrolment is another server record: nothing it had is known to be there.
    return kept && kept.system_id === this.ctx.systemId
      ? kept
      : { system_id: this.ctx.systemId, reports: {}, icons: [] };
  }

  /** One scan and the reports it calls for. */
  async pass(force: boolean): Promise<void> {
    if (!this.ctx.connected()) return;
    const started = Date.now();
    const accounts = this.ctx.accounts();
    const inventories = await this.collector.collect(accounts);
    const scanMs = Date.now() - started;
    const state = this.readState();
    const acked = new Set(state.icons);
    const referenced = new Set<string>();
    for (const inv of inventories) {
      if (this.stopped || !this.ctx.connected()) return;
      const before = inventoryHash(inv.username, inv.apps);
      for (const a of inv.apps) if (a.icon_hash) referenced.add(a.icon_hash);
      if (!force && state.reports[inv.username] === before) {
        this.ctx.log.debug('installed apps unchanged; not sent', { linux_username: inv.username });
        continue;
      }
      const iconsSent = await this.sendIcons(inv, acked);
      if (iconsSent === null) return;
      const outcome = await this.sendReport(inv);
      if (outcome === null) return;
      if (outcome.success === true) {
        state.reports[inv.username] = inventoryHash(inv.username, inv.apps);
        this.ctx.log.info('installed apps reported', {
          linux_username: inv.username,
          apps: inv.apps.length,
          icons_sent: iconsSent,
          apps_upserted: outcome.apps_upserted,
          apps_removed: outcome.apps_removed,
          scan_ms: scanMs,
        });
      } else {
        delete state.reports[inv.username];
        this.ctx.log.warn('the server refused the installed-apps report', {
          linux_username: inv.username,
          error: outcome.error,
        });
      }
    }
    const present = new Set(accounts.map((a) => a.username));
    for (const username of Object.keys(state.reports))
      if (!present.has(username)) delete state.reports[username];
    state.icons = [...acked].filter((h) => referenced.has(h));
    this.ctx.state.write(STATE_FILE, state);
  }

  /**
   * Sends the account's icons the server does not have; an icon it refuses (or does not ack) is
   * dropped from the apps. Returns how many were sent, or null when the socket went away.
   */
  private async sendIcons(inv: AccountInventory, acked: Set<string>): Promise<number | null> {
    const missing = [...inv.icons.keys()].filter((h) => !acked.has(h));
    const refused = new Set<string>();
    const inFlight = new Set<Promise<void>>();
    for (const hash of missing) {
      while (inFlight.size >= ICON_WINDOW) await Promise.race(inFlight);
      const ack = this.waitFor(this.iconAcks, hash);
      const png = inv.icons.get(hash) as Buffer;
      await this.pace();
      const sent = await this.ctx.sendNow({
        type: 'app_icon_report',
        content_hash: hash,
        mime_type: 'image/png',
        data_base64: png.toString('base64'),
      });
      if (!sent) {
        settle(this.iconAcks, hash, null);
        return null;
      }
      const done: Promise<void> = ack.then((result) => {
        if (result?.success) acked.add(hash);
        else refused.add(hash);
        inFlight.delete(done);
      });
      inFlight.add(done);
    }
    await Promise.all(inFlight);
    if (refused.size) {
      this.ctx.log.warn('icons not taken by the server; reported without them', { count: refused.size });
      for (const app of inv.apps) if (app.icon_hash && refused.has(app.icon_hash)) app.icon_hash = null;
    }
    return missing.length;
  }

  /** The report in chunks; resolves to the completing ack, or null when it could not be sent. */
  private async sendReport(inv: AccountInventory): Promise<Record<string, unknown> | null> {
    const apps = inv.apps.slice(0, MAX_APPS_PER_CHUNK * MAX_CHUNKS_PER_REPORT);
    const total = Math.max(1, Math.ceil(apps.length / MAX_APPS_PER_CHUNK));
    const reportId = randomUUID();
    const reportedAt = new Date().toISOString();
    const ack = this.waitFor(this.reportAcks, reportId);
    for (let i = 0; i < total; i++) {
      await this.pace();
      const sent = await this.ctx.sendNow({
        type: 'installed_apps_report',
        report_id: reportId,
        linux_username: inv.username,
        chunk_index: i,
        chunk_total: total,
        is_final: i === total - 1,
        reported_at: reportedAt,
        apps: apps.slice(i * MAX_APPS_PER_CHUNK, (i + 1) * MAX_APPS_PER_CHUNK),
      });
      if (!sent) {
        settle(this.reportAcks, reportId, null);
        return null;
      }
    }
    return ack;
  }

  private waitFor<T>(map: Map<string, Waiter<T>>, key: string): Promise<T | null> {
    settle(map, key, null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(map, key, null), ACK_TIMEOUT_MS);
      timer.unref();
      map.set(key, { resolve, timer });
    });
  }

  /** Keeps the frames of one pass under FRAMES_PER_SECOND. */
  private async pace(): Promise<void> {
    const now = Date.now();
    this.sentAt = this.sentAt.filter((t) => now - t < 1000);
    if (this.sentAt.length >= FRAMES_PER_SECOND) {
      const wait = 1000 - (now - (this.sentAt[0] as number));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.sentAt.push(Date.now());
  }
}

function settle<T>(map: Map<string, Waiter<T>>, key: string, value: T | null): void {
  const w = map.get(key);
  if (!w) return;
  map.delete(key);
  clearTimeout(w.timer);
  w.resolve(value);
}

export function inventoryModule(env: NodeJS.ProcessEnv = process.env): AgentModule {
  let reporter: InventoryReporter | null = null;
  let timer: NodeJS.Timeout | null = null;
  return {
    name: 'inventory',
    start(ctx) {
      const collector = new InventoryCollector(ctx.paths, env, (file, err) =>
        ctx.log.warn('icon skipped', { file, reason: err instanceof Error ? err.message : String(err) }),
      );
      const r = new InventoryReporter(ctx, collector);
      reporter = r;
      ctx.onPush('app_icon_report_ack', (frame) => r.onIconAck(frame));
      ctx.onPush('installed_apps_report_ack', (frame) => r.onReportAck(frame));
      ctx.onCommand('refresh_installed_apps', () => {
        // The answer goes out first; the scan follows.
        setImmediate(() => r.request(true));
        return { queued: true };
      });
      ctx.events.on('authenticated', () => r.request(false));
      timer = setInterval(() => r.request(false), REPORT_INTERVAL_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      reporter?.stop();
    },
  };
}
