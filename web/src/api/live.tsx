import { type AlertView, LIVE_EVENT_KINDS, type LiveEventData, type LiveEventKind } from '@hearth/protocol';
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import { api } from './client';
import { invalidatedBy } from './live-invalidation';

/** Changes made in this tab that the server does not announce; they travel the same way. */
export type LocalKind = 'alert_acknowledged';
/** Kinds of change a component can follow. */
export type LiveKind = LiveEventKind | LocalKind;
/** The data of each kind: the server's as `@hearth/protocol` types it, and the tab's own. */
export type LiveKindData = LiveEventData & { alert_acknowledged: AlertView };

type LiveData = Record<string, unknown>;
type Handler = (data: unknown, kind: LiveKind) => void;

const EVENTS_PATH = '/api/dashboard/events';

/** Events come in bursts (a device connects and is approved); one fetch answers a burst. */
const COALESCE_MS = 50;
/** When the browser gives up on the stream (a proxy error, a restart), Hearth tries again itself. */
const RECONNECT_MS = [2_000, 5_000, 15_000, 30_000, 60_000];

/** Subscribers by kind, for what is not a cache refresh (a notification, a rescan's progress). */
export class LiveHub {
  private readonly handlers = new Map<LiveKind, Set<Handler>>();

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

  emit<K extends LiveKind>(kind: K, data: LiveKindData[K]): void {
    for (const handler of [...(this.handlers.get(kind) ?? [])]) handler(data, kind);
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
 * One event stream for the signed-in tab. Each event marks stale the queries it affects (the table in
 * live-invalidation.ts) and reaches `useLiveEvent` subscribers. The browser's EventSource reconnects
 * by itself and sends Last-Event-ID, so the server replays what was missed; every (re)open still
 * refreshes every query, since events raised before the stream opened, or beyond the replay, are gone.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const [hub] = useState(() => new LiveHub());
  const cache = useQueryClient();

  useEffect(() => {
    let source: EventSource | null = null;
    let retry: number | undefined;
    let flush: number | undefined;
    let failures = 0;
    let stale: QueryKey[] = [];

    const invalidateSoon = (queryKeys: QueryKey[]) => {
      stale.push(...queryKeys);
      if (flush !== undefined) return;
      flush = window.setTimeout(() => {
        flush = undefined;
        const unique = new Map(stale.map((key) => [JSON.stringify(key), key]));
        stale = [];
        for (const queryKey of unique.values()) void cache.invalidateQueries({ queryKey });
      }, COALESCE_MS);
    };

    const connect = () => {
      const current = new EventSource(EVENTS_PATH);
      source = current;
      for (const kind of LIVE_EVENT_KINDS) {
        current.addEventListener(kind, (event) => {
          const data = parse((event as MessageEvent<string>).data);
          if (!data) return;
          invalidateSoon(invalidatedBy(kind, data, cache));
          hub.emit(kind, data as LiveKindData[typeof kind]);
        });
      }
      current.onopen = () => {
        failures = 0;
        void cache.invalidateQueries();
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
      window.clearTimeout(flush);
      source?.close();
    };
  }, [hub, cache]);

  return <LiveContext.Provider value={hub}>{children}</LiveContext.Provider>;
}

export function useLiveHub(): LiveHub {
  const hub = useContext(LiveContext);
  if (!hub) throw new Error('live updates need <LiveProvider>');
  return hub;
}

/** Calls `handler` with each event of the given kinds, as it arrives. */
export function useLiveEvent<K extends LiveKind>(
  kinds: readonly K[],
  handler: (data: LiveKindData[K], kind: K) => void,
) {
  const hub = useLiveHub();
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  }, [handler]);
  const topic = kinds.join(' ');
  useEffect(() => {
    if (!topic) return;
    return hub.on(topic.split(' ') as K[], (data, kind) =>
      latest.current(data as LiveKindData[K], kind as K),
    );
  }, [hub, topic]);
}
