import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

export type BusHandler = (message: unknown) => void;

/**
 * Messages between server instances: a command for a device held by another instance, a device
 * decision that must reach the socket, live events for dashboards. In-process when there is one
 * instance; Redis pub/sub when HEARTH_REDIS_URL is set.
 */
export interface Bus {
  publish(channel: string, message: unknown): Promise<void>;
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>>;
  /**
   * Called each time the subscription comes back after a break: messages published meanwhile are
   * lost, so whoever keeps state from them (the read cache) starts over.
   */
  onReconnect(handler: () => void): void;
  close(): Promise<void>;
}

export class MemoryBus implements Bus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, message: unknown): Promise<void> {
    // Delivered on a later tick, as over a network, so publishers never run handlers re-entrantly.
    const copy = JSON.parse(JSON.stringify(message));
    queueMicrotask(() => this.emitter.emit(channel, copy));
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    this.emitter.on(channel, handler);
    return async () => {
      this.emitter.off(channel, handler);
    };
  }

  onReconnect(): void {
    // One process: nothing is ever lost.
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

export class RedisBus implements Bus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Set<BusHandler>>();
  private readonly reconnectHandlers: (() => void)[] = [];
  private connectedOnce = false;

  constructor(
    url: string,
    private readonly prefix = 'hearth:bus:',
  ) {
    this.pub = new Redis(url, { maxRetriesPerRequest: 2 });
    this.sub = new Redis(url, { maxRetriesPerRequest: null, connectionName: `${prefix}sub` });
    this.sub.on('message', (channel: string, text: string) => {
      const set = this.handlers.get(channel.slice(this.prefix.length));
      if (!set) return;
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        return;
      }
      for (const handler of set) handler(message);
    });
    // ioredis subscribes again by itself after a reconnect; what was published meanwhile is gone.
    this.sub.on('ready', () => {
      if (this.connectedOnce) for (const handler of this.reconnectHandlers) handler();
      this.connectedOnce = true;
    });
  }

  onReconnect(handler: () => void): void {
    this.reconnectHandlers.push(handler);
  }

  async publish(channel: string, message: unknown): Promise<void> {
    await this.pub.publish(this.prefix + channel, JSON.stringify(message));
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await this.sub.subscribe(this.prefix + channel);
    }
    set.add(handler);
    return async () => {
      const current = this.handlers.get(channel);
      current?.delete(handler);
      if (current && current.size === 0) {
        this.handlers.delete(channel);
        await this.sub.unsubscribe(this.prefix + channel).catch(() => {});
      }
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}
