// The one connection to the native host `com.hearth.agent` (DESIGN §14): requests carry ids and are
// answered `{id, …}`; the host may push `{type:"POLICY_CHANGED", version}`. A host that never answers
// fails the request after a timeout (and twice in a row, is restarted); one that answers something that is
// not an object, or goes away, is reconnected with a growing back-off. While the port is open Chromium
// keeps the service worker alive, which is what keeps the domain policy in memory.

/** The part of chrome.runtime.Port we use (a fake one in tests). */
export interface NativePort {
  postMessage(message: unknown): void;
  disconnect(): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: () => void): void };
}

/** Why a request failed without an answer from the agent. */
export type TransportError = 'timeout' | 'host_missing' | 'host_failed';

export class NativeError extends Error {
  constructor(readonly code: TransportError) {
    super(`native host: ${code}`);
  }
}

export type Answer = Record<string, unknown>;

export interface NativeChannelOptions {
  /** chrome.runtime.connectNative(name); may throw. */
  connect(): NativePort;
  /** chrome.runtime.lastError?.message, read inside onDisconnect. */
  lastError(): string | undefined;
  /** A push from the host (no id). */
  onPush(message: Answer): void;
  /** A port opened (first time and after each reconnect): the place to ask for what a push would announce. */
  onOpen(): void;
  /** The transport state after a disconnect, or 'open' after an answer. */
  onTransport(state: 'open' | TransportError): void;
  timeoutMs?: number;
  /** Back-off between reconnects: first and last step (ms). */
  backoffMs?: [number, number];
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

interface Pending {
  resolve(answer: Answer): void;
  reject(error: NativeError): void;
  timer: unknown;
}

const NOT_FOUND = /not found|forbidden/i;
/** Two unanswered requests in a row: the host is stuck, so start a fresh one. */
const STUCK_AFTER = 2;

export class NativeChannel {
  private port: NativePort | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private unanswered = 0;
  private failures = 0;
  private reconnectTimer: unknown = null;
  private readonly timeoutMs: number;
  private readonly backoff: [number, number];
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;

  constructor(private readonly o: NativeChannelOptions) {
    this.timeoutMs = o.timeoutMs ?? 5_000;
    this.backoff = o.backoffMs ?? [1_000, 60_000];
    this.setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = o.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  }

  get open(): boolean {
    return this.port !== null;
  }

  /** Opens the port now unless it is open (a request does this itself). */
  start(): void {
    this.ensurePort();
  }

  /** Sends `{id, …message}`; resolves with the host's answer, or rejects with a NativeError. */
  request(message: { type: string } & Record<string, unknown>): Promise<Answer> {
    const port = this.ensurePort();
    if (!port) return Promise.reject(new NativeError('host_missing'));
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      const timer = this.setTimer(() => {
        this.pending.delete(id);
        this.unanswered += 1;
        reject(new NativeError('timeout'));
        this.o.onTransport('timeout');
        if (this.unanswered >= STUCK_AFTER && this.port === port) this.drop(port, 'host_failed');
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      try {
        port.postMessage({ ...message, id });
      } catch {
        // postMessage throws once the port is gone; onDisconnect (or drop) rejects what waits.
        this.drop(port, 'host_failed');
      }
    });
  }

  private ensurePort(): NativePort | null {
    if (this.port) return this.port;
    if (this.reconnectTimer !== null) {
      this.clearTimer(this.reconnectTimer);
      this.reconnectTimer = null;
    }
    let port: NativePort;
    try {
      port = this.o.connect();
    } catch {
      this.failed('host_missing');
      return null;
    }
    this.port = port;
    this.unanswered = 0;
    port.onMessage.addListener((message) => this.receive(port, message));
    port.onDisconnect.addListener(() => {
      const error = this.o.lastError() ?? '';
      if (this.port === port) this.drop(port, NOT_FOUND.test(error) ? 'host_missing' : 'host_failed', false);
    });
    this.o.onOpen();
    return port;
  }

  private receive(port: NativePort, message: unknown): void {
    if (this.port !== port) return;
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      this.drop(port, 'host_failed');
      return;
    }
    const answer = message as Answer;
    const id = answer.id;
    if (typeof id === 'number' && this.pending.has(id)) {
      const p = this.pending.get(id) as Pending;
      this.pending.delete(id);
      this.clearTimer(p.timer);
      this.unanswered = 0;
      this.failures = 0;
      this.o.onTransport('open');
      const { id: _id, ...rest } = answer;
      p.resolve(rest);
      return;
    }
    // A push has no id; an answer that comes after its timeout is dropped.
    if (id === undefined && typeof answer.type === 'string') this.o.onPush(answer);
  }

  /** Forgets the port (closing it when we chose to), fails what waits, and reconnects later. */
  private drop(port: NativePort, why: TransportError, close = true): void {
    if (this.port !== port) return;
    this.port = null;
    if (close) {
      try {
        port.disconnect();
      } catch {
        // already gone
      }
    }
    for (const [id, p] of this.pending) {
      this.clearTimer(p.timer);
      this.pending.delete(id);
      p.reject(new NativeError(why));
    }
    this.failed(why);
  }

  private failed(why: TransportError): void {
    this.failures += 1;
    this.o.onTransport(why);
    const [first, last] = this.backoff;
    const delay = Math.min(last, first * 2 ** Math.min(this.failures - 1, 16));
    if (this.reconnectTimer !== null) this.clearTimer(this.reconnectTimer);
    this.reconnectTimer = this.setTimer(() => {
      this.reconnectTimer = null;
      this.ensurePort();
    }, delay);
  }
}
