import { type Dispatch, type SetStateAction, useCallback, useEffect, useState } from 'react';
import { ApiError, api, messageOf } from './client';

export interface ApiResource<T> {
  data: T | undefined;
  /** Set when the last load failed; `data` keeps what was shown before. */
  error: ApiError | null;
  loading: boolean;
  reload(): void;
  setData: Dispatch<SetStateAction<T | undefined>>;
}

/** GETs `path` on mount and whenever it changes; `reload` fetches again in the background. */
export function useApi<T>(path: string): ApiResource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    void version;
    const controller = new AbortController();
    setLoading(true);
    api
      .get<T>(path, { signal: controller.signal })
      .then((body) => {
        setData(body);
        setError(null);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setError(err instanceof ApiError ? err : new ApiError(0, 'error', messageOf(err)));
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
  }, [path, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload, setData };
}
