import type { Generated } from 'kysely';

/** Booleans are stored as 0/1 integers so one schema serves SQLite and PostgreSQL alike. */
export type DbBool = number;

export interface HouseholdTable {
  id: string;
  name: string;
  enrollment_token: string;
  created_at: string;
  /** IANA time zone the days, limits and windows are read in (DESIGN §10). */
  timezone: Generated<string>;
}

export interface ParentTable {
  id: string;
  household_id: string;
  username: string;
  /** Lower-cased username: sign-in names are unique regardless of case. */
  username_key: string;
  password_hash: string;
  role: 'owner' | 'admin' | 'member';
  created_at: string;
  updated_at: string;
}

export interface ParentChildPermissionTable {
  parent_id: string;
  managed_user_id: string;
  can_view: DbBool;
  can_manage_policies: DbBool;
}

export interface SessionTable {
  /** SHA-256 of the cookie value; the cookie itself is never stored. */
  id: string;
  parent_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
}

export interface ManagedUserTable {
  id: string;
  household_id: string;
  name: string;
  overlay_age_tier: 'under8' | 'eight12' | 'teen' | null;
  overlay_parent_note: string | null;
  created_at: string;
  updated_at: string;
  /** The pause on all devices: an ISO instant, "indefinite", or null when not paused. */
  paused_until: string | null;
}

export interface AgentDeviceTable {
  system_id: string;
  household_id: string;
  hostname: string;
  display_name: string | null;
  platform: string;
  status: 'pending' | 'approved' | 'rejected' | 'unenrolled';
  agent_version: string | null;
  /** JSON array of {username, display_name?} from the agent's hello. */
  linux_users: string;
  secure_token_hash: string | null;
  last_seen_at: string | null;
  created_at: string;
  updated_at: string;
  connected_instance?: string | null;
  decided_at?: string | null;
  installed_apps_report_hash?: string | null;
  installed_apps_reported_at?: string | null;
  installed_apps_count?: number;
  /** JSON array of the agent's last `overlay_status` entries; null before one came or after unenrolment. */
  overlay_state?: string | null;
  overlay_state_at?: string | null;
}

export interface InstalledAppsReportTable {
  system_id: string;
  linux_username: string;
  report_hash: string;
  reported_at: string;
  app_count: number;
}

export interface DeviceInstalledApplicationTable {
  system_id: string;
  linux_username: string;
  identifier: string;
  match_type: 'executable' | 'package';
  application_name: string;
  version_name: string;
  icon_hash: string | null;
  first_seen_at: string;
  last_seen_at: string;
}

export interface ApplicationIconTable {
  content_hash: string;
  mime_type: string;
  data_base64: string;
  byte_size: number;
  created_at: string;
}

export interface AppPolicyTable {
  managed_user_id: string;
  version: number;
  /** JSON array of rules. */
  rules: string;
  updated_at: string;
  updated_by: string | null;
}

export interface AppPolicySyncTable {
  managed_user_id: string;
  system_id: string;
  version: number;
  status: 'pending' | 'synced' | 'failed';
  error: string | null;
  updated_at: string;
}

export interface DeviceCommandTable {
  id: string;
  system_id: string;
  command: string;
  /** JSON object. */
  args: string;
  /** Policy pushes of one kind replace each other while queued. */
  coalesce_key: string | null;
  attempts: number;
  created_at: string;
  expires_at: string | null;
}

export interface DeviceMappingTable {
  id: string;
  household_id: string;
  managed_user_id: string;
  system_id: string;
  linux_username: string;
  created_at: string;
  enforce_signup_approvals?: DbBool;
  /** 0 = off, else minutes between periodic screenshots (0012). */
  screenshot_interval_minutes?: number;
  screenshot_requested_at?: string | null;
}

