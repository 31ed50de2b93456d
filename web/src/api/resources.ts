// Query hooks for the household's resources; inventory, approvals and alerts keep theirs beside their
// requests. Each reads through one key of `keys`.
import type { OnlineAccountView } from '@hearth/protocol';
import { keys } from './keys';
import { type Resource, useResource } from './query';
import type {
  DashboardView,
  DeviceList,
  DeviceView,
  ItemList,
  ManagedUserView,
  PairingConfig,
  ParentList,
  ProvisioningConfig,
  TaskStatusView,
  UserList,
  ValidationView,
} from './types';

const enc = encodeURIComponent;

export const useUsers = (): Resource<UserList> => useResource(keys.users(), '/api/users');

export const useUser = (id: string): Resource<ManagedUserView> =>
  useResource(keys.user(id), `/api/user/${enc(id)}`);

export const useValidation = (id: string): Resource<ValidationView> =>
  useResource(keys.validation(id), `/users/validate/${enc(id)}`);

export const useDevices = (): Resource<DeviceList> => useResource(keys.devices(), '/api/devices');

export const useDevice = (systemId: string): Resource<DeviceView> =>
  useResource(keys.device(systemId), `/api/devices/${enc(systemId)}`);

export const useDashboard = (): Resource<DashboardView> => useResource(keys.dashboard(), '/api/dashboard');

export const useParents = (): Resource<ParentList> => useResource(keys.parents(), '/api/household/parents');

export const useTaskStatus = (): Resource<TaskStatusView> =>
  useResource(keys.taskStatus(), '/api/task-status');

export const usePairingConfig = (): Resource<PairingConfig> =>
  useResource(keys.pairingConfig(), '/api/pairing/config', { refresh: false });

export const useProvisioningConfig = (): Resource<ProvisioningConfig> =>
  useResource(keys.provisioningConfig(), '/api/pairing/provisioning/config', { refresh: false });

/**
 * How often an open Online Accounts page asks again. A login is not one of the live stream's kinds
 * (DESIGN §6 fixes that list), so the page follows new logins by asking every few seconds while the tab
 * is visible, and at once when it comes back.
 */
export const ONLINE_ACCOUNTS_REFRESH_MS = 5_000;

export function useOnlineAccounts(
  filters: { q: string; sort: string; order: string; childId: string },
  path: string,
): Resource<ItemList<OnlineAccountView>> {
  return useResource(keys.onlineAccounts(filters), path, {
    keepPrevious: true,
    refetchInterval: ONLINE_ACCOUNTS_REFRESH_MS,
  });
}
