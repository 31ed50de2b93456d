// Changes a parent makes to devices, children and parents, each through `useMutation`; on success each
// invalidates the keys of `keys` whose answers it changed, so every open page shows the change.
import { type QueryClient, type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApiError, api } from './client';
import { keys } from './keys';
import type { CommandOutcome, ManagedUserView, ParentView } from './types';

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

export type UpdateParentBody = Partial<Pick<AddParentBody, 'role' | 'children' | 'password'>>;

export type OverlayCommand =
  | { action: 'show'; reason: 'locked'; context: 'paused'; linux_username: string }
  | { action: 'dismiss'; linux_username: string };

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

/** Pause or resume one account: a command to the device, nothing the cache holds changes. */
export const useOverlayCommand = (systemId: string, client?: QueryClient) =>
  useChange(
    (body: OverlayCommand) => api.post<CommandOutcome>(`/api/devices/${enc(systemId)}/overlay`, body),
    () => [],
    client,
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
