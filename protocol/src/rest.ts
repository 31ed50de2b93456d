import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { AGE_TIERS, LIMITS, OVERLAY_REASONS, PARENT_ROLES, PLATFORMS } from './constants.js';

const strict = { additionalProperties: false } as const;

export const Id = Type.String({ minLength: 1, maxLength: 64 });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const AgeTierSchema = Type.Union(AGE_TIERS.map((t) => Type.Literal(t)));
export const RoleSchema = Type.Union(PARENT_ROLES.map((r) => Type.Literal(r)));
export const PlatformSchema = Type.Union(PLATFORMS.map((p) => Type.Literal(p)));

export const Username = Type.String({
  minLength: 1,
  maxLength: LIMITS.usernameMaxLength,
  pattern: '^\\S(.*\\S)?$',
});
export const Password = Type.String({
  minLength: LIMITS.passwordMinLength,
  maxLength: LIMITS.passwordMaxLength,
});
export const Name = Type.String({ minLength: 1, maxLength: LIMITS.nameMaxLength, pattern: '\\S' });
export const LinuxUsername = Type.String({
  minLength: 1,
  maxLength: LIMITS.linuxUsernameMaxLength,
  pattern: '^\\S+$',
});
export const ParentNote = Type.String({ maxLength: LIMITS.parentNoteMaxLength });

// Sessions and households (DESIGN §3)
export const SignInBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  strict,
);
export type SignInBody = Static<typeof SignInBody>;

export const SetupBody = Type.Object(
  { username: Username, password: Password, household_name: Name },
  strict,
);
export type SetupBody = Static<typeof SetupBody>;

export const SessionView = Type.Object({
  parent: Type.Object({ id: Id, username: Type.String() }),
  household: Type.Object({ id: Id, name: Type.String() }),
  role: RoleSchema,
  csrf_token: Type.String(),
});
export type SessionView = Static<typeof SessionView>;

export const SetupState = Type.Object({
  setup_required: Type.Boolean(),
  open_signup: Type.Boolean(),
  version: Type.String(),
});

export const ChildPermission = Type.Object(
  { managed_user_id: Id, can_view: Type.Boolean(), can_manage_policies: Type.Boolean() },
  strict,
);
export type ChildPermission = Static<typeof ChildPermission>;

export const ParentView = Type.Object({
  id: Id,
  username: Type.String(),
  role: RoleSchema,
  children: Type.Array(ChildPermission),
  created_at: Timestamp,
});
export type ParentView = Static<typeof ParentView>;

export const CreateParentBody = Type.Object(
  {
    username: Username,
    password: Password,
    role: RoleSchema,
    children: Type.Optional(Type.Array(ChildPermission, { maxItems: 1000 })),
  },
  strict,
);
export type CreateParentBody = Static<typeof CreateParentBody>;

export const UpdateParentBody = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    children: Type.Optional(Type.Array(ChildPermission, { maxItems: 1000 })),
    password: Type.Optional(Password),
  },
  strict,
);
export type UpdateParentBody = Static<typeof UpdateParentBody>;

// Managed users and mappings (DESIGN §6)
export const MappingSummary = Type.Object({
  id: Id,
  system_id: Type.String(),
  hostname: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  linux_username: Type.String(),
});

export const ManagedUserView = Type.Object({
  id: Id,
  name: Type.String(),
  overlay_age_tier: Nullable(AgeTierSchema),
  overlay_parent_note: Nullable(Type.String()),
  mappings: Type.Array(MappingSummary),
});
export type ManagedUserView = Static<typeof ManagedUserView>;

