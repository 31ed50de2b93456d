import { type Static, Type } from '@sinclair/typebox';
import { OVERLAY_REASONS } from '../constants.js';
import { Id, Nullable, strict } from './common.js';

export const AccessRequestBody = Type.Object(
  {
    linux_username: Type.String({ minLength: 1, maxLength: 64 }),
    reason: Type.Union(OVERLAY_REASONS.map((r) => Type.Literal(r))),
    // Checked again after trimming (1–500); the raw text may carry surrounding space.
    message: Type.String({ maxLength: 2000 }),
    system_id: Type.Optional(Type.String({ maxLength: 64 })),
    /** The site a filtered or sign-up page was about (the extension's Hearth Space), kept in the payload. */
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
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
  /** The name a parent gave the device (its hostname until renamed); what people are shown. */
  display_name: Nullable(Type.String()),
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

/** Every alert kind a parent may filter by: Hearth's own (`ALERT_KINDS`) first, then any other kind stored. */
export const AlertKindsView = Type.Object({ kinds: Type.Array(Type.String()) });
export type AlertKindsView = Static<typeof AlertKindsView>;
