import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import { api } from './client';

/** The event names of GET /api/dashboard/events. */
export const SERVER_KINDS = [
  'access_requested',
  'alert_created',
  'device_pending',
  'device_status',
  'approval_created',
  'approval_decided',
  'installed_apps_updated',
  'console_synced',
] as const;

export type ServerKind = (typeof SERVER_KINDS)[number];
/** Changes made in this tab that the server does not announce; they travel the same way. */
export type LocalKind = 'alert_acknowledged';
/** Kinds of change a page can follow. */
export type LiveKind = ServerKind | LocalKind;

export type LiveData = Record<string, unknown>;
type Handler = (data: LiveData, kind: LiveKind) => void;

const EVENTS_PATH = '/api/dashboard/events';

/**
 * Pages ask again this often even while the stream is quiet, for changes no event announces (a child
 * mapped to a device in another tab, today's screen time) and in case an event was lost.
 */
export const FALLBACK_REFRESH_MS = 60_000;
/** Events come in bursts (a device connects and is approved); one fetch answers a burst. */
const COALESCE_MS = 50;
/** When the browser gives up on the stream (a proxy error, a restart), Hearth tries again itself. */
const RECONNECT_MS = [2_000, 5_000, 15_000, 30_000, 60_000];

/** Subscribers by kind, and those that want to catch up whenever the stream (re)opens. */
export class LiveHub {
  private readonly handlers = new Map<LiveKind, Set<Handler>>();
  private readonly resyncs = new Set<() => void>();

  on(kinds: readonly LiveKind[], handler: Handler): () => void {
    for (const kind of kinds) {
      let set = this.handlers.get(kind);
      if (!set) {
        set = new Set();
        this.handlers.set(kind, set);
      }
      set.add(handler);
    }
    return () => {
      for (const kind of kinds) this.handlers.get(kind)?.delete(handler);
    };
  }

  onResync(handler: () => void): () => void {
    this.resyncs.add(handler);
    return () => this.resyncs.delete(handler);
  }

  emit(kind: LiveKind, data: LiveData): void {
    for (const handler of [...(this.handlers.get(kind) ?? [])]) handler(data, kind);
  }

  /** Everyone fetches again: the stream just (re)opened, or this tab changed many things at once. */
  resync(): void {
    for (const handler of [...this.resyncs]) handler();
  }
}

function parse(text: string): LiveData | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as LiveData) : null;
  } catch {
    return null;
  }
}

const LiveContext = createContext<LiveHub | null>(null);

/**
 * One event stream for the signed-in tab. The browser's EventSource reconnects by itself and sends
 * Last-Event-ID, so the server replays what was missed; every (re)open still asks subscribers to
 * catch up, since events raised before the stream opened, or beyond the server's replay, are gone.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const [hub] = useState(() => new LiveHub());

  useEffect(() => {
    let source: EventSource | null = null;
    let retry: number | undefined;
    let failures = 0;

    const connect = () => {
      const current = new EventSource(EVENTS_PATH);
      source = current;
      for (const kind of SERVER_KINDS) {
        current.addEventListener(kind, (event) => {
          const data = parse((event as MessageEvent<string>).data);
          if (data) hub.emit(kind, data);
        });
      }
      current.onopen = () => {
        failures = 0;
        hub.resync();
      };
      current.onerror = () => {
        if (current.readyState !== EventSource.CLOSED) return; // the browser is already retrying
        current.close();
        // A stream refused with 401 means the session ended; asking for it signs the tab out.
        api.get('/api/session').catch(() => {});
        const delay = RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)] ?? 60_000;
        failures += 1;
        retry = window.setTimeout(connect, delay);
      };
    };

    connect();
    return () => {
      window.clearTimeout(retry);
      source?.close();
    };
  }, [hub]);

  return <LiveContext.Provider value={hub}>{children}</LiveContext.Provider>;
}

export function useLiveHub(): LiveHub {
  const hub = useContext(LiveContext);
  if (!hub) throw new Error('live updates need <LiveProvider>');
  return hub;
}

/** Calls `handler` with each event of the given kinds, as it arrives. */
export function useLiveEvent(kinds: readonly LiveKind[], handler: (data: LiveData, kind: LiveKind) => void) {
  const hub = useLiveHub();
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  }, [handler]);
  const topic = kinds.join(' ');
  useEffect(() => {
    if (!topic) return;
    return hub.on(topic.split(' ') as LiveKind[], (data, kind) => latest.current(data, kind));
  }, [hub, topic]);
}

/**
 * Calls `refresh` whenever something of the given kinds may have changed, so the page stays current
 * without a reload: on each such event (a burst makes one call), when the stream (re)opens, when the
 * tab becomes visible again, and every minute while it is visible.
 */
export function useLiveRefresh(kinds: readonly LiveKind[], refresh: () => void): void {
  const hub = useLiveHub();
  const latest = useRef(refresh);
  useEffect(() => {
    latest.current = refresh;
  }, [refresh]);

  const topic = kinds.join(' ');
  useEffect(() => {
    let timer: number | undefined;
    const soon = () => {
      if (timer !== undefined) return;
      timer = window.setTimeout(() => {
        timer = undefined;
        latest.current();
      }, COALESCE_MS);
    };
    const whenVisible = () => {
      if (document.visibilityState === 'visible') soon();
    };
    const offEvents = topic ? hub.on(topic.split(' ') as LiveKind[], soon) : () => {};
    const offResync = hub.onResync(soon);
    const fallback = window.setInterval(whenVisible, FALLBACK_REFRESH_MS);
    document.addEventListener('visibilitychange', whenVisible);
    return () => {
      offEvents();
      offResync();
      window.clearTimeout(timer);
      window.clearInterval(fallback);
      document.removeEventListener('visibilitychange', whenVisible);
    };
  }, [hub, topic]);
}
