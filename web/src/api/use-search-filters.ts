import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';

type Filters<K extends string> = Record<K, string>;

function read<K extends string>(keys: readonly K[], params: URLSearchParams): Filters<K> {
  return Object.fromEntries(keys.map((key) => [key, params.get(key) ?? ''])) as Filters<K>;
}

/**
 * Filters kept in the address, so a reload or a link keeps them. They apply at once: the router
 * updates the address in a transition, and a switch bound to the address alone would flick back
 * until it lands. An empty value leaves its key out; `set(null)` clears them all.
 */
export function useSearchFilters<K extends string>(
  keys: readonly K[],
): [Filters<K>, (changes: Partial<Filters<K>> | null) => void] {
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const topic = keys.join(',');
  const [filters, setFilters] = useState(() => read(keys, params));

  // The address changed from outside (a link, Back): follow it.
  useEffect(() => {
    setFilters(read(topic.split(',') as K[], new URLSearchParams(search)));
  }, [topic, search]);

  const set = useCallback(
    (changes: Partial<Filters<K>> | null) => {
      const next = changes ? { ...filters, ...changes } : read(keys, new URLSearchParams());
      setFilters(next);
      const address = new URLSearchParams();
      for (const key of keys) if (next[key]) address.set(key, next[key]);
      setParams(address, { replace: true });
    },
    [filters, keys, setParams],
  );

  return [filters, set];
}
