import { type Static, Type } from '@sinclair/typebox';
import { OVERLAY_CONTEXTS, OVERLAY_REASONS } from '../constants.js';
import { LinuxUsername, Nullable, strict } from './common.js';

export const DeviceOverlay = Type.Object({
  linux_username: Type.String(),
  reason: Type.Union(OVERLAY_REASONS.map((r) => Type.Literal(r))),
  since: Type.String(),
  context: Type.Optional(Type.Union(OVERLAY_CONTEXTS.map((c) => Type.Literal(c)))),
});
export type DeviceOverlay = Static<typeof DeviceOverlay>;

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
  /** When the last installed-apps report was applied (DESIGN §5). */
  last_inventory_at: Nullable(Type.String()),
  /** When a usage total of the device last grew. */
  last_usage_at: Nullable(Type.String()),
  /** The accounts on which Hearth Space is showing, as the agent last said (`overlay_status`). */
  overlays: Type.Array(DeviceOverlay),
  /** When the agent last sent `overlay_status`; null before it ever did. */
  overlays_reported_at: Nullable(Type.String()),
});
export type DeviceView = Static<typeof DeviceView>;

export const SystemIdParams = Type.Object({ system_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ApproveDeviceBody = Type.Object(
  { display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })) },
  strict,
);
export type ApproveDeviceBody = Static<typeof ApproveDeviceBody>;

export const RenameDeviceBody = Type.Object(
  { display_name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }) },
  strict,
);
export type RenameDeviceBody = Static<typeof RenameDeviceBody>;

/** The answer of `DELETE /api/devices/<system_id>`. */
export const DeviceDeleted = Type.Object({ system_id: Type.String(), deleted: Type.Boolean() });

export const DeviceDecision = Type.Object({ system_id: Type.String(), status: Type.String() });

export const OverlayControlBody = Type.Object(
  {
    action: Type.Union([Type.Literal('show'), Type.Literal('dismiss')]),
    reason: Type.Optional(Type.Union(OVERLAY_REASONS.map((r) => Type.Literal(r)))),
    linux_username: LinuxUsername,
    /** With `locked`: `paused` says a parent paused the child rather than the allowance running out. */
    context: Type.Optional(Type.Union(OVERLAY_CONTEXTS.map((c) => Type.Literal(c)))),
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
