// Approval requests, sign-up approval settings and grants per device mapping, and the online account
// audit (the wire shapes come from the protocol package, types only).
import type { ApprovalView, GrantView, OnlineAccountView } from '@hearth/protocol';
import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useSession } from '../session';
import { type ApiError, api } from './client';
import { keys } from './keys';
import { useLiveEvent } from './live';
import { useResource } from './query';
import type { ItemList } from './types';

export type { ApprovalView, GrantView, OnlineAccountView };
export type ApprovalType = ApprovalView['type'];
export type GrantKind = GrantView['kind'];

export interface ApprovalSettings {
  mapping_id: string;
  enforce_signup_approvals: boolean;
  /** False for Android and consoles, and for agents older than 0.57.0. */
  signup_supported: boolean;
  /** Periodic screenshots of the account (DESIGN §12): 0 = off, else every 5–1440 minutes. */
  screenshot_interval_minutes: number;
}

export type OnlineAccountSort = 'domain' | 'username' | 'first_detected_at' | 'last_active_at';
export type SortOrder = 'asc' | 'desc';

const enc = encodeURIComponent;

export const settingsPath = (mappingId: string) => `/api/mappings/${enc(mappingId)}/approval-settings`;
export const grantsPath = (mappingId: string) => `/api/mappings/${enc(mappingId)}/approval-grants`;

/** Approve: a one-time or lasting grant; for more time, how many minutes (1 to 1440). */
export const approveRequest = (id: string, body: { grant?: GrantKind; minutes?: number }) =>
  api.post<ApprovalView>(`/api/approvals/${enc(id)}/approve`, body);

export const denyRequest = (id: string) => api.post<ApprovalView>(`/api/approvals/${enc(id)}/deny`);

/** Takes effect on the device's next check; the agent does not restart. */
export const setEnforceSignups = (mappingId: string, enforce: boolean) =>
  api.post<ApprovalSettings>(settingsPath(mappingId), { enforce_signup_approvals: enforce });

export const addGrant = (mappingId: string, domain: string, kind: GrantKind) =>
  api.post<GrantView>(grantsPath(mappingId), { domain, kind });

export const revokeGrant = (mappingId: string, grantId: string) =>
  api.delete<{ id: string; deleted: boolean }>(`${grantsPath(mappingId)}/${enc(grantId)}`);

/** Sorting by name reads A to Z first; by date, the newest first. */
export function defaultOrder(sort: OnlineAccountSort): SortOrder {
  return sort === 'domain' || sort === 'username' ? 'asc' : 'desc';
}

export function onlineAccountsPath(query: {
  q: string;
  sort: OnlineAccountSort;
  order: SortOrder;
  childId: string;
}): string {
  const params = new URLSearchParams({ sort: query.sort, order: query.order });
  if (query.q.trim()) params.set('q', query.q.trim());
  if (query.childId) params.set('managed_user_id', query.childId);
  return `/api/online-accounts?${params}`;
}

