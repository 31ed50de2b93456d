import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useSession } from '../session';
import { ApiError, api, messageOf } from './client';
import { type LiveData, useLiveEvent, useLiveHub, useLiveRefresh } from './live';
import type { AlertPage, AlertView } from './types';

/** An alert from an event's data, when it has the shape of one. */
export function asAlert(data: LiveData): AlertView | null {
  return typeof data.id === 'string' && typeof data.kind === 'string' && typeof data.created_at === 'string'
    ? (data as unknown as AlertView)
    : null;
}

/**
 * Whether the signed-in parent sees this alert in lists: members see only alerts about children shared
 * with them, never ones about an account that is not a child's (the stream still sends those).
 */
export function visibleTo(isAdmin: boolean, alert: AlertView): boolean {
  return isAdmin || alert.managed_user_id !== null;
}

/** Marks an alert as read and tells the rest of the tab (badge, lists, notifications). */
export function useAcknowledge(): (alert: AlertView) => Promise<AlertView> {
  const hub = useLiveHub();
  return useCallback(
    async (alert: AlertView) => {
      const view = await api.post<AlertView>(`/api/alerts/${encodeURIComponent(alert.id)}/acknowledge`);
      hub.emit('alert_acknowledged', view as unknown as LiveData);
      return view;
    },
    [hub],
  );
}

// The badge counts up to this many unread alerts and reads "99+" past it.
const UNREAD_LIMIT = 100;

interface UnreadState {
  ids: Set<string>;
  /** More unread alerts than were fetched. */
  more: boolean;
}

const UnreadContext = createContext<UnreadState | null>(null);

/** Keeps the number of unread alerts current for the navigation badge. */
export function UnreadAlertsProvider({ children }: { children: ReactNode }) {
  const { isAdmin } = useSession();
  const [state, setState] = useState<UnreadState | null>(null);
  const [version, setVersion] = useState(0);
  // Changes heard while a fetch is on its way; they are laid over its answer, which may predate them.
  const heard = useRef(new Map<string, boolean>());

  useEffect(() => {
    void version;
    heard.current = new Map();
    const controller = new AbortController();
    api
      .get<AlertPage>(`/api/alerts?unacknowledged=true&limit=${UNREAD_LIMIT}`, { signal: controller.signal })
      .then((page) => {
        const ids = new Set(page.items.map((a) => a.id));
        for (const [id, unread] of heard.current) {
          if (unread) ids.add(id);
          else ids.delete(id);
        }
        setState({ ids, more: page.next_cursor !== null });
      })
      // The badge keeps its last count; the next refresh tries again.
      .catch(() => {});
    return () => controller.abort();
  }, [version]);

  useLiveRefresh(
    [],
    useCallback(() => setVersion((v) => v + 1), []),
  );
  useLiveEvent(['alert_created', 'alert_acknowledged'], (data, kind) => {
    const alert = asAlert(data);
    if (!alert || !visibleTo(isAdmin, alert)) return;
    const unread = kind === 'alert_created' && !alert.acknowledged_at;
    heard.current.set(alert.id, unread);
    setState((current) => {
      if (!current || current.ids.has(alert.id) === unread) return current;
      const ids = new Set(current.ids);
      if (unread) ids.add(alert.id);
      else ids.delete(alert.id);
      return { ...current, ids };
    });
  });

  return <UnreadContext.Provider value={state}>{children}</UnreadContext.Provider>;
}

/** Unread alerts for the signed-in parent; null until known. */
export function useUnreadAlerts(): { count: number; more: boolean } | null {
  const state = useContext(UnreadContext);
  return state ? { count: state.ids.size, more: state.more } : null;
}

function newestFirst(a: AlertView, b: AlertView): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export interface AlertFeed {
  items: AlertView[] | undefined;
  /** The first page failed; `items` keeps what was shown before. */
  error: ApiError | null;
  hasMore: boolean;
  loadingMore: boolean;
  moreError: string | null;
  loadMore(): void;
  /** Starts again from the newest (after a prune, or on "Try again"). */
  reload(): void;
}

interface FeedState {
  path: string;
  items: AlertView[] | undefined;
  cursor: string | null;
}

/**
 * A paged list of alerts from `path` (with its filters and `limit`), newest first: "Load more" follows
 * the cursor; alerts that arrive and `matches` accepts are put on top; read marks show at once; the
 * newest page is asked again whenever the stream (re)opens and every minute.
 */
