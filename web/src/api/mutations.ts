// Changes a parent makes to devices, children and parents, each through `useMutation`; on success each
// invalidates the keys of `keys` whose answers it changed, so every open page shows the change.
import { type QueryClient, type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApiError, api } from './client';
import { keys } from './keys';
import type { ModifyTimeAnswer, ScheduleView, TimeUsageView, WeeklyDays } from './time';
import type { CommandOutcome, DeviceView, ManagedUserView, MappingView, ParentView } from './types';

const enc = encodeURIComponent;

type Decided = { system_id: string; status: string };

export interface CreateChildBody {
  name: string;
  overlay_age_tier?: string;
}

export interface AddParentBody {
  username: string;
  password: string;
  role: ParentView['role'];
  children: ParentView['children'];
}

export type UpdateParentBody = Partial<Pick<AddParentBody, 'username' | 'role' | 'children' | 'password'>>;

/** A mutation that marks `invalidates(variables)` stale once the server has said yes. */
function useChange<T, V>(
  mutationFn: (variables: V) => Promise<T>,
  invalidates: (variables: V) => QueryKey[],
  client?: QueryClient,
) {
  const cache = useQueryClient(client);
  return useMutation<T, ApiError, V>(
    {
      mutationFn,
      onSuccess: (_data, variables) => {
        for (const queryKey of invalidates(variables)) void cache.invalidateQueries({ queryKey });
      },
    },
    cache,
  );
}

// A device's status shows in the device list, on its page and in the dashboard's waiting count.
const deviceKeys = (systemId: string) => [keys.devices(), keys.device(systemId), keys.dashboard()];

export const useApproveDevice = () =>
  useChange(
    ({ systemId, displayName }: { systemId: string; displayName: string }) =>
      api.post<Decided>(
        `/api/device/approve/${enc(systemId)}`,
        displayName ? { display_name: displayName } : {},
      ),
    ({ systemId }) => deviceKeys(systemId),
  );

export const useRejectDevice = () =>
  useChange((systemId: string) => api.post<Decided>(`/api/device/reject/${enc(systemId)}`), deviceKeys);

// Unenrolling also ends the children's mappings on the device, which their pages show.
export const useUnenrollDevice = () =>
  useChange(
    (systemId: string) => api.post<unknown>(`/api/device/${enc(systemId)}/unenroll`),
    (systemId) => [...deviceKeys(systemId), keys.users()],
  );

/** Lifts a clock-tamper lockdown on a device; its clock alerts are then dealt with, so they are marked read. */
export const useClearClockTamper = (systemId: string) =>
  useChange(
    async (alertIds: string[]) => {
      const outcome = await api.post<CommandOutcome>(`/api/devices/${enc(systemId)}/clear-clock-tamper`);
      // Best effort: the lock is what matters; an alert left unread can still be marked read by hand.
      await Promise.allSettled(alertIds.map((id) => api.post(`/api/alerts/${enc(id)}/acknowledge`)));
      return outcome;
    },
    () => [keys.alerts(), keys.dashboard()],
  );

export const useCreateChild = () =>
  useChange(
    (body: CreateChildBody) => api.post<ManagedUserView>('/api/user/create', body),
    () => [keys.users(), keys.dashboard()],
  );

export const useAddParent = () =>
  useChange(
    (body: AddParentBody) => api.post<ParentView>('/api/household/parents', body),
    () => [keys.parents()],
  );

export const useUpdateParent = () =>
  useChange(
    ({ id, body }: { id: string; body: UpdateParentBody }) =>
      api.patch<ParentView>(`/api/household/parents/${enc(id)}`, body),
    () => [keys.parents()],
  );

type Deleted = { id: string; deleted: boolean };

// A device's name shows on its page, in the lists, on the children's pages, alerts and app rules.
export const useRenameDevice = () =>
  useChange(
    ({ systemId, displayName }: { systemId: string; displayName: string }) =>
      api.patch<DeviceView>(`/api/devices/${enc(systemId)}`, { display_name: displayName }),
    ({ systemId }) => [...deviceKeys(systemId), keys.users(), ['user'], keys.alerts(), keys.appPolicies()],
  );

// Removing a device removes its mappings from every child.
export const useRemoveDevice = () =>
  useChange(
    (systemId: string) =>
      api.delete<{ system_id: string; deleted: boolean }>(`/api/devices/${enc(systemId)}`),
    (systemId) => [...deviceKeys(systemId), keys.users(), ['user'], keys.appPolicies()],
  );