export const CreateUserBody = Type.Object(
  {
    name: Name,
    overlay_age_tier: Type.Optional(Nullable(AgeTierSchema)),
    overlay_parent_note: Type.Optional(Nullable(ParentNote)),
  },
  strict,
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const AddUserForm = Type.Object({ name: Name }, strict);

export const OverlayBody = Type.Object(
  {
    overlay_age_tier: Type.Optional(Nullable(AgeTierSchema)),
    overlay_parent_note: Type.Optional(Nullable(ParentNote)),
  },
  strict,
);
export type OverlayBody = Static<typeof OverlayBody>;

export const OverlayView = Type.Object({
  id: Id,
  overlay_age_tier: Nullable(AgeTierSchema),
  overlay_parent_note: Nullable(Type.String()),
});

export const AddMappingBody = Type.Object(
  { system_id: Type.String({ format: 'uuid' }), linux_username: LinuxUsername },
  strict,
);
export type AddMappingBody = Static<typeof AddMappingBody>;

export const MappingView = Type.Object({
  id: Id,
  system_id: Type.String(),
  linux_username: Type.String(),
  managed_user_id: Id,
});
export type MappingView = Static<typeof MappingView>;

export const MAPPING_PROBLEMS = ['device_not_approved', 'account_not_reported'] as const;
export const ValidationView = Type.Object({
  user_id: Id,
  valid: Type.Boolean(),
  mappings: Type.Array(
    Type.Object({
      id: Id,
      system_id: Type.String(),
      linux_username: Type.String(),
      valid: Type.Boolean(),
      problems: Type.Array(Type.String()),
    }),
  ),
});
export type ValidationView = Static<typeof ValidationView>;

export const UsageView = Type.Object({
  user_id: Id,
  date: Type.String({ description: 'YYYY-MM-DD (server UTC day)' }),
  used_seconds_today: Type.Integer(),
  limit_seconds: Nullable(Type.Integer()),
  remaining_seconds: Nullable(Type.Integer()),
  online: Type.Boolean(),
  devices: Type.Array(
    Type.Object({ system_id: Type.String(), linux_username: Type.String(), seconds_used: Type.Integer() }),
  ),
});
export type UsageView = Static<typeof UsageView>;

export const StatsView = Type.Object({
  user_id: Id,
  days: Type.Array(Type.Object({ date: Type.String(), seconds_used: Type.Integer() })),
  total_seconds: Type.Integer(),
  daily_average_seconds: Type.Integer(),
});
export type StatsView = Static<typeof StatsView>;

export const Items = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item) });

// Devices (DESIGN §6)
export const DeviceView = Type.Object({
  system_id: Type.String(),
  hostname: Type.String(),
  display_name: Type.String(),
  platform: Type.String(),
  status: Type.String(),
  agent_version: Nullable(Type.String()),
  linux_users: Type.Array(
    Type.Object({ username: Type.String(), display_name: Type.Optional(Type.String()) }),
  ),
  online: Type.Boolean(),
  last_seen_at: Nullable(Type.String()),
  created_at: Type.String(),
});
export type DeviceView = Static<typeof DeviceView>;

export const SystemIdParams = Type.Object({ system_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ApproveDeviceBody = Type.Object(
  { display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })) },
  strict,
);
export type ApproveDeviceBody = Static<typeof ApproveDeviceBody>;

export const DeviceDecision = Type.Object({ system_id: Type.String(), status: Type.String() });

export const OverlayControlBody = Type.Object(
  {
    action: Type.Union([Type.Literal('show'), Type.Literal('dismiss')]),
    reason: Type.Optional(Type.Union(OVERLAY_REASONS.map((r) => Type.Literal(r)))),
    linux_username: LinuxUsername,
  },
  strict,
);
export type OverlayControlBody = Static<typeof OverlayControlBody>;

export const CommandOutcome = Type.Object({ delivered: Type.Boolean(), queued: Type.Boolean() });
export type CommandOutcome = Static<typeof CommandOutcome>;

export const PairingPayload = Type.Object({
  type: Type.Literal('hearth_pairing'),
  ws_url: Type.String(),
  enrollment_token: Type.String(),
});
export const PairingConfig = Type.Object({
  server_url: Type.String(),
  ws_url: Type.String(),
  enrollment_token: Type.String(),
  payload: PairingPayload,
});
export type PairingConfig = Static<typeof PairingConfig>;