export interface ApprovalRequestTable {
  id: string;
  household_id: string;
  type: 'site_signup' | 'time_extension' | 'app_access' | 'domain_unblock';
  status: 'pending' | 'approved' | 'denied';
  mapping_id: string | null;
  managed_user_id: string | null;
  system_id: string;
  linux_username: string;
  domain: string | null;
  url: string | null;
  /** JSON object. */
  details: string;
  requested_at: string;
  decided_at: string | null;
  decided_by: string | null;
  grant: 'once' | 'persistent' | null;
  /** Minutes granted for a time extension (0006); null for other types and undecided requests. */
  approved_minutes?: number | null;
}

export interface ApprovalGrantTable {
  id: string;
  household_id: string;
  mapping_id: string;
  type: 'site_signup' | 'app_access' | 'domain_unblock';
  domain: string | null;
  target: string | null;
  kind: 'once' | 'persistent';
  source_request_id: string | null;
  created_at: string;
  expires_at: string | null;
  consumed_at: string | null;
}

export interface TimeAdjustmentTable {
  id: string;
  managed_user_id: string;
  date: string;
  seconds: number;
  source_request_id: string | null;
  created_at: string;
  note: string | null;
  created_by: string | null;
}

/** A child's weekly schedule (DESIGN §10); `version` rises with every change a device must hear of. */
export interface TimeScheduleTable {
  managed_user_id: string;
  household_id: string;
  version: number;
  /** JSON {monday … sunday: {limit_minutes, windows}}. */
  days: string;
  updated_at: string;
  updated_by: string | null;
}

/** Delivery of set_time_policy to one mapped (device, account). */
export interface TimePolicySyncTable {
  mapping_id: string;
  managed_user_id: string;
  system_id: string;
  version: number;
  status: 'synced' | 'pending' | 'failed' | 'unsupported';
  applied_version: number | null;
  last_attempt_at: string | null;
  error: string | null;
}

