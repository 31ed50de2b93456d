// Blocklists and each child's domain policy (DESIGN §11): the household's sources, the child's
// assignment with their own block and allow lists, whether each device applied it, and the
// "Why is this blocked?" check. Query hooks and the changes a parent makes, side by side.
import type {
  AssignBlocklistsBody,
  BlocklistFormat,
  DomainCheckView,
  DomainMatch,
  DomainPolicySyncView,
  DomainPolicyView,
  PreviewView,
  SourceRefreshView,
  SourceView,
} from '@hearth/protocol';
import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApiError, api } from './client';
import { keys } from './keys';
import { FALLBACK_REFRESH_MS, type Resource, useResource } from './query';
import { SYNC_PENDING_REFRESH_MS } from './time';
import type { ItemList } from './types';

const enc = encodeURIComponent;

/** A source as `GET /api/blocklists/sources` lists it. */
export type BlocklistSource = SourceView;
export type RefreshAnswer = SourceRefreshView;
export type PreviewAnswer = PreviewView;
/** A child's domain policy: `GET /api/managed-users/<id>/blocklists` and the answer of its update. */
export type DomainPolicy = DomainPolicyView;
export type DomainPolicyBody = Required<AssignBlocklistsBody>;
export type { DomainMatch };
export type DomainCheck = DomainCheckView;

/** What "Add list" sends: a typed list as one text, or a web address. */
export type AddSourceBody =
  | { name: string; kind: 'manual'; domains: string; format: BlocklistFormat }
  | { name: string; kind: 'url'; url: string; format: BlocklistFormat };

/** A url source the server has neither fetched nor failed to fetch yet: its first download is running. */
export const isFirstFetch = (s: BlocklistSource) => s.kind === 'url' && s.last_attempt_at === null;

/**
 * The household's sources, asked again every 2 s while a new url source is still being fetched for the
 * first time (the worker does it in the background and no live event announces the end).
 */
export const useBlocklistSources = (): Resource<ItemList<BlocklistSource>> =>
  useResource(keys.blocklists(), '/api/blocklists/sources', {
    refetchInterval: (data) =>
      data?.items.some(isFirstFetch) ? SYNC_PENDING_REFRESH_MS : FALLBACK_REFRESH_MS,
  });

export const useDomainPolicy = (childId: string): Resource<DomainPolicy> =>
  useResource(keys.domainPolicy(childId), `/api/managed-users/${enc(childId)}/blocklists`);

/** Whether each device applied the latest domain policy; asked every 2 s while one has not answered. */
export const useDomainSync = (childId: string): Resource<DomainPolicySyncView> =>
  useResource(keys.domainSync(childId), `/api/user/${enc(childId)}/blocklists/sync-status`, {
    refetchInterval: (data) =>
      data?.items.some((i) => i.status === 'pending') ? SYNC_PENDING_REFRESH_MS : FALLBACK_REFRESH_MS,
  });

/** A domain check once asked; nothing while `domain` is empty. */
export const useDomainCheck = (childId: string, domain: string): Resource<DomainCheck> =>
  useResource(
    keys.domainCheck(childId, domain),
    `/api/managed-users/${enc(childId)}/domain-check?domain=${enc(domain)}`,
    { enabled: domain !== '' },
  );

/**
 * Every child's domain policy, sync state and checks: a source's content reaches each child who has it,
 * and the cache does not know which children those are.
 */
function invalidateChildrenPolicies(cache: QueryClient): void {
  void cache.invalidateQueries({
    predicate: (q) =>
      q.queryKey[0] === 'user' &&
      ['blocklists', 'blocklists-sync', 'domain-check'].includes(String(q.queryKey[2])),
  });
}

function replaceSource(cache: QueryClient, source: BlocklistSource): void {
  cache.setQueryData<ItemList<BlocklistSource>>(keys.blocklists(), (current) =>
    current ? { ...current, items: current.items.map((s) => (s.id === source.id ? source : s)) } : current,
  );
}

export function useAddSource() {
  const cache = useQueryClient();
  return useMutation<BlocklistSource, ApiError, AddSourceBody>({
    mutationFn: (body) => api.post<BlocklistSource>('/blocklists/sources/add', body),
    onSuccess: (source) => {
      cache.setQueryData<ItemList<BlocklistSource>>(keys.blocklists(), (current) =>
        current
          ? { ...current, items: [source, ...current.items.filter((s) => s.id !== source.id)] }
          : current,
      );
      void cache.invalidateQueries({ queryKey: keys.blocklists() });
    },
  });
}

export function useRenameSource() {
  const cache = useQueryClient();
  return useMutation<BlocklistSource, ApiError, { id: string; name: string }>({
    mutationFn: ({ id, name }) => api.patch<BlocklistSource>(`/api/blocklists/sources/${enc(id)}`, { name }),
    onSuccess: (source) => {
      replaceSource(cache, source);
      void cache.invalidateQueries({ queryKey: keys.blocklists() });
      // The domain check names the source.
      invalidateChildrenPolicies(cache);
    },
  });
}

export function useDeleteSource() {
  const cache = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api.delete<unknown>(`/api/blocklists/sources/${enc(id)}`),
    onSuccess: (_answer, id) => {
      cache.setQueryData<ItemList<BlocklistSource>>(keys.blocklists(), (current) =>
        current ? { ...current, items: current.items.filter((s) => s.id !== id) } : current,
      );
      void cache.invalidateQueries({ queryKey: keys.blocklists() });
      invalidateChildrenPolicies(cache);
    },
  });
}

export function useRefreshSource() {
  const cache = useQueryClient();
  return useMutation<RefreshAnswer, ApiError, string>({
    mutationFn: (id) => api.post<RefreshAnswer>(`/blocklists/sources/${enc(id)}/refresh`),
    onSuccess: (answer) => {
      replaceSource(cache, answer.source);
      if (answer.changed) invalidateChildrenPolicies(cache);
    },
    // A failed fetch records `last_error` on the source, which the list then shows.
    onError: () => void cache.invalidateQueries({ queryKey: keys.blocklists() }),
  });
}

/** Fetches a url through the server's safe fetch and says what it found, storing nothing. */
export const usePreviewSource = () =>
  useMutation<PreviewAnswer, ApiError, string>({
    mutationFn: (url) => api.post<PreviewAnswer>('/api/blocklists/preview', { url }),
  });

export function useSaveDomainPolicy(childId: string) {
  const cache = useQueryClient();
  return useMutation<DomainPolicy, ApiError, DomainPolicyBody>({
    mutationFn: (body) => api.post<DomainPolicy>(`/managed-users/${enc(childId)}/blocklists/update`, body),
    onSuccess: (answer) => {
      cache.setQueryData(keys.domainPolicy(childId), answer);
      void cache.invalidateQueries({ queryKey: keys.domainSync(childId) });
      void cache.invalidateQueries({ queryKey: keys.domainChecks(childId) });
    },
  });
}