export const ProvisioningConfig = Type.Object({
  server_url: Type.String(),
  enrollment_token: Type.String(),
  apk_available: Type.Boolean(),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export type ProvisioningConfig = Static<typeof ProvisioningConfig>;

// Access requests, alerts, dashboard (DESIGN §6)
export const AccessRequestBody = Type.Object(
  {
    linux_username: Type.String({ minLength: 1, maxLength: 64 }),
    reason: Type.Union(OVERLAY_REASONS.map((r) => Type.Literal(r))),
    // Checked again after trimming (1–500); the raw text may carry surrounding space.
    message: Type.String({ maxLength: 2000 }),
    system_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  strict,
);
export type AccessRequestBody = Static<typeof AccessRequestBody>;

export const AccessRequestCreated = Type.Object({
  id: Id,
  kind: Type.Literal('access_requested'),
  created_at: Type.String(),
});

export const AlertView = Type.Object({
  id: Id,
  kind: Type.String(),
  system_id: Nullable(Type.String()),
  hostname: Nullable(Type.String()),
  linux_username: Nullable(Type.String()),
  managed_user_id: Nullable(Type.String()),
  managed_user_name: Nullable(Type.String()),
  payload: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
  acknowledged_at: Nullable(Type.String()),
});
export type AlertView = Static<typeof AlertView>;

export const AlertPage = Type.Object({ items: Type.Array(AlertView), next_cursor: Nullable(Type.String()) });

export const AlertQuery = Type.Object(
  {
    kind: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' })),
    managed_user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    system_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    unacknowledged: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  strict,
);
export type AlertQuery = Static<typeof AlertQuery>;

export const PruneBody = Type.Object(
  { older_than_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })) },
  strict,
);

export const DashboardView = Type.Object({
  household: Type.Object({ id: Id, name: Type.String() }),
  counts: Type.Object({
    pending_devices: Type.Integer(),
    pending_approvals: Type.Integer(),
    unread_alerts: Type.Integer(),
  }),
  users: Type.Array(
    Type.Object({
      id: Id,
      name: Type.String(),
      online: Type.Boolean(),
      used_seconds_today: Type.Integer(),
      remaining_seconds: Nullable(Type.Integer()),
    }),
  ),
  devices: Type.Array(DeviceView),
  recent_alerts: Type.Array(AlertView),
});
export type DashboardView = Static<typeof DashboardView>;

export const TaskStatusView = Type.Object({
  worker: Type.Object({
    holder: Nullable(Type.String()),
    heartbeat_at: Nullable(Type.String()),
    alive: Type.Boolean(),
  }),
  tasks: Type.Array(
    Type.Object({
      name: Type.String(),
      every_ms: Type.Integer(),
      last_run_at: Nullable(Type.String()),
      last_duration_ms: Nullable(Type.Integer()),
      last_error: Nullable(Type.String()),
      last_result: Nullable(Type.String()),
      runs: Type.Integer(),
      failures: Type.Integer(),
    }),
  ),
});
export type TaskStatusView = Static<typeof TaskStatusView>;

// Sign-up approvals, approval requests, grants, online accounts (DESIGN §6)
export const APPROVAL_TYPES = ['site_signup', 'time_extension', 'app_access', 'domain_unblock'] as const;
export const APPROVAL_STATUSES = ['pending', 'approved', 'denied'] as const;
export const ApprovalType = Type.Union(APPROVAL_TYPES.map((t) => Type.Literal(t)));
export const ApprovalStatus = Type.Union(APPROVAL_STATUSES.map((t) => Type.Literal(t)));
export const GrantKind = Type.Union([Type.Literal('once'), Type.Literal('persistent')]);
const DomainText = Type.String({ minLength: 1, maxLength: 300 });
const UrlText = Type.String({ minLength: 1, maxLength: 4096 });

export const RegistrationCheckQuery = Type.Object(
  { domain: DomainText, linux_username: LinuxUsername },
  strict,
);
export const RegistrationCheckView = Type.Object({
  allowed: Type.Boolean(),
  pending: Type.Boolean(),
  domain: Type.String(),
});
export type RegistrationCheckView = Static<typeof RegistrationCheckView>;

export const RegistrationRequestBody = Type.Object(
  { domain: DomainText, linux_username: LinuxUsername, url: Type.Optional(UrlText) },
  strict,
);
export type RegistrationRequestBody = Static<typeof RegistrationRequestBody>;
export const RegistrationRequestView = Type.Object({ id: Type.Optional(Id), status: Type.String() });

export const LogLoginBody = Type.Object(
  {
    domain: DomainText,
    username: Type.String({ minLength: 1, maxLength: 320 }),
    linux_username: LinuxUsername,
  },
  strict,
);
export type LogLoginBody = Static<typeof LogLoginBody>;
export const OnlineAccountView = Type.Object({
  id: Id,
  domain: Type.String(),
  username: Type.String(),
  managed_user_id: Nullable(Type.String()),
  managed_user_name: Nullable(Type.String()),
  system_id: Nullable(Type.String()),
  linux_username: Nullable(Type.String()),
  first_detected_at: Type.String(),
  last_active_at: Type.String(),
});
export type OnlineAccountView = Static<typeof OnlineAccountView>;
export const OnlineAccountQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 200 })),
    sort: Type.Optional(
      Type.Union([
        Type.Literal('domain'),
        Type.Literal('username'),
        Type.Literal('first_detected_at'),
        Type.Literal('last_active_at'),
      ]),
    ),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    managed_user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  strict,
);
export type OnlineAccountQuery = Static<typeof OnlineAccountQuery>;

