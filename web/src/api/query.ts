import {
  focusManager,
  keepPreviousData,
  QueryClient,
  type QueryKey,
  type Updater,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { ApiError, api, messageOf } from './client';

declare module '@tanstack/react-query' {
  interface Register {
    defaultError: ApiError;
  }
}

/**
 * Pages ask again this often even while the stream is quiet, for changes no event announces (a child
 * mapped to a device in another tab, today's screen time) and in case an event was lost.
 */
export const FALLBACK_REFRESH_MS = 60_000;

/** Whatever a fetch threw, as the ApiError a page shows. */
export function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'error', messageOf(err));
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  try {
    return await api.get<T>(path, { signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw asApiError(err);
  }
}

// A tab coming back into view asks again; the event is the document's, as the browser sends it.
focusManager.setEventListener((setFocused) => {
  const onChange = () => setFocused();
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
});

/**
 * Whether an answer belongs on a component that opened at `openedAt`: like a page that fetches for
 * itself, it shows only what was loaded or written since it opened (a list cached by the previous
 * page would hide that this one cannot load), so the cache is shared by what is on screen together.
 */
export function sinceOpened(updatedAt: number, openedAt: number): boolean {
  return updatedAt >= openedAt;
}

/** One cache per signed-in parent (web/README.md, "How the web fetches data"). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A failed load shows its error at once with "Try again", as the pages always did.
        retry: false,
        // Every mount asks again; the cache only spares the skeleton while it does.
        staleTime: 0,
        refetchInterval: FALLBACK_REFRESH_MS,
        refetchIntervalInBackground: false,
        refetchOnWindowFocus: true,
      },
      mutations: { retry: false },
    },
  });
}

export interface Resource<T> {
  data: T | undefined;
  /** Set when the last load failed; `data` keeps what was shown before. */
  error: ApiError | null;
  reload(): void;
  /** Writes an answer the server already gave (after a save) into the cache. */
  setData(updater: Updater<T | undefined, T | undefined>): void;
}

export interface ResourceOptions<T = unknown> {
  /** False for what no event or clock changes (pairing settings): asked once per visit. */
  refresh?: boolean;
  /** Keep showing the previous answer while another key (new filters) loads. */
  keepPrevious?: boolean;
  /** How often to ask again instead of the default fallback; a function decides from the last answer. */
  refetchInterval?: number | ((data: T | undefined) => number | false);
  /** False until there is something to ask (a search not typed yet). */
  enabled?: boolean;
}

/** GETs `path` under `key`, in the shape the pages read. */
export function useResource<T>(key: QueryKey, path: string, options: ResourceOptions<T> = {}): Resource<T> {
  const client = useQueryClient();
  const [openedAt] = useState(Date.now);
  const query = useQuery<T, ApiError>({
    queryKey: key,
    queryFn: ({ signal }) => getJson<T>(path, signal),
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
    enabled: options.enabled ?? true,
    refetchInterval:
      options.refresh === false
        ? false
        : typeof options.refetchInterval === 'function'
          ? (query) => (options.refetchInterval as (data: T | undefined) => number | false)(query.state.data)
          : (options.refetchInterval ?? FALLBACK_REFRESH_MS),
    refetchOnWindowFocus: options.refresh !== false,
  });
  const { refetch } = query;
  const keyText = JSON.stringify(key);
  const reload = useCallback(() => void refetch(), [refetch]);
  const setData = useCallback(
    (updater: Updater<T | undefined, T | undefined>) =>
      client.setQueryData<T>(JSON.parse(keyText) as QueryKey, updater as Updater<T | undefined, T>),
    [client, keyText],
  );
  const fresh = query.isPlaceholderData || sinceOpened(query.dataUpdatedAt, openedAt);
  return {
    data: fresh ? query.data : undefined,
    error: sinceOpened(query.errorUpdatedAt, openedAt) ? query.error : null,
    reload,
    setData,
  };
}
