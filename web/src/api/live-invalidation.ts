import type { LiveEventData, LiveEventKind } from '@hearth/protocol';
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { AppPolicy } from './inventory';
import { keys } from './keys';
import type { ManagedUserView, UserList } from './types';

/**
 * The children known to have an account on a device, from what the cache holds (the children list,
 * a child's page, a child's app rules); null when the cache knows no child at all.
 */
function childrenOn(cache: QueryClient, systemId: string): string[] | null {
  const ids = new Set<string>();
  let known = false;
  const users = cache.getQueryData<UserList>(keys.users());
  const children: ManagedUserView[] = [...(users?.items ?? [])];
  if (users) known = true;
  for (const [key, data] of cache.getQueriesData<ManagedUserView>({ queryKey: ['user'] })) {
    if (key.length !== 2 || !data) continue;
    known = true;
    children.push(data);
  }
  for (const child of children) if (child.mappings.some((m) => m.system_id === systemId)) ids.add(child.id);
  for (const [key, policy] of cache.getQueriesData<AppPolicy>({ queryKey: keys.appPolicies() })) {
    if (policy?.sync.some((s) => s.system_id === systemId)) ids.add(String(key[1]));
  }
  return known ? [...ids] : null;
}

type Invalidates<K extends LiveEventKind> = (data: LiveEventData[K], cache: QueryClient) => QueryKey[];

/**
 * What each live event makes stale, from its data. Keys match by prefix: `['device', id]` covers that
 * device's installed apps too, `['user', id]` that child's usage and apps.
 */
export const LIVE_INVALIDATIONS: { [K in LiveEventKind]: Invalidates<K> } = {
  device_pending: ({ system_id }) => [keys.devices(), keys.device(system_id), keys.dashboard()],
  device_status: ({ system_id }, cache) => {
    const children = childrenOn(cache, system_id);
    return [
      keys.devices(),
      keys.device(system_id),
      keys.dashboard(),
      keys.users(),
      ...(children
        ? children.flatMap((id) => [keys.user(id), keys.appPolicy(id)])
        : [['user'], keys.appPolicies()]),
    ];
  },
  installed_apps_updated: ({ system_id }, cache) => {
    const children = childrenOn(cache, system_id);
    return [keys.deviceApps(system_id), ...(children ? children.map(keys.childApps) : [['user']])];
  },
  // A console's sync state, and the playtime and schedule state it brought to its child.
  console_synced: ({ system_id }, cache) => {
    const children = childrenOn(cache, system_id);
    return [
      keys.devices(),
      keys.device(system_id),
      keys.consoles(),
      ...(children ? children.map(keys.user) : [['user']]),
      keys.dashboard(),
    ];
  },
  // A device applied (or failed) a policy: the state beside its restrictions. The event names the
  // account, not the mapping, so every policy of the device is asked again (there are few).
  device_policy_applied: ({ system_id }) => [keys.devicePolicies(system_id)],
  screenshot_added: ({ system_id }) => [keys.screenshots(system_id)],
  // A child's usage, state and schedule sync, and the dashboard's figures.
  time_state: ({ managed_user_id }) => [keys.user(managed_user_id), keys.dashboard()],
  alert_created: () => [keys.alerts(), keys.dashboard()],
  access_requested: () => [keys.alerts(), keys.dashboard()],
  approval_created: () => [keys.approvals(), keys.dashboard()],
  // A decision can add a site to the mapping's sign-up grants; an approved unblock becomes an allow
  // grant in the child's domain policy (its count, version, device sync and domain checks).
  approval_decided: ({ mapping_id, managed_user_id, type }) => [
    keys.approvals(),
    keys.dashboard(),
    ...(mapping_id ? [keys.grants(mapping_id), keys.approvalSettings(mapping_id)] : []),
    ...(type === 'domain_unblock' && managed_user_id
      ? [
          keys.domainPolicy(managed_user_id),
          keys.domainSync(managed_user_id),
          keys.domainChecks(managed_user_id),
        ]
      : []),
  ],
};

const ABOUT_A_DEVICE = new Set<LiveEventKind>([
  'device_pending',
  'device_status',
  'installed_apps_updated',
  'console_synced',
  'device_policy_applied',
  'screenshot_added',
]);

/** The keys an event makes stale; none when its data lacks what the table reads. */
export function invalidatedBy<K extends LiveEventKind>(
  kind: K,
  data: Record<string, unknown>,
  cache: QueryClient,
): QueryKey[] {
  if (ABOUT_A_DEVICE.has(kind) && typeof data.system_id !== 'string') return [];
  return LIVE_INVALIDATIONS[kind](data as LiveEventData[K], cache);
}