export function useAlertFeed(path: string, matches: (alert: AlertView) => boolean): AlertFeed {
  const { isAdmin } = useSession();
  const [state, setState] = useState<FeedState>({ path, items: undefined, cursor: null });
  const [error, setError] = useState<ApiError | null>(null);
  const [version, setVersion] = useState(0);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  const latestMatches = useRef(matches);
  useEffect(() => {
    latestMatches.current = matches;
  }, [matches]);
  // Other filters show nothing of the previous ones while their first page loads.
  const current = state.path === path ? state : { path, items: undefined, cursor: null };

  // Alerts heard while the first page is on its way, which its answer may predate.
  const heard = useRef(new Map<string, { alert: AlertView; created: boolean }>());
  const loaded = useRef(false);

  useEffect(() => {
    void version;
    const controller = new AbortController();
    heard.current = new Map();
    loaded.current = false;
    setError(null);
    setMoreError(null);
    api
      .get<AlertPage>(path, { signal: controller.signal })
      .then((page) => {
        const byId = new Map(page.items.map((a) => [a.id, a]));
        for (const { alert, created } of heard.current.values()) {
          if (byId.has(alert.id)) byId.set(alert.id, alert);
          else if (created && latestMatches.current(alert)) byId.set(alert.id, alert);
        }
        heard.current = new Map();
        loaded.current = true;
        setState({ path, items: [...byId.values()].sort(newestFirst), cursor: page.next_cursor });
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setError(err instanceof ApiError ? err : new ApiError(0, 'error', messageOf(err)));
      });
    return () => controller.abort();
  }, [path, version]);

  // Catching up keeps the pages already loaded: the newest page is merged in on top of them.
  const refreshNewest = useCallback(() => {
    api
      .get<AlertPage>(path)
      .then((page) =>
        setState((s) => {
          if (s.path !== path || !s.items) return s;
          const known = new Map(s.items.map((a) => [a.id, a]));
          // A whole page of new alerts leaves a gap below it; start again from the newest instead.
          if (page.next_cursor && page.items.every((a) => !known.has(a.id))) {
            return { path, items: page.items, cursor: page.next_cursor };
          }
          const fresh = new Map(page.items.map((a) => [a.id, a]));
          const added = page.items.filter((a) => !known.has(a.id));
          const items = [...added, ...s.items.map((a) => fresh.get(a.id) ?? a)].sort(newestFirst);
          return { ...s, items };
        }),
      )
      .catch(() => {
        // The list stays as it is; the next event or refresh tries again.
      });
  }, [path]);
  useLiveRefresh([], refreshNewest);

  useLiveEvent(['alert_created', 'alert_acknowledged'], (data, kind) => {
    const alert = asAlert(data);
    if (!alert || (kind === 'alert_created' && !visibleTo(isAdmin, alert))) return;
    if (!loaded.current) {
      const before = heard.current.get(alert.id);
      heard.current.set(alert.id, { alert, created: kind === 'alert_created' || !!before?.created });
    }
    setState((s) => {
      if (s.path !== path || !s.items) return s;
      if (s.items.some((a) => a.id === alert.id)) {
        return { ...s, items: s.items.map((a) => (a.id === alert.id ? alert : a)) };
      }
      if (kind !== 'alert_created' || !latestMatches.current(alert)) return s;
      return { ...s, items: [alert, ...s.items].sort(newestFirst) };
    });
  });

  const loadMore = useCallback(() => {
    const cursor = current.cursor;
    if (!cursor || loadingMore) return;
    setLoadingMore(true);
    setMoreError(null);
    const separator = path.includes('?') ? '&' : '?';
    api
      .get<AlertPage>(`${path}${separator}before=${encodeURIComponent(cursor)}`)
      .then((page) =>
        setState((s) => {
          if (s.path !== path || !s.items) return s;
          const known = new Set(s.items.map((a) => a.id));
          return {
            path,
            items: [...s.items, ...page.items.filter((a) => !known.has(a.id))],
            cursor: page.next_cursor,
          };
        }),
      )
      .catch((err: unknown) => setMoreError(messageOf(err)))
      .finally(() => setLoadingMore(false));
  }, [current.cursor, loadingMore, path]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);

  return {
    items: current.items,
    error,
    hasMore: current.cursor !== null,
    loadingMore,
    moreError,
    loadMore,
    reload,
  };
}
