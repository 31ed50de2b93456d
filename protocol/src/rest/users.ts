import { type Static, Type } from '@sinclair/typebox';
import { AgeTierSchema, Id, LinuxUsername, Name, Nullable, ParentNote, strict } from './common.js';

export const MappingSummary = Type.Object({
  id: Id,
  system_id: Type.String(),
  hostname: Nullable(Type.String()),
  /** The name a parent gave the device (its hostname until renamed). */
  display_name: Nullable(Type.String()),
  /** The device's status: an unenrolled or rejected device no longer counts as the child's. */
  device_status: Nullable(Type.String()),
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

export const RenameUserBody = Type.Object({ name: Name }, strict);
export type RenameUserBody = Static<typeof RenameUserBody>;

/** The answer of a DELETE that removed one object. */
export const DeletedView = Type.Object({ id: Id, deleted: Type.Boolean() });
export type DeletedView = Static<typeof DeletedView>;

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
  managed_user_id: Id,
  /** Today in the household's time zone, YYYY-MM-DD. */
  date: Type.String(),
  timezone: Type.String(),
  state: Type.Union([
    Type.Literal('ok'),
    Type.Literal('sleep'),
    Type.Literal('locked'),
    Type.Literal('paused'),
  ]),
  used_seconds: Type.Integer(),
  /** Null when the day has no limit. */
  limit_seconds: Nullable(Type.Integer()),
  adjustment_seconds: Type.Integer(),
  /** Null when the day has no limit. */
  remaining_seconds: Nullable(Type.Integer()),
  allowed_now: Type.Boolean(),
  next_change_at: Nullable(Type.String()),
  /** The pause on all devices: an ISO instant, "indefinite", or null. */
  paused_until: Nullable(Type.String()),
  devices: Type.Array(
    Type.Object({
      system_id: Type.String(),
      hostname: Nullable(Type.String()),
      platform: Nullable(Type.String()),
      linux_username: Type.String(),
      used_seconds: Type.Integer(),
      online: Type.Boolean(),
    }),
  ),
});
export type UsageView = Static<typeof UsageView>;

/** The ranges `GET /api/user/<id>/stats` answers for, in days. */
export const STATS_RANGES = [7, 14, 30] as const;
export type StatsRange = (typeof STATS_RANGES)[number];
/** Applications `GET /api/user/<id>/stats` lists, most used first. */
export const STATS_TOP_APPS = 20;

/**
 * DESIGN §10. `days` runs oldest to newest and ends today in the household's zone, every day present
 * (0 without use); `limit_seconds` is the weekly schedule's limit for that weekday (null: no limit).
 * `apps` are the most used over the range (at most 20, most used first), named from the inventory of
 * the child's devices (null when no device lists it); `devices` are the child's mapped devices, most
 * used first.
 */
export const StatsView = Type.Object({
  managed_user_id: Id,
  days: Type.Array(
    Type.Object({
      date: Type.String({ description: 'YYYY-MM-DD in the household time zone' }),
      used_seconds: Type.Integer(),
      limit_seconds: Nullable(Type.Integer()),
    }),
  ),
  apps: Type.Array(
    Type.Object({
      identifier: Type.String(),
      match_type: Type.String(),
      application_name: Nullable(Type.String()),
      icon_url: Nullable(Type.String()),
      seconds: Type.Integer(),
    }),
  ),
  devices: Type.Array(
    Type.Object({
      system_id: Type.String(),
      /** The device's display name (its hostname until a parent renamed it). */
      hostname: Nullable(Type.String()),
      platform: Nullable(Type.String()),
      seconds: Type.Integer(),
    }),
  ),
});
export type StatsView = Static<typeof StatsView>;