export const useAddMapping = () =>
  useChange(
    ({ childId, systemId, account }: { childId: string; systemId: string; account: string }) =>
      api.post<MappingView>(`/managed-users/${enc(childId)}/mappings/add`, {
        system_id: systemId,
        linux_username: account,
      }),
    ({ childId }) => [keys.user(childId), keys.users(), keys.devices(), keys.appPolicy(childId)],
  );

export const useRemoveMapping = () =>
  useChange(
    ({ mappingId }: { mappingId: string; childId: string }) =>
      api.delete<Deleted>(`/api/mappings/${enc(mappingId)}`),
    ({ childId }) => [
      keys.user(childId),
      keys.users(),
      keys.devices(),
      keys.appPolicy(childId),
      keys.dashboard(),
    ],
  );

export const useRenameChild = () =>
  useChange(
    ({ id, name }: { id: string; name: string }) =>
      api.patch<ManagedUserView>(`/api/managed-users/${enc(id)}`, { name }),
    ({ id }) => [keys.user(id), keys.users(), keys.dashboard(), keys.alerts(), keys.approvals()],
  );

export const useRemoveChild = () =>
  useChange(
    (id: string) => api.delete<Deleted>(`/api/managed-users/${enc(id)}`),
    () => [keys.users(), keys.dashboard(), keys.alerts(), keys.approvals(), keys.parents(), keys.devices()],
  );

export const useRemoveParent = () =>
  useChange(
    (id: string) => api.delete<Deleted>(`/api/household/parents/${enc(id)}`),
    () => [keys.parents()],
  );

// Time (DESIGN §10). A change to the schedule, the day's minutes or a pause changes the child's figures
// today, the sync state of each device, the dashboard's card and (for today's bar) the statistics.
const timeKeys = (childId: string) => [
  keys.usage(childId),
  keys.scheduleSync(childId),
  keys.allStats(childId),
  keys.dashboard(),
];

/** Saves the days given (a day left out is unchanged); the answer is written into the schedule's cache. */
export function useSaveSchedule(childId: string) {
  const cache = useQueryClient();
  return useMutation<ScheduleView, ApiError, Partial<WeeklyDays>>({
    mutationFn: (days) =>
      api.post<ScheduleView>('/weekly-schedule/update', { managed_user_id: childId, days }),
    onSuccess: (answer) => {
      cache.setQueryData(keys.schedule(childId), answer);
      for (const queryKey of timeKeys(childId)) void cache.invalidateQueries({ queryKey });
    },
  });
}

/**
 * Adds (or, negative, takes) minutes of today's time. The new remaining time shows at once from the
 * answer, before the figures are fetched again.
 */
export function useModifyTime(childId: string) {
  const cache = useQueryClient();
  return useMutation<ModifyTimeAnswer, ApiError, { minutes: number }>({
    mutationFn: ({ minutes }) =>
      api.post<ModifyTimeAnswer>('/api/modify-time', { managed_user_id: childId, minutes }),
    onSuccess: (answer) => {
      cache.setQueryData<TimeUsageView>(keys.usage(childId), (current) =>
        current && current.date === answer.date
          ? {
              ...current,
              remaining_seconds: answer.remaining_seconds,
              adjustment_seconds: answer.adjustment_minutes * 60,
            }
          : current,
      );
      for (const queryKey of timeKeys(childId)) void cache.invalidateQueries({ queryKey });
    },
  });
}

export type PauseRequest = { action: 'pause'; minutes?: number } | { action: 'resume' };

/**
 * Pauses the child on every device (for some minutes, or until resumed) or resumes them. `client` is
 * for a caller outside the data provider (a notification).
 */
export function usePauseChild(childId: string, client?: QueryClient) {
  const cache = useQueryClient(client);
  return useMutation<TimeUsageView, ApiError, PauseRequest>(
    {
      mutationFn: (request) =>
        request.action === 'pause'
          ? api.post<TimeUsageView>(
              `/api/managed-users/${enc(childId)}/pause`,
              request.minutes === undefined ? {} : { minutes: request.minutes },
            )
          : api.post<TimeUsageView>(`/api/managed-users/${enc(childId)}/resume`),
      onSuccess: (answer) => {
        cache.setQueryData(keys.usage(childId), answer);
        for (const queryKey of timeKeys(childId)) void cache.invalidateQueries({ queryKey });
      },
    },
    cache,
  );
}
