// Game consoles (DESIGN §6 and §13): a household links its Microsoft or Nintendo family account once,
// imports each console as a device mapped to a child, and the worker syncs playtime and limits. The
// wire shapes of /api/xbox/* and /api/nintendo/* (the same for both), their query hooks and changes.
import {
  CONSOLE_PROVIDERS,
  CONSOLE_STALE_MS,
  type ConsoleAccountStatusView,
  type ConsoleAuthenticateView,
  type ConsoleDevicesView,
  type ConsoleImportBody,
  type ConsoleLoginUrlView,
  type ConsoleProviderName,
  type ConsoleSyncView,
  type ConsoleView,
} from '@hearth/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApiError, api } from './client';
import { keys } from './keys';
import { type Resource, useResource } from './query';
import type { DeviceView } from './types';

export { CONSOLE_PROVIDERS };
export type ConsoleProvider = ConsoleProviderName;

export const isConsolePlatform = (platform: string | null | undefined): platform is ConsoleProvider =>
  platform === 'xbox' || platform === 'nintendo';

/** `GET /api/<p>/login-url`: the vendor's sign-in address and Hearth's state for the paste. */
export type ConsoleLoginUrl = ConsoleLoginUrlView;
/** `POST /api/<p>/authenticate`. */
export type ConsoleLinked = ConsoleAuthenticateView;
/** `GET /api/<p>/account-status[?validate=true]`. */
export type ConsoleAccountStatus = ConsoleAccountStatusView;
/** One imported console in `account-status`. */
export type ConsoleSyncItem = ConsoleView;
export type ConsoleLinkState = NonNullable<ConsoleAccountStatus['status']>;
/** `GET /api/<p>/devices`: what the vendor's family account holds. */
export type ConsoleListing = ConsoleDevicesView;
export type VendorConsole = ConsoleListing['consoles'][number];
export type VendorPlayer = ConsoleListing['players'][number];
export type ImportConsoleBody = ConsoleImportBody;
/** `POST /api/<p>/sync`. */
export type ConsoleSyncResult = ConsoleSyncView;

const base = (provider: ConsoleProvider) => `/api/${provider}`;

/** Whether details synced at `iso` are stale (older than 30 minutes, DESIGN §13). */
export const isStale = (iso: string | null, now = Date.now()) =>
  iso !== null && now - Date.parse(iso) > CONSOLE_STALE_MS;

export const useConsoleStatus = (
  provider: ConsoleProvider,
  options: { enabled?: boolean } = {},
): Resource<ConsoleAccountStatus> =>
  useResource(keys.consoleStatus(provider), `${base(provider)}/account-status`, options);

export const useConsoleListing = (
  provider: ConsoleProvider,
  options: { enabled?: boolean } = {},
): Resource<ConsoleListing> =>
  useResource(keys.consoleListing(provider), `${base(provider)}/devices`, {
    ...options,
    // The vendor's list is asked for while importing; no need to keep asking the vendor every minute.
    refresh: false,
  });

/**
 * Each console device's sync state by system id, for the platforms in `platforms` (each vendor is asked
 * only when one of its consoles is on screen).
 */
export function useConsoleSyncBySystem(platforms: Iterable<string | null | undefined>): {
  items: Map<string, ConsoleSyncItem & { platform: ConsoleProvider }>;
  loaded: boolean;
} {
  const wanted = new Set(platforms);
  const xbox = useConsoleStatus('xbox', { enabled: wanted.has('xbox') });
  const nintendo = useConsoleStatus('nintendo', { enabled: wanted.has('nintendo') });
  const items = new Map<string, ConsoleSyncItem & { platform: ConsoleProvider }>();
  for (const [platform, status] of [
    ['xbox', xbox],
    ['nintendo', nintendo],
  ] as const) {
    for (const item of status.data?.consoles ?? []) items.set(item.system_id, { ...item, platform });
  }
  const loaded =
    (!wanted.has('xbox') || !!xbox.data || !!xbox.error) &&
    (!wanted.has('nintendo') || !!nintendo.data || !!nintendo.error);
  return { items, loaded };
}

/** Asks the vendor whether the stored token still works, and writes the answer into the status cache. */
export function useValidateLink(provider: ConsoleProvider) {
  const cache = useQueryClient();
  return useMutation<ConsoleAccountStatus, ApiError, void>({
    mutationFn: () => api.get<ConsoleAccountStatus>(`${base(provider)}/account-status?validate=true`),
    onSuccess: (answer) => cache.setQueryData(keys.consoleStatus(provider), answer),
  });
}

/** Starts a sign-in: the address to open in a new tab and the state that goes with the paste. */
export const useStartConsoleLogin = (provider: ConsoleProvider) =>
  useMutation<ConsoleLoginUrl, ApiError, void>({
    mutationFn: () => api.get<ConsoleLoginUrl>(`${base(provider)}/login-url`),
  });

export function useAuthenticateConsole(provider: ConsoleProvider) {
  const cache = useQueryClient();
  return useMutation<ConsoleLinked, ApiError, { redirect_url: string; state: string | null }>({
    mutationFn: ({ redirect_url, state }) =>
      api.post<ConsoleLinked>(`${base(provider)}/authenticate`, {
        redirect_url,
        ...(state ? { state } : {}),
      }),
    onSuccess: () => void cache.invalidateQueries({ queryKey: keys.consoles() }),
  });
}

/**
 * Imports one console as a device mapped to the child. The caller invalidates once after a batch
 * (`useConsoleImported`), so a batch of four does not refetch four times.
 */
export const useImportConsole = (provider: ConsoleProvider) =>
  useMutation<DeviceView, ApiError, ImportConsoleBody>({
    mutationFn: (body) => api.post<DeviceView>(`${base(provider)}/import-device`, body),
  });

/** What an import changes: the vendor's listing and status, the devices, the children's mappings. */
export function useConsoleImported() {
  const cache = useQueryClient();
  return (childIds: string[]) => {
    for (const queryKey of [
      keys.consoles(),
      keys.devices(),
      keys.users(),
      keys.dashboard(),
      ...childIds.map(keys.user),
    ])
      void cache.invalidateQueries({ queryKey });
  };
}

// Unlinking and syncing change every console of the vendor, so every child's figures may change.
const everythingConsoles = () => [keys.consoles(), keys.devices(), keys.users(), ['user'], keys.dashboard()];

export function useUnlinkConsole(provider: ConsoleProvider) {
  const cache = useQueryClient();
  return useMutation<{ linked: false }, ApiError, void>({
    mutationFn: () => api.post<{ linked: false }>(`${base(provider)}/unlink`),
    onSuccess: () => {
      for (const queryKey of everythingConsoles()) void cache.invalidateQueries({ queryKey });
    },
  });
}

export function useSyncConsoles(provider: ConsoleProvider) {
  const cache = useQueryClient();
  return useMutation<ConsoleSyncResult, ApiError, void>({
    mutationFn: () => api.post<ConsoleSyncResult>(`${base(provider)}/sync`),
    // A failed sync also records its state (the link expired, the vendor failed): show it either way.
    onSettled: () => {
      for (const queryKey of everythingConsoles()) void cache.invalidateQueries({ queryKey });
    },
  });
}
