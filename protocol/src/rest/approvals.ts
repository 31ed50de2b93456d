import { type Static, Type } from '@sinclair/typebox';
import { Id, LinuxUsername, Nullable, strict } from './common.js';

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

/** `GET /api/agent/account`: what the extension shows and sends for one account of the device. */
export const AgentAccountQuery = Type.Object({ linux_username: LinuxUsername }, strict);
export type AgentAccountQuery = Static<typeof AgentAccountQuery>;
export const AgentAccountView = Type.Object({
  linux_username: Type.String(),
  device_name: Type.String(),
  managed_user_id: Type.Union([Type.String(), Type.Null()]),
  child_name: Type.Union([Type.String(), Type.Null()]),
  age_tier: Type.Union([Type.Literal('under8'), Type.Literal('eight12'), Type.Literal('teen')]),
  parent_note: Type.Union([Type.String(), Type.Null()]),
  /** Sign-ups on this account wait for a parent (the toggle on, and a platform and version that cover it). */
  signup_enforced: Type.Boolean(),
});
export type AgentAccountView = Static<typeof AgentAccountView>;

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
  /** For an approved time extension, the minutes the parent granted (may be fewer than `details.minutes`). */
  approved_minutes: Nullable(Type.Integer()),
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
  /** Periodic screenshots of the mapped account (DESIGN §12): 0 = off, else every 5–1440 minutes. */
  screenshot_interval_minutes: Type.Integer(),
});
/** 0 (off) or 5–1440 minutes. */
export const ScreenshotInterval = Type.Union([Type.Literal(0), Type.Integer({ minimum: 5, maximum: 1440 })]);
/** A partial change: a field left out keeps its value. */
export const ApprovalSettingsBody = Type.Object(
  {
    enforce_signup_approvals: Type.Optional(Type.Boolean()),
    screenshot_interval_minutes: Type.Optional(ScreenshotInterval),
  },
  strict,
);
export type ApprovalSettingsBody = Static<typeof ApprovalSettingsBody>;

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