/** The domain part of what a parent typed: "https://www.Example.com/join" reads "www.Example.com". */
export function domainFromInput(input: string): string {
  const text = input.trim();
  if (!text) return '';
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return new URL(text).hostname;
  } catch {
    // Not an address after all: the server says what is wrong with it.
  }
  return text.replace(/[/?#].*$/, '');
}

/**
 * Whether the signed-in parent sees this request in lists: members see only requests about children
 * shared with them (the stream also sends them requests from unmapped accounts on those devices).
 */
export function approvalVisibleTo(isAdmin: boolean, approval: ApprovalView): boolean {
  return isAdmin || approval.managed_user_id !== null;
}

const newestFirst = (a: ApprovalView, b: ApprovalView) =>
  a.requested_at === b.requested_at ? (a.id < b.id ? 1 : -1) : a.requested_at < b.requested_at ? 1 : -1;

// Just decided first, so an answer lands on top of the decided ones.
const latestDecisionFirst = (a: ApprovalView, b: ApprovalView) => {
  const [x, y] = [a.decided_at ?? '', b.decided_at ?? ''];
  return x === y ? newestFirst(a, b) : x < y ? 1 : -1;
};

export type ApprovalFilter = 'pending' | 'all';

export interface ApprovalFeed {
  /** Requests waiting for a decision, newest first; undefined while the first answer is on its way. */
  pending: ApprovalView[] | undefined;
  /**
   * Decided requests, the latest decision first: with 'all' every one; with 'pending' those decided
   * while the page was open, so an answer moves a request down here instead of making it vanish.
   */
  decided: ApprovalView[];
  /** The last load failed; the lists keep what was shown before. */
  error: ApiError | null;
  reload(): void;
  /** An answer given in this tab shows at once (its event follows). */
  record(view: ApprovalView): void;
}

const approvalsPath = (filter: ApprovalFilter) =>
  filter === 'pending' ? '/api/approvals?status=pending' : '/api/approvals';

const useApprovalList = (filter: ApprovalFilter) =>
  useResource<ItemList<ApprovalView>>(keys.approvalList({ status: filter }), approvalsPath(filter));

/**
 * Approval requests that follow the event stream (which refreshes the list); requests decided while
 * the page is open, whoever decided them, stay on it in the decided list.
 */
export function useApprovalFeed(filter: ApprovalFilter): ApprovalFeed {
  const { isAdmin } = useSession();
  const list = useApprovalList(filter);
  // A decision is final: those heard since the page opened stay known whatever a later answer says.
  const [decidedHere, setDecidedHere] = useState<Map<string, ApprovalView>>(() => new Map());

  const record = useCallback((view: ApprovalView) => {
    if (view.status === 'pending') return;
    setDecidedHere((current) => new Map(current).set(view.id, view));
  }, []);

  useLiveEvent(['approval_decided'], (approval) => {
    if (approvalVisibleTo(isAdmin, approval)) record(approval);
  });

  const { error, reload } = list;
  const items = list.data?.items;
  if (!items) return { pending: undefined, decided: [], error, reload, record };
  const merged = new Map(items.map((a) => [a.id, a]));
  for (const [id, view] of decidedHere) merged.set(id, view);
  const all = [...merged.values()].filter((a) => approvalVisibleTo(isAdmin, a));
  const pending = all.filter((a) => a.status === 'pending').sort(newestFirst);
  // With 'pending' the answers hold no decided request: those decided here are the decided list.
  const decided = all.filter((a) => a.status !== 'pending');
  return { pending, decided: decided.sort(latestDecisionFirst), error, reload, record };
}

/** How many requests wait for a decision, for the navigation badge; null until known. */
export function usePendingApprovalCount(): number | null {
  // An answer being sent shows decided at once, so it no longer counts.
  const items = useApprovalList('pending').data?.items;
  return items ? items.filter((a) => a.status === 'pending').length : null;
}

/** Sign-up approvals of one device mapping: whether they are enforced, and the sites allowed. */
export const useApprovalSettings = (mappingId: string) =>
  useResource<ApprovalSettings>(keys.approvalSettings(mappingId), settingsPath(mappingId));

export const useGrants = (mappingId: string) =>
  useResource<ItemList<GrantView>>(keys.grants(mappingId), grantsPath(mappingId));

/** The request as it stands now (after a 409, say); null when it is no longer listed. */
export async function findApproval(approval: ApprovalView): Promise<ApprovalView | null> {
  const list = await api.get<ItemList<ApprovalView>>(`/api/approvals?type=${enc(approval.type)}`);
  return list.items.find((a) => a.id === approval.id) ?? null;
}

/** Deny, or approve with a one-time or lasting grant, or (for more time) a number of minutes. */
export type Answer = { deny: true } | { deny?: false; grant?: GrantKind; minutes?: number };

type ListSnapshot = [QueryKey, ItemList<ApprovalView> | undefined][];

/**
 * Answers a request: every list shows it decided by this parent at once and goes back if the server
 * refuses; after a 409 (another parent answered first) the lists are asked again, and the caller
 * looks up who answered. The keys it invalidates are those the `approval_decided` event names.
 */
export function useDecideApproval(): (approval: ApprovalView, answer: Answer) => Promise<ApprovalView> {
  const cache = useQueryClient();
  const parentId = useSession().session?.parent.id ?? null;
  const { mutateAsync } = useMutation<
    ApprovalView,
    ApiError,
    { approval: ApprovalView; answer: Answer },
    ListSnapshot
  >({
    mutationFn: ({ approval, answer }) =>
      answer.deny
        ? denyRequest(approval.id)
        : approveRequest(approval.id, { grant: answer.grant, minutes: answer.minutes }),
    onMutate: async ({ approval, answer }) => {
      await cache.cancelQueries({ queryKey: keys.approvals() });
      const snapshot = cache.getQueriesData<ItemList<ApprovalView>>({ queryKey: keys.approvals() });
      const decided: ApprovalView = {
        ...approval,
        status: answer.deny ? 'denied' : 'approved',
        grant: answer.deny ? null : (answer.grant ?? null),
        approved_minutes:
          answer.deny || approval.type !== 'time_extension'
            ? null
            : (answer.minutes ??
              (typeof approval.details.minutes === 'number' ? approval.details.minutes : null)),
        decided_by: parentId,
        decided_at: new Date().toISOString(),
      };
      for (const [key, list] of snapshot) {
        if (list)
          cache.setQueryData(key, {
            ...list,
            items: list.items.map((a) => (a.id === approval.id ? decided : a)),
          });
      }
      return snapshot;
    },
    onError: (_err, _variables, snapshot) => {
      for (const [key, list] of snapshot ?? []) cache.setQueryData(key, list);
    },
    onSettled: (_view, _err, { approval }) => {
      const queryKeys: QueryKey[] = [keys.approvals(), keys.dashboard()];
      if (approval.mapping_id)
        queryKeys.push(keys.approvalSettings(approval.mapping_id), keys.grants(approval.mapping_id));
      for (const queryKey of queryKeys) void cache.invalidateQueries({ queryKey });
    },
  });
  return useCallback((approval, answer) => mutateAsync({ approval, answer }), [mutateAsync]);
}
