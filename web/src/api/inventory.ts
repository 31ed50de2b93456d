// Installed applications and per-child application rules: the wire shapes of the inventory and
// app-policy routes, and the requests that change something.
import { api, request } from './client';
import { keys } from './keys';
import { type Resource, useResource } from './query';

/** How an agent names an app: a Linux or Windows executable path, or an Android package. */
export type MatchType = 'executable' | 'package';

/** One app on one account of a device. */
export interface InstalledApp {
  linux_username: string;
  application_name: string;
  identifier: string;
  match_type: MatchType;
  version_name: string;
  icon_hash: string | null;
  /** Public and cacheable; null when the agent sent no icon. */
  icon_url: string | null;
  first_seen_at: string;
  last_seen_at: string;
}

/** GET /api/devices/:system_id/installed-apps */
export interface DeviceInventory {
  system_id: string;
  /** When the newest applied report was made; null before the first one. */
  reported_at: string | null;
  report_hash: string | null;
  count: number;
  items: InstalledApp[];
}

export interface ChildAppDevice {
  system_id: string;
  hostname: string;
  linux_username: string;
  version_name: string;
}

/** One app across a child's devices, with the devices that have it. */
export interface ChildApp {
  identifier: string;
  match_type: MatchType;
  application_name: string;
  icon_hash: string | null;
  icon_url: string | null;
  first_seen_at: string;
  last_seen_at: string;
  devices: ChildAppDevice[];
}

/** GET /api/managed-users/:id/installed-apps */
export interface ChildInventory {
  managed_user_id: string;
  items: ChildApp[];
}

/** POST /api/devices/:system_id/installed-apps/refresh; `delivered` is false while the device is offline. */
export interface RescanOutcome {
  queued: boolean;
  delivered: boolean;
}

export type AppAction = 'allow' | 'block' | 'limit';

export interface AppRule {
  identifier: string;
  match_type: MatchType;
  action: AppAction;
  /** 1…1440, for `limit` only. */
  daily_minutes?: number;
  application_name?: string;
}

/** `none` before any rules were saved; `pending` until the device has the current version. */
export type SyncStatus = 'none' | 'pending' | 'synced' | 'failed';

export interface PolicySync {
  system_id: string;
  hostname: string;
  linux_username: string;
  version: number | null;
  status: SyncStatus;
  updated_at: string | null;
}

/** GET and PUT /api/managed-users/:id/app-policy */
export interface AppPolicy {
  managed_user_id: string;
  /** 0 before the first save; each save adds one. */
  version: number;
  rules: AppRule[];
  updated_at: string | null;
  sync: PolicySync[];
}

/** The data of an `installed_apps_updated` live event. */
export interface InstalledAppsUpdated {
  system_id: string;
  linux_username: string;
  count: number;
}

export const DAILY_MINUTES_MIN = 1;
export const DAILY_MINUTES_MAX = 1440;

/** One key per app, the way the server tells apps apart. */
export function appKey(app: { identifier: string; match_type: string }): string {
  return `${app.match_type}:${app.identifier}`;
}

export const inventoryPaths = {
  device: (systemId: string) => `/api/devices/${encodeURIComponent(systemId)}/installed-apps`,
  child: (childId: string) => `/api/managed-users/${encodeURIComponent(childId)}/installed-apps`,
  policy: (childId: string) => `/api/managed-users/${encodeURIComponent(childId)}/app-policy`,
};

/** Asks the device's agent to list its apps again now (or as soon as it reconnects). */
export function requestRescan(systemId: string): Promise<RescanOutcome> {
  return api.post<RescanOutcome>(`${inventoryPaths.device(systemId)}/refresh`);
}

/**
 * Replaces the child's rules. `version` is the one read: if someone saved meanwhile, the server
 * answers 409 `conflict` instead of overwriting their change.
 */
export function savePolicy(childId: string, rules: AppRule[], version: number): Promise<AppPolicy> {
  return request<AppPolicy>('PUT', inventoryPaths.policy(childId), { body: { rules, version } });
}

export const useDeviceInventory = (systemId: string): Resource<DeviceInventory> =>
  useResource(keys.deviceApps(systemId), inventoryPaths.device(systemId));

export const useChildInventory = (childId: string): Resource<ChildInventory> =>
  useResource(keys.childApps(childId), inventoryPaths.child(childId));

export const useAppPolicyQuery = (childId: string): Resource<AppPolicy> =>
  useResource(keys.appPolicy(childId), inventoryPaths.policy(childId));
