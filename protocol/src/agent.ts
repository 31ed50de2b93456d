import { type Static, Type } from '@sinclair/typebox';
import { type AGE_TIERS, OVERLAY_CONTEXTS, OVERLAY_REASONS, PLATFORMS } from './constants.js';
import { RuleResult } from './rest/device-policy.js';
import type { WeeklyDays } from './time/types.js';

/** Agent channel (WebSocket /ws; docs/protocol.md). Every frame is one JSON object with a `type`. */
export const WS_PATH = '/ws';
export const WS_MAX_FRAME_BYTES = 1024 * 1024;
export const WS_HELLO_TIMEOUT_MS = 10_000;
export const WS_PING_INTERVAL_MS = 30_000;
export const WS_SILENCE_LIMIT_MS = 90_000;
export const COMMAND_TIMEOUT_MS = 15_000;
export const OVERLAY_COMMAND_TTL_MS = 10 * 60_000;
export const MAX_QUEUED_COMMANDS = 100;

export const CLOSE_CODES = {
  badMessage: 4400,
  authFailed: 4401,
  deviceRejected: 4403,
  helloTimeout: 4408,
  /** Over a budget: frames too fast, enrolment hellos too often, or too many devices waiting. Retry later. */
  tooMany: 4429,
} as const;

/**
 * Per-socket frame budget (docs/protocol.md, "Budgets"): a token bucket of FRAME_BURST frames refilled
 * at FRAME_RATE_PER_SECOND, and one of bytes. A socket that runs either dry is closed with `tooMany`.
 */
export const FRAME_BURST = 2000;
export const FRAME_RATE_PER_SECOND = 200;
/** The same for bytes: a burst of 32 MiB, refilled at 2 MiB a second. */
export const FRAME_BYTES_BURST = 32 * 1024 * 1024;
export const FRAME_BYTES_PER_SECOND = 2 * 1024 * 1024;
/** Frames the channel refuses (unknown type, failed schema, …) a socket may send in a minute before it is closed 4400. */
export const MAX_REFUSED_FRAMES_PER_MINUTE = 30;
/** Enrolment hellos (with `enrollment_token`) a minute, per household and per client address. */
export const ENROLMENT_HELLOS_PER_MINUTE = { household: 60, address: 120 } as const;
/** Devices a household may have waiting for a parent's decision. */
export const MAX_PENDING_DEVICES = 50;

export const COMMANDS = [
  'show_overlay',
  'dismiss_overlay',
  'clear_clock_tamper',
  'refresh_installed_apps',
  'unenroll',
  'set_time_policy',
  'domain_policy_changed',
  'set_device_policy',
  'capture_screenshot',
] as const;
export type CommandName = (typeof COMMANDS)[number] | `sync_${string}`;

const Uuid = Type.String({ format: 'uuid' });

export const LinuxUser = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    display_name: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);
export type LinuxUser = Static<typeof LinuxUser>;

export const HelloMessage = Type.Object(
  {
    type: Type.Literal('hello'),
    system_id: Uuid,
    hostname: Type.String({ minLength: 1, maxLength: 255 }),
    platform: Type.Union(PLATFORMS.map((p) => Type.Literal(p))),
    agent_version: Type.String({ minLength: 1, maxLength: 32 }),
    linux_users: Type.Array(LinuxUser, { maxItems: 200 }),
    secure_token: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    enrollment_token: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: true },
);
export type HelloMessage = Static<typeof HelloMessage>;

export const CommandResponseMessage = Type.Object({
  type: Type.Literal('command_response'),
  request_id: Type.String({ minLength: 1, maxLength: 64 }),
  success: Type.Boolean(),
  data: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.Unknown()),
});
export type CommandResponseMessage = Static<typeof CommandResponseMessage>;

/** Applications one `usage_report` may carry (DESIGN §10). */
export const MAX_USAGE_APPS_PER_REPORT = 500;
/** The largest day total, for the day and for each application: a day has 86,400 seconds. */
export const MAX_USAGE_SECONDS = 86_400;

