import {
  type InfiniteData,
  type QueryClient,
  useInfiniteQuery,
  useMutation,
  useQueryClient,
} from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { type ApiError, api, messageOf } from './client';
import { keys } from './keys';
import { useLiveHub } from './live';
import { getJson, sinceOpened, useResource } from './query';
import type { AlertKindsView, AlertPage, AlertView, DashboardView } from './types';

/**
 * Whether the signed-in parent sees this alert in lists: members see only alerts about children shared
 * with them, never ones about an account that is not a child's (the stream still sends those).
 */
export function visibleTo(isAdmin: boolean, alert: AlertView): boolean {
  return isAdmin || alert.managed_user_id !== null;
}

type Snapshot = [readonly unknown[], unknown][];

/** Shows `read` in every cached list, the unread badge and the dashboard; returns what it replaced. */
function markReadInCache(cache: QueryClient, read: AlertView): Snapshot {
  const snapshot: Snapshot = [
    ...cache.getQueriesData({ queryKey: keys.alerts() }),
    ...cache.getQueriesData({ queryKey: keys.dashboard() }),
  ];
  const swap = (a: AlertView) => (a.id === read.id ? read : a);
  cache.setQueriesData<InfiniteData<AlertPage>>({ queryKey: ['alerts', 'feed'] }, (data) =>
    data ? { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.map(swap) })) } : data,
  );
  cache.setQueryData<AlertPage>(keys.unreadAlerts(), (page) =>
    page ? { ...page, items: page.items.filter((a) => a.id !== read.id) } : page,
  );
  cache.setQueryData<DashboardView>(keys.dashboard(), (current) => {
    if (!current) return current;
    const before = current.recent_alerts.find((a) => a.id === read.id);
    const wasUnread = before ? !before.acknowledged_at : true;
    return {
      ...current,
      counts: {
        ...current.counts,
        unread_alerts: Math.max(0, current.counts.unread_alerts - (wasUnread ? 1 : 0)),
      },
      recent_alerts: current.recent_alerts.map(swap),
    };
  });
  return snapshot;
}

/**
 * Marks an alert as read: every list, the badge and the dashboard show it at once, and go back if the
 * server refuses (the caller shows why); then the tab's notifications hear of it.
 */
export function useAcknowledge(): (alert: AlertView) => Promise<AlertView> {
  const cache = useQueryClient();
  const hub = useLiveHub();
  const { mutateAsync } = useMutation<AlertView, ApiError, AlertView, Snapshot>({
    mutationFn: (alert) => api.post<AlertView>(`/api/alerts/${encodeURIComponent(alert.id)}/acknowledge`),
    onMutate: async (alert) => {
      await cache.cancelQueries({ queryKey: keys.alerts() });
      await cache.cancelQueries({ queryKey: keys.dashboard() });
      return markReadInCache(cache, {
        ...alert,
        acknowledged_at: alert.acknowledged_at ?? new Date().toISOString(),
      });
    },
    onError: (_err, _alert, snapshot) => {
      for (const [key, data] of snapshot ?? []) cache.setQueryData(key, data);
    },
    onSuccess: (view) => {
      markReadInCache(cache, view);
      hub.emit('alert_acknowledged', view);
    },
    onSettled: () => {
      void cache.invalidateQueries({ queryKey: keys.unreadAlerts() });
      void cache.invalidateQueries({ queryKey: keys.dashboard() });
    },
  });
  return mutateAsync;
}

// The badge counts up to this many unread alerts and reads "99+" past it.
const UNREAD_LIMIT = 100;

/** Unread alerts for the signed-in parent, for the navigation badge; null until known. */
export function useUnreadAlerts(): { count: number; more: boolean } | null {
  const { data } = useResource<AlertPage>(
    keys.unreadAlerts(),
    `/api/alerts?unacknowledged=true&limit=${UNREAD_LIMIT}`,
  );
  return data ? { count: data.items.length, more: data.next_cursor !== null } : null;
}

/** Every alert kind to filter by (Hearth's own, then others the household's alerts have); null until known. */
export function useAlertKinds(): readonly string[] | null {
  return useResource<AlertKindsView>(keys.alertKinds(), '/api/alerts/kinds').data?.kinds ?? null;
}

export interface AlertFeed {
  items: AlertView[] | undefined;
  /** The first page failed; `items` keeps what was shown before. */
  error: ApiError | null;
  hasMore: boolean;
  loadingMore: boolean;
  moreError: string | null;
  loadMore(): void;
  /** Asks again for the pages shown (on "Try again"). */
  reload(): void;
}

/**
 * A paged list of alerts from `path` (with its filters and `limit`), newest first: "Load more" follows
 * the cursor; the live stream and the fallback refresh ask again for the pages shown.
 */
export function useAlertFeed(path: string): AlertFeed {
  const separator = path.includes('?') ? '&' : '?';
  const [openedAt] = useState(Date.now);
  const query = useInfiniteQuery<
    AlertPage,
    ApiError,
    InfiniteData<AlertPage>,
    readonly unknown[],
    string | null
  >({
    queryKey: keys.alertFeed(path),
    queryFn: ({ pageParam, signal }) =>
      getJson<AlertPage>(
        pageParam ? `${path}${separator}before=${encodeURIComponent(pageParam)}` : path,
        signal,
      ),
    initialPageParam: null,
    getNextPageParam: (page) => page.next_cursor,
  });
  const { fetchNextPage, refetch, hasNextPage, isFetchingNextPage } = query;
  const loadMore = useCallback(() => {
    if (!isFetchingNextPage) void fetchNextPage();
  }, [fetchNextPage, isFetchingNextPage]);
  const reload = useCallback(() => void refetch(), [refetch]);

  const seen = new Set<string>();
  const data = sinceOpened(query.dataUpdatedAt, openedAt) ? query.data : undefined;
  const error = sinceOpened(query.errorUpdatedAt, openedAt) ? query.error : null;
  const items = data?.pages
    .flatMap((page) => page.items)
    .filter((alert) => !seen.has(alert.id) && !!seen.add(alert.id));
  const moreFailed = query.isFetchNextPageError;
  return {
    items,
    error: moreFailed ? null : error,
    hasMore: !!hasNextPage,
    loadingMore: isFetchingNextPage,
    moreError: moreFailed && error ? messageOf(error) : null,
    loadMore,
    reload,
  };
}
