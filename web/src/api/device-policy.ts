// Device policies and screenshots (DESIGN §12): an account's Linux restrictions, Android's policies per
// account and per device, a device's screenshots, their query hooks and changes. A policy asks again
// every few seconds while its device has not applied it (the `device_policy_applied` event usually
// comes first); the screenshot list asks again while a capture waits for its picture.
import {
  type AndroidDevicePolicy,
  type AndroidDevicePolicyView,
  type CaptureScreenshotAnswer,
  LINUX_POLICY_RULES,
  type LinuxDevicePolicy,
  type LinuxDevicePolicyView,
  type LinuxPolicyRule,
  MAX_ALLOWED_EXTENSIONS,
  type RuleResult,
  type ScreenshotView,
} from '@hearth/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApprovalSettings, settingsPath } from './approvals';
import { type ApiError, api } from './client';
import { keys } from './keys';
import { FALLBACK_REFRESH_MS, type Resource, useResource } from './query';
import type { ItemList } from './types';

export type {
  AndroidDevicePolicy,
  AndroidDevicePolicyView,
  CaptureScreenshotAnswer,
  LinuxDevicePolicy,
  LinuxDevicePolicyView,
  LinuxPolicyRule,
  RuleResult,
  ScreenshotView,
};
export { LINUX_POLICY_RULES, MAX_ALLOWED_EXTENSIONS };

export type PolicySync = LinuxDevicePolicyView['sync'];
/** `sync.status` (the protocol's schema types it as a string). */
export type PolicySyncStatus = 'synced' | 'pending' | 'failed' | 'unsupported';
export type AndroidLocationMode = AndroidDevicePolicy['location_mode'];
export type AndroidSwitch = Exclude<keyof AndroidDevicePolicy, 'location_mode'>;

export const ANDROID_SWITCHES: readonly AndroidSwitch[] = [
  'camera_disabled',
  'microphone_disabled',
  'screen_capture_disabled',
  'install_apps_disabled',
  'uninstall_apps_disabled',
  'factory_reset_disabled',
  'bluetooth_disabled',
];

/** How often a policy the device has not applied yet is asked for again. */
export const POLICY_PENDING_REFRESH_MS = 4_000;
/** How often the screenshot list is asked for again while a capture waits for its picture. */
export const CAPTURE_REFRESH_MS = 2_000;

const enc = encodeURIComponent;

const linuxPath = (mappingId: string) => `/api/mappings/${enc(mappingId)}/linux-device-policy`;
const androidPath = (mappingId: string) => `/api/mappings/${enc(mappingId)}/android-device-policy`;
const androidDevicePath = (systemId: string) => `/api/devices/${enc(systemId)}/android-device-policy`;

const whilePending = (data: { sync: PolicySync } | undefined) =>
  data?.sync.status === 'pending' ? POLICY_PENDING_REFRESH_MS : FALLBACK_REFRESH_MS;

/** The document a PUT takes, from what the GET answered. */
export function linuxPolicyOf(view: LinuxDevicePolicyView): LinuxDevicePolicy {
  const rules = Object.fromEntries(LINUX_POLICY_RULES.map((rule) => [rule, view[rule] === true])) as Record<
    LinuxPolicyRule,
    boolean
  >;
  return { ...rules, allowed_extension_ids: [...view.allowed_extension_ids] };
}

export function androidPolicyOf(view: AndroidDevicePolicyView): AndroidDevicePolicy {
  const switches = Object.fromEntries(ANDROID_SWITCHES.map((s) => [s, view[s] === true])) as Record<
    AndroidSwitch,
    boolean
  >;
  return { ...switches, location_mode: view.location_mode };
}

export const useLinuxPolicy = (
  systemId: string,
  mappingId: string,
  options: { enabled?: boolean } = {},
): Resource<LinuxDevicePolicyView> =>
  useResource<LinuxDevicePolicyView>(keys.linuxPolicy(systemId, mappingId), linuxPath(mappingId), {
    ...options,
    refetchInterval: whilePending,
  });