/** One application's running total of the day; identifier and match type follow the inventory's rules. */
export const UsageApp = Type.Object(
  {
    identifier: Type.String({ minLength: 1, maxLength: 1024 }),
    match_type: Type.Union([Type.Literal('executable'), Type.Literal('package')]),
    seconds: Type.Integer({ minimum: 0, maximum: MAX_USAGE_SECONDS }),
  },
  { additionalProperties: false },
);
export type UsageApp = Static<typeof UsageApp>;

export const UsageReportMessage = Type.Object({
  type: Type.Literal('usage_report'),
  linux_username: Type.String({ minLength: 1, maxLength: 64 }),
  date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  seconds_used: Type.Integer({ minimum: 0, maximum: MAX_USAGE_SECONDS }),
  apps: Type.Optional(Type.Array(UsageApp, { maxItems: MAX_USAGE_APPS_PER_REPORT })),
});
export type UsageReportMessage = Static<typeof UsageReportMessage>;

export interface CommandRequest {
  type: 'command_request';
  request_id: string;
  command: string;
  args: Record<string, unknown>;
}

export interface ShowOverlayArgs {
  reason: (typeof OVERLAY_REASONS)[number];
  linux_username: string;
  age_tier: (typeof AGE_TIERS)[number];
  parent_note: string | null;
  device_name: string;
  /** With `locked`: `paused` when a parent paused the child (DESIGN §7); absent when the allowance is used up. */
  context?: (typeof OVERLAY_CONTEXTS)[number];
}

export const AlertEventMessage = Type.Object({
  type: Type.Literal('alert_event'),
  event_type: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }),
  linux_username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  detail: Type.Record(Type.String(), Type.Unknown()),
});
export type AlertEventMessage = Static<typeof AlertEventMessage>;

/** Alerts one device may raise in a minute; the rest of that minute's are dropped (one `alerts_dropped` says so). */
export const MAX_ALERTS_PER_MINUTE = 60;
/** Largest `alert_event` `detail`, as UTF-8 JSON. */
export const MAX_ALERT_DETAIL_BYTES = 8 * 1024;
/** Alert kinds the server raises itself; an `alert_event` may not use them. */
export const RESERVED_ALERT_KINDS = ['access_requested', 'alerts_dropped'] as const;

export const MAX_APPS_PER_CHUNK = 1000;
export const MAX_CHUNKS_PER_REPORT = 100;
export const MAX_ICON_BYTES = 32 * 1024;
export const REPORT_ABANDON_MS = 10 * 60_000;
/** Bytes of unfinished installed-apps reports the server holds for one device (apps' text, 64 bytes an app more). */
export const MAX_PENDING_REPORT_BYTES = 8 * 1024 * 1024;

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

export const InstalledApp = Type.Object(
  {
    application_name: Type.String({ minLength: 1, maxLength: 256 }),
    identifier: Type.String({ minLength: 1, maxLength: 1024 }),
    match_type: Type.Union([Type.Literal('executable'), Type.Literal('package')]),
    version_name: Type.String({ maxLength: 128 }),
    icon_hash: Type.Optional(Type.Union([Sha256, Type.Null(), Type.Literal('')])),
  },
  { additionalProperties: false },
);
export type InstalledApp = Static<typeof InstalledApp>;

export const InstalledAppsReportMessage = Type.Object({
  type: Type.Literal('installed_apps_report'),
  report_id: Type.String({ format: 'uuid' }),
  linux_username: Type.String({ minLength: 1, maxLength: 64 }),
  chunk_index: Type.Integer({ minimum: 0 }),
  chunk_total: Type.Integer({ minimum: 1, maximum: MAX_CHUNKS_PER_REPORT }),
  is_final: Type.Boolean(),
  reported_at: Type.String({ format: 'date-time' }),
  apps: Type.Array(InstalledApp, { maxItems: MAX_APPS_PER_CHUNK }),
});
export type InstalledAppsReportMessage = Static<typeof InstalledAppsReportMessage>;

export const AppIconReportMessage = Type.Object({
  type: Type.Literal('app_icon_report'),
  content_hash: Sha256,
  mime_type: Type.Literal('image/png'),
  data_base64: Type.String({ minLength: 1, maxLength: Math.ceil(MAX_ICON_BYTES / 3) * 4 + 4 }),
});
export type AppIconReportMessage = Static<typeof AppIconReportMessage>;