export const ApprovalView = Type.Object({
  id: Id,
  type: ApprovalType,
  status: ApprovalStatus,
  managed_user_id: Nullable(Type.String()),
  managed_user_name: Nullable(Type.String()),
  mapping_id: Nullable(Type.String()),
  system_id: Type.String(),
  linux_username: Type.String(),
  domain: Nullable(Type.String()),
  url: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
  requested_at: Type.String(),
  decided_at: Nullable(Type.String()),
  decided_by: Nullable(Type.String()),
  grant: Nullable(GrantKind),
});
export type ApprovalView = Static<typeof ApprovalView>;
export const ApprovalQuery = Type.Object(
  {
    status: Type.Optional(ApprovalStatus),
    type: Type.Optional(ApprovalType),
    managed_user_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  strict,
);
export const ApproveBody = Type.Object(
  { grant: Type.Optional(GrantKind), minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 60 })) },
  strict,
);
export type ApproveBody = Static<typeof ApproveBody>;

export const AgentApprovalRequestBody = Type.Object(
  {
    type: Type.Union([
      Type.Literal('time_extension'),
      Type.Literal('app_access'),
      Type.Literal('domain_unblock'),
    ]),
    linux_username: LinuxUsername,
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  strict,
);
export type AgentApprovalRequestBody = Static<typeof AgentApprovalRequestBody>;

export const ApprovalSettingsView = Type.Object({
  mapping_id: Id,
  enforce_signup_approvals: Type.Boolean(),
  signup_supported: Type.Boolean(),
});
export const ApprovalSettingsBody = Type.Object({ enforce_signup_approvals: Type.Boolean() }, strict);

export const GrantView = Type.Object({
  id: Id,
  domain: Nullable(Type.String()),
  kind: GrantKind,
  source_request_id: Nullable(Type.String()),
  created_at: Type.String(),
  expires_at: Nullable(Type.String()),
  consumed_at: Nullable(Type.String()),
});
export type GrantView = Static<typeof GrantView>;
export const CreateGrantBody = Type.Object({ domain: DomainText, kind: GrantKind }, strict);

// Installed applications and application policy (DESIGN §6)
export const InstalledAppItem = Type.Object({
  linux_username: Type.String(),
  application_name: Type.String(),
  identifier: Type.String(),
  match_type: Type.String(),
  version_name: Type.String(),
  icon_hash: Nullable(Type.String()),
  icon_url: Nullable(Type.String()),
  first_seen_at: Type.String(),
  last_seen_at: Type.String(),
});
export const DeviceInventoryView = Type.Object({
  system_id: Type.String(),
  reported_at: Nullable(Type.String()),
  report_hash: Nullable(Type.String()),
  count: Type.Integer(),
  items: Type.Array(InstalledAppItem),
});
export const ChildAppItem = Type.Object({
  identifier: Type.String(),
  match_type: Type.String(),
  application_name: Type.String(),
  icon_hash: Nullable(Type.String()),
  icon_url: Nullable(Type.String()),
  first_seen_at: Type.String(),
  last_seen_at: Type.String(),
  devices: Type.Array(
    Type.Object({
      system_id: Type.String(),
      hostname: Type.String(),
      linux_username: Type.String(),
      version_name: Type.String(),
    }),
  ),
});
export const ChildInventoryView = Type.Object({
  managed_user_id: Type.String(),
  items: Type.Array(ChildAppItem),
});
export const RefreshView = Type.Object({ queued: Type.Boolean(), delivered: Type.Boolean() });

export const AppRule = Type.Object(
  {
    identifier: Type.String({ minLength: 1, maxLength: 1024 }),
    match_type: Type.Union([Type.Literal('executable'), Type.Literal('package')]),
    action: Type.Union([Type.Literal('allow'), Type.Literal('block'), Type.Literal('limit')]),
    daily_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })),
    application_name: Type.Optional(Type.String({ maxLength: 256 })),
  },
  strict,
);
export type AppRule = Static<typeof AppRule>;
export const AppPolicyBody = Type.Object(
  { rules: Type.Array(AppRule, { maxItems: 2000 }), version: Type.Optional(Type.Integer({ minimum: 0 })) },
  strict,
);
export type AppPolicyBody = Static<typeof AppPolicyBody>;
export const AppPolicyView = Type.Object({
  managed_user_id: Type.String(),
  version: Type.Integer(),
  rules: Type.Array(AppRule),
  updated_at: Nullable(Type.String()),
  sync: Type.Array(
    Type.Object({
      system_id: Type.String(),
      hostname: Type.String(),
      linux_username: Type.String(),
      version: Nullable(Type.Integer()),
      status: Type.String(),
      updated_at: Nullable(Type.String()),
    }),
  ),
});
export type AppPolicyView = Static<typeof AppPolicyView>;