/** Replaces the account's restrictions; the answer (a new version, pending) goes into the cache. */
export function useSaveLinuxPolicy(systemId: string, mappingId: string) {
  const cache = useQueryClient();
  return useMutation<LinuxDevicePolicyView, ApiError, LinuxDevicePolicy>({
    mutationFn: (policy) => api.put<LinuxDevicePolicyView>(linuxPath(mappingId), policy),
    onSuccess: (answer) => cache.setQueryData(keys.linuxPolicy(systemId, mappingId), answer),
  });
}

/** An Android policy: per account (`mappingId`), or the device-wide one (`mappingId` null). */
export const useAndroidPolicy = (
  systemId: string,
  mappingId: string | null,
  options: { enabled?: boolean } = {},
): Resource<AndroidDevicePolicyView> =>
  useResource<AndroidDevicePolicyView>(
    mappingId ? keys.androidPolicy(systemId, mappingId) : keys.androidDevicePolicy(systemId),
    mappingId ? androidPath(mappingId) : androidDevicePath(systemId),
    { ...options, refetchInterval: whilePending },
  );

export function useSaveAndroidPolicy(systemId: string, mappingId: string | null) {
  const cache = useQueryClient();
  return useMutation<AndroidDevicePolicyView, ApiError, AndroidDevicePolicy>({
    mutationFn: (policy) =>
      api.put<AndroidDevicePolicyView>(
        mappingId ? androidPath(mappingId) : androidDevicePath(systemId),
        policy,
      ),
    onSuccess: (answer) =>
      cache.setQueryData(
        mappingId ? keys.androidPolicy(systemId, mappingId) : keys.androidDevicePolicy(systemId),
        answer,
      ),
  });
}

// ——— screenshots ———

export const useScreenshots = (
  systemId: string,
  options: { enabled?: boolean; waiting?: boolean } = {},
): Resource<ItemList<ScreenshotView>> =>
  useResource(keys.screenshots(systemId), `/api/devices/${enc(systemId)}/screenshots`, {
    enabled: options.enabled,
    refetchInterval: options.waiting ? CAPTURE_REFRESH_MS : FALLBACK_REFRESH_MS,
  });

/** Asks the device for a picture of the account's screen now; the upload names `request_id`. */
export const useCaptureScreenshot = (systemId: string) =>
  useMutation<CaptureScreenshotAnswer, ApiError, string>({
    mutationFn: (linuxUsername) =>
      api.post<CaptureScreenshotAnswer>(`/api/devices/${enc(systemId)}/screenshots/capture`, {
        linux_username: linuxUsername,
      }),
  });

/** Deletes a screenshot (its bytes too); it leaves the gallery at once. */
export function useDeleteScreenshot(systemId: string) {
  const cache = useQueryClient();
  return useMutation<{ id: string; deleted: boolean }, ApiError, string>({
    mutationFn: (id) => api.delete<{ id: string; deleted: boolean }>(`/api/screenshots/${enc(id)}`),
    onSuccess: (_answer, id) => {
      cache.setQueryData<ItemList<ScreenshotView>>(keys.screenshots(systemId), (list) =>
        list ? { ...list, items: list.items.filter((s) => s.id !== id) } : list,
      );
      void cache.invalidateQueries({ queryKey: keys.screenshots(systemId) });
    },
  });
}

/** Periodic screenshots of an account (0 = off), saved with the mapping's approval settings. */
export function useSaveScreenshotInterval(mappingId: string) {
  const cache = useQueryClient();
  return useMutation<ApprovalSettings, ApiError, number>({
    mutationFn: (minutes) =>
      api.post<ApprovalSettings>(settingsPath(mappingId), { screenshot_interval_minutes: minutes }),
    onSuccess: (answer) => cache.setQueryData(keys.approvalSettings(mappingId), answer),
  });
}