/**
 * `set_time_policy` (server → agent, a command; DESIGN §10): the child's whole time policy for one
 * account. The agent applies it only when `version` is higher than the one it holds, and answers
 * `command_response` with data `{applied_version}`.
 */
export interface SetTimePolicyArgs {
  /**
   * The child the account belongs to; null when it no longer belongs to one (its link or child was
   * removed), which comes with the open week at version 0. Versions count per child, so an agent
   * compares a push's `version` only with what it applied for the same child.
   */
  managed_user_id: string | null;
  linux_username: string;
  version: number;
  /** IANA zone the days, limits and windows are read in. */
  timezone: string;
  days: WeeklyDays;
  /** Minutes added (negative: taken) per household-local date, today and later. */
  adjustments: Record<string, number>;
  /** ISO instant the pause ends, "indefinite", or null when not paused. */
  paused_until: string | null;
}

/** The data of the agent's answer to `set_time_policy`. */
export interface SetTimePolicyAnswer {
  applied_version: number;
}

/**
 * `time_status` (server → agent, a push that needs no answer): the child's use today on all their
 * devices together, sent to the child's other online devices when one of them reports usage.
 */
export interface TimeStatusMessage {
  type: 'time_status';
  linux_username: string;
  /** Household-local date, YYYY-MM-DD. */
  date: string;
  used_seconds: number;
  /** Null when the day has no limit. */
  remaining_seconds: number | null;
}

/**
 * `domain_policy_changed` (server → agent, a command; DESIGN §11): the child's domain policy for one
 * account has a new version. The agent fetches it with `GET /api/agent/domain-policy` and, once it
 * enforces it, sends `policy_applied`. A newer push replaces a queued one for the same account.
 */
export interface DomainPolicyChangedArgs {
  /**
   * The child the account belongs to (null: none, the empty policy). Versions, and so ETags, count per
   * child: an agent whose kept policy was another child's fetches without If-None-Match.
   */
  managed_user_id: string | null;
  linux_username: string;
  version: number;
}

/** Policy kinds an agent acknowledges with `policy_applied`: the domain policy and the device policies (DESIGN §12). */
export const APPLIED_POLICY_KINDS = ['domain', 'linux', 'android'] as const;

/**
 * `policy_applied` (agent): the account now enforces `version` of the named policy. A device policy's
 * answer names each rule's outcome (`rules`); the Android device-wide policy names no account.
 */
export const PolicyAppliedMessage = Type.Object({
  type: Type.Literal('policy_applied'),
  kind: Type.Union(APPLIED_POLICY_KINDS.map((k) => Type.Literal(k))),
  linux_username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  version: Type.Integer({ minimum: 0 }),
  rules: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), RuleResult, { maxProperties: 64 })),
});
export type PolicyAppliedMessage = Static<typeof PolicyAppliedMessage>;

/** Accounts one `overlay_status` may name (as many as a hello may list). */
export const MAX_OVERLAY_ENTRIES = 200;

/** One account on which Hearth Space is showing, why, and since when (the agent's clock). */
export const OverlayEntry = Type.Object(
  {
    linux_username: Type.String({ minLength: 1, maxLength: 64 }),
    reason: Type.Union(OVERLAY_REASONS.map((r) => Type.Literal(r))),
    since: Type.String({ format: 'date-time' }),
    /** With `locked`: `paused` when a parent paused the child (DESIGN §7). */
    context: Type.Optional(Type.Union(OVERLAY_CONTEXTS.map((c) => Type.Literal(c)))),
  },
  { additionalProperties: false },
);
export type OverlayEntry = Static<typeof OverlayEntry>;

/**
 * `overlay_status` (agent): every account on which Hearth Space is showing now, the whole set each
 * time (empty: none). Sent when the windows change and after each authentication.
 */
export const OverlayStatusMessage = Type.Object({
  type: Type.Literal('overlay_status'),
  overlays: Type.Array(OverlayEntry, { maxItems: MAX_OVERLAY_ENTRIES }),
});
export type OverlayStatusMessage = Static<typeof OverlayStatusMessage>;