/** A household's blocklist (DESIGN §11); its domains are one gzipped text, not a row each. */
export interface BlocklistSourceTable {
  id: string;
  household_id: string;
  name: string;
  kind: 'manual' | 'url';
  url: string | null;
  format: 'auto' | 'hosts' | 'adblock' | 'domains';
  detected_format: 'hosts' | 'adblock' | 'domains' | null;
  domain_count: number;
  allow_count: number;
  skipped_lines: number;
  /** gzip of the sorted, distinct blocked domains joined by "\n". */
  content: Buffer | null;
  /** gzip of the list's exceptions (adblock `@@||d^`), the same way. */
  allow_content: Buffer | null;
  content_hash: string | null;
  etag: string | null;
  last_modified: string | null;
  last_refreshed_at: string | null;
  last_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** A child's domain policy: own entries, the grants the last compile took in, the version. */
export interface DomainPolicyTable {
  managed_user_id: string;
  household_id: string;
  version: number;
  content_hash: string;
  domain_count: number;
  /** JSON arrays. */
  block_domains: string;
  allow_domains: string;
  /** JSON [{id, domain, expires_at}]. */
  grants: string;
  updated_at: string;
  updated_by: string | null;
  compiled_at: string;
}

export interface DomainPolicySourceTable {
  managed_user_id: string;
  source_id: string;
  position: number;
}

/** Delivery of `domain_policy_changed` per mapped (device, account), as TimePolicySyncTable. */
export type DomainPolicySyncTable = TimePolicySyncTable;

/** A day's running total of one application on one account (usage_report `apps`). */
export interface UsageAppDayTable {
  system_id: string;
  linux_username: string;
  date: string;
  identifier: string;
  match_type: string;
  seconds: number;
  updated_at: string;
}

export interface UserOnlineAccountTable {
  id: string;
  household_id: string;
  owner_key: string;
  managed_user_id: string | null;
  system_id: string | null;
  linux_username: string | null;
  domain: string;
  username: string;
  first_detected_at: string;
  last_active_at: string;
}

export interface ConsoleLinkTable {
  household_id: string;
  provider: 'xbox' | 'nintendo';
  secrets: string;
  account_name: string | null;
  linked_at: string;
  linked_by: string | null;
  status: 'ok' | 'expired' | 'failing';
  last_error: string | null;
  last_sync_at: string | null;
  last_attempt_at: string | null;
  failures: number;
  next_sync_at: string;
}

export interface ConsoleLoginTable {
  state: string;
  household_id: string;
  provider: 'xbox' | 'nintendo';
  verifier: string | null;
  created_at: string;
  created_by: string | null;
  used_at: string | null;
}

export interface ConsoleDeviceTable {
  system_id: string;
  household_id: string;
  provider: 'xbox' | 'nintendo';
  console_id: string;
  console_name: string;
  player_id: string;
  player_name: string;
  managed_user_id: string;
  imported_at: string;
  last_sync_at: string | null;
  last_error: string | null;
  notes: string;
  pushed_digest: string | null;
}

export interface UsageDayTable {
  system_id: string;
  linux_username: string;
  /** The device-local calendar day the agent reported. */
  date: string;
  seconds_used: number;
  updated_at: string;
}

export interface AlertTable {
  id: string;
  household_id: string;
  kind: string;
  system_id: string | null;
  linux_username: string | null;
  managed_user_id: string | null;
  /** JSON object; an access request's is {reason, message}. */
  payload: string;
  created_at: string;
  acknowledged_at: string | null;
}

export interface WorkerLeaseTable {
  name: string;
  holder: string;
  expires_at: string;
  heartbeat_at: string;
  restart_requested_at: string | null;
}

export interface WorkerTaskTable {
  name: string;
  every_ms: number;
  last_run_at: string | null;
  last_duration_ms: number | null;
  last_error: string | null;
  last_result: string | null;
  runs: number;
  failures: number;
}

/** A device policy (DESIGN §12): per mapping, or device-wide (`mapping_id` null), with its delivery. */
export interface DevicePolicyTable {
  scope_key: string;
  household_id: string;
  system_id: string;
  mapping_id: string | null;
  linux_username: string | null;
  kind: 'linux' | 'android';
  version: number;
  policy: string;
  updated_at: string;
  updated_by: string | null;
  sync_status: 'synced' | 'pending' | 'failed' | 'unsupported';
  applied_version: number | null;
  last_attempt_at: string | null;
  error: string | null;
  rules: string | null;
}

export interface ScreenshotTable {
  id: string;
  household_id: string;
  system_id: string;
  linux_username: string;
  managed_user_id: string | null;
  request_id: string | null;
  content_type: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  bytes: number;
  taken_at: string;
  storage: 'file' | 'database';
  data: Buffer | null;
}

export interface Database {
  household: HouseholdTable;
  parent: ParentTable;
  parent_child_permission: ParentChildPermissionTable;
  session: SessionTable;
  managed_user: ManagedUserTable;
  agent_device: AgentDeviceTable;
  device_mapping: DeviceMappingTable;
  usage_day: UsageDayTable;
  device_command: DeviceCommandTable;
  alert: AlertTable;
  worker_lease: WorkerLeaseTable;
  worker_task: WorkerTaskTable;
  approval_request: ApprovalRequestTable;
  approval_grant: ApprovalGrantTable;
  time_adjustment: TimeAdjustmentTable;
  time_schedule: TimeScheduleTable;
  time_policy_sync: TimePolicySyncTable;
  blocklist_source: BlocklistSourceTable;
  domain_policy: DomainPolicyTable;
  domain_policy_source: DomainPolicySourceTable;
  domain_policy_sync: DomainPolicySyncTable;
  usage_app_day: UsageAppDayTable;
  user_online_account: UserOnlineAccountTable;
  installed_apps_report: InstalledAppsReportTable;
  device_installed_application: DeviceInstalledApplicationTable;
  application_icon: ApplicationIconTable;
  app_policy: AppPolicyTable;
  app_policy_sync: AppPolicySyncTable;
  console_link: ConsoleLinkTable;
  console_login: ConsoleLoginTable;
  console_device: ConsoleDeviceTable;
  device_policy: DevicePolicyTable;
  screenshot: ScreenshotTable;
}

export type { Generated };
