import { type Static, Type } from '@sinclair/typebox';
import { DEVICE_STATUSES, PLATFORMS } from './constants.js';
import { AlertView } from './rest/alerts.js';
import { ApprovalView } from './rest/approvals.js';

// The live stream of `GET /api/dashboard/events`: every kind the server sends and the
// shape of its `data`. The server publishes through this map and the web reads through it, so a
// kind or field cannot drift between the two.

export const DeviceStatusEvent = Type.Object({
  system_id: Type.String(),
  /** Present when a decision or a handshake changed the device's status. */
  status: Type.Optional(Type.Union(DEVICE_STATUSES.map((s) => Type.Literal(s)))),
  /** Present when the agent connected (`true`) or its socket closed (`false`). */
  online: Type.Optional(Type.Boolean()),
});
export type DeviceStatusEvent = Static<typeof DeviceStatusEvent>;

export const DevicePendingEvent = Type.Object({
  system_id: Type.String(),
  hostname: Type.String(),
  platform: Type.Union(PLATFORMS.map((p) => Type.Literal(p))),
});
export type DevicePendingEvent = Static<typeof DevicePendingEvent>;

export const InstalledAppsUpdatedEvent = Type.Object({
  system_id: Type.String(),
  linux_username: Type.String(),
  count: Type.Integer({ minimum: 0 }),
  /** False when a rescan came back identical (nothing was written). */
  changed: Type.Boolean(),
});
export type InstalledAppsUpdatedEvent = Static<typeof InstalledAppsUpdatedEvent>;

export const ConsoleSyncedEvent = Type.Object({
  system_id: Type.String(),
  platform: Type.String(),
  ok: Type.Boolean(),
});
export type ConsoleSyncedEvent = Static<typeof ConsoleSyncedEvent>;

/**
 * A child's time state changed (a parent's change to the schedule, time or pause, or use that
 * crossed the day's limit): DESIGN §10's "live events when usage crosses a limit or the state changes".
 */
export const TimeStateEvent = Type.Object({
  managed_user_id: Type.String(),
  state: Type.Union([
    Type.Literal('ok'),
    Type.Literal('sleep'),
    Type.Literal('locked'),
    Type.Literal('paused'),
  ]),
  allowed_now: Type.Boolean(),
  used_seconds: Type.Integer(),
  remaining_seconds: Type.Union([Type.Integer(), Type.Null()]),
  /** `changed`: a parent changed something; `limit_reached`: use crossed the limit; `state`: the state moved. */
  cause: Type.Union([Type.Literal('changed'), Type.Literal('limit_reached'), Type.Literal('state')]),
});
export type TimeStateEvent = Static<typeof TimeStateEvent>;

/** A device applied (or failed to apply) a pushed device policy (DESIGN §12). */
export const DevicePolicyAppliedEvent = Type.Object({
  system_id: Type.String(),
  kind: Type.Union([Type.Literal('linux'), Type.Literal('android')]),
  /** Null for the Android device-wide policy. */
  linux_username: Type.Union([Type.String(), Type.Null()]),
  version: Type.Integer(),
  /** False when a rule failed (see the policy's `sync.rules`). */
  ok: Type.Boolean(),
});
export type DevicePolicyAppliedEvent = Static<typeof DevicePolicyAppliedEvent>;

/**
 * A screenshot arrived (DESIGN §12); `request_id` ties it to a parent's "capture now". It names the
 * child, so only parents who may see that child hear of it.
 */
export const ScreenshotAddedEvent = Type.Object({
  system_id: Type.String(),
  linux_username: Type.String(),
  managed_user_id: Type.String(),
  id: Type.String(),
  request_id: Type.Union([Type.String(), Type.Null()]),
});
export type ScreenshotAddedEvent = Static<typeof ScreenshotAddedEvent>;

/** Every live event kind with the schema of its data. */
export const LiveEventSchemas = {
  access_requested: AlertView,
  alert_created: AlertView,
  approval_created: ApprovalView,
  approval_decided: ApprovalView,
  device_pending: DevicePendingEvent,
  device_status: DeviceStatusEvent,
  installed_apps_updated: InstalledAppsUpdatedEvent,
  console_synced: ConsoleSyncedEvent,
  time_state: TimeStateEvent,
  device_policy_applied: DevicePolicyAppliedEvent,
  screenshot_added: ScreenshotAddedEvent,
} as const;

export type LiveEventKind = keyof typeof LiveEventSchemas;
export const LIVE_EVENT_KINDS = Object.keys(LiveEventSchemas) as LiveEventKind[];

/** `data` of each live event kind. */
export type LiveEventData = { [K in LiveEventKind]: Static<(typeof LiveEventSchemas)[K]> };
