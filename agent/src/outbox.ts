// Messages that must reach the server even when it is away (usage, alerts, policy acknowledgements):
// kept in the state directory until written to an authenticated socket, then sent in order, once.
// A message with a key replaces an older one with the same key (a running total, the newest applied
// version), so a week offline is a few entries, not thousands.
import type { Logger } from './log.js';
import type { StateStore } from './state.js';

export interface OutboxEntry {
  seq: number;
  key?: string;
  msg: { type: string } & Record<string, unknown>;
}

const FILE = 'outbox.json';
/** Entries kept at most; past this the oldest unkeyed ones are dropped (logged). */
export const OUTBOX_LIMIT = 5000;

const isEntries = (d: unknown): d is { next: number; entries: OutboxEntry[] } =>
  !!d &&
  typeof d === 'object' &&
  typeof (d as { next?: unknown }).next === 'number' &&
  Array.isArray((d as { entries?: unknown }).entries) &&
  (d as { entries: unknown[] }).entries.every(
    (e) =>
      !!e &&
      typeof e === 'object' &&
      typeof (e as OutboxEntry).seq === 'number' &&
      typeof (e as OutboxEntry).msg?.type === 'string',
  );

export class Outbox {
  private entries: OutboxEntry[];
  private next: number;
  private flushing = false;

  constructor(
    private readonly state: StateStore,
    private readonly log: Logger,
  ) {
    const kept = state.read(FILE, isEntries);
    this.entries = kept?.entries ?? [];
    this.next = kept?.next ?? 1;
  }

  get size(): number {
    return this.entries.length;
  }

  peek(): readonly OutboxEntry[] {
    return this.entries;
  }

  add(msg: OutboxEntry['msg'], key?: string): void {
    if (key) {
      const i = this.entries.findIndex((e) => e.key === key);
      if (i >= 0) this.entries.splice(i, 1);
    }
    this.entries.push({ seq: this.next++, ...(key ? { key } : {}), msg });
    if (this.entries.length > OUTBOX_LIMIT) {
      const drop = this.entries.findIndex((e) => !e.key);
      const [gone] = this.entries.splice(drop >= 0 ? drop : 0, 1);
      this.log.warn('outbox full; dropped the oldest message', { type: gone?.msg.type });
    }
    this.save();
  }

  /**
   * Sends every entry through `send` in order; each is removed once `send` resolves (the socket took
   * it). Stops at the first failure and keeps the rest for the next connection.
   */
  async flush(send: (msg: OutboxEntry['msg']) => Promise<void>): Promise<number> {
    if (this.flushing) return 0;
    this.flushing = true;
    let sent = 0;
    try {
      for (let entry = this.entries[0]; entry; entry = this.entries[0]) {
        await send(entry.msg);
        this.log.debug('outbox message sent', { type: entry.msg.type, key: entry.key });
        // The entry may have been replaced by a newer one with its key while we waited.
        if (this.entries[0]?.seq === entry.seq) this.entries.shift();
        sent++;
        if (sent % 100 === 0) this.save();
      }
    } catch (err) {
      this.log.info('outbox flush paused', { err, left: this.entries.length });
    } finally {
      this.flushing = false;
      if (sent) {
        this.save();
        this.log.info('outbox sent', { count: sent, left: this.entries.length });
      }
    }
    return sent;
  }

  private save(): void {
    this.state.write(FILE, { next: this.next, entries: this.entries });
  }
}
