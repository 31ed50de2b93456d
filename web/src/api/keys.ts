// Every cached resource has one key, built here, so a page, a mutation and the live-event table name the
// same thing the same way. Keys nest: invalidating `['user', id]` also refreshes that child's usage and apps.

export interface OnlineAccountFilters {
  q: string;
  sort: string;
  order: string;
  childId: string;
}

export const keys = {
  users: () => ['users'] as const,
  user: (id: string) => ['user', id] as const,
  usage: (id: string) => ['user', id, 'usage'] as const,
  /** The child's weekly schedule (`GET /api/managed-users/<id>/schedule`). */
  schedule: (id: string) => ['user', id, 'schedule'] as const,
  /** Whether each of the child's devices applied the latest schedule (`GET /api/schedule-sync-status/<id>`). */
  scheduleSync: (id: string) => ['user', id, 'schedule-sync'] as const,
  /** The child's statistics, all ranges (`['user', id, 'stats', days]` below it). */
  allStats: (id: string) => ['user', id, 'stats'] as const,
  stats: (id: string, days: number) => ['user', id, 'stats', days] as const,
  /** The child's mapping check (`GET /users/validate/<id>`). */
  validation: (id: string) => ['user', id, 'validation'] as const,
  /** The child's domain policy (`GET /api/managed-users/<id>/blocklists`). */
  domainPolicy: (id: string) => ['user', id, 'blocklists'] as const,
  /** Whether each of the child's devices applied the latest domain policy. */
  domainSync: (id: string) => ['user', id, 'blocklists-sync'] as const,
  /** "Why is this blocked?" for one domain (`GET /api/managed-users/<id>/domain-check`). */
  domainChecks: (id: string) => ['user', id, 'domain-check'] as const,
  domainCheck: (id: string, domain: string) => ['user', id, 'domain-check', domain] as const,
  childApps: (id: string) => ['user', id, 'installed-apps'] as const,
  appPolicy: (childId: string) => ['app-policy', childId] as const,
  appPolicies: () => ['app-policy'] as const,
  devices: () => ['devices'] as const,
  device: (systemId: string) => ['device', systemId] as const,
  deviceApps: (systemId: string) => ['device', systemId, 'installed-apps'] as const,
  /** Every device policy of a device: its accounts' Linux or Android policies and its own Android one. */
  devicePolicies: (systemId: string) => ['device', systemId, 'policy'] as const,
  /** An account's Linux policy (`GET /api/mappings/<id>/linux-device-policy`). */
  linuxPolicy: (systemId: string, mappingId: string) =>
    ['device', systemId, 'policy', 'linux', mappingId] as const,
  /** An account's Android policy (`GET /api/mappings/<id>/android-device-policy`). */
  androidPolicy: (systemId: string, mappingId: string) =>
    ['device', systemId, 'policy', 'android', mappingId] as const,
  /** The device-wide Android policy (`GET /api/devices/<system_id>/android-device-policy`). */
  androidDevicePolicy: (systemId: string) => ['device', systemId, 'policy', 'android-device'] as const,
  /** A device's screenshots, newest first (`GET /api/devices/<system_id>/screenshots`). */
  screenshots: (systemId: string) => ['device', systemId, 'screenshots'] as const,
  dashboard: () => ['dashboard'] as const,
  approvals: () => ['approvals'] as const,
  approvalList: (filters: { status: 'pending' | 'all' }) => ['approvals', filters] as const,
  alerts: () => ['alerts'] as const,
  /** A paged alert list; `path` carries its filters (kind, child, unread only, page size). */
  alertFeed: (path: string) => ['alerts', 'feed', path] as const,
  unreadAlerts: () => ['alerts', 'unread'] as const,
  alertKinds: () => ['alerts', 'kinds'] as const,
  /** A device's unread clock-tamper alerts (its page offers to clear the lock). */
  clockAlerts: (systemId: string) => ['alerts', 'clock', systemId] as const,
  approvalSettings: (mappingId: string) => ['mapping', mappingId, 'approval-settings'] as const,
  grants: (mappingId: string) => ['mapping', mappingId, 'approval-grants'] as const,
  mappings: () => ['mapping'] as const,
  onlineAccounts: (filters: OnlineAccountFilters) => ['online-accounts', filters] as const,
  parents: () => ['parents'] as const,
  /** The household's blocklist sources (`GET /api/blocklists/sources`). */
  blocklists: () => ['blocklists'] as const,
  taskStatus: () => ['task-status'] as const,
  pairingConfig: () => ['pairing-config'] as const,
  /** Everything about game consoles (`['consoles', provider, …]` below it). */
  consoles: () => ['consoles'] as const,
  /** A vendor's link and its consoles' sync state (`GET /api/<provider>/account-status`). */
  consoleStatus: (provider: string) => ['consoles', provider, 'status'] as const,
  /** The consoles and players the vendor's family account holds (`GET /api/<provider>/devices`). */
  consoleListing: (provider: string) => ['consoles', provider, 'devices'] as const,
  provisioningConfig: () => ['provisioning-config'] as const,
};
