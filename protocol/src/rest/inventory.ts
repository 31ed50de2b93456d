import { type Static, Type } from '@sinclair/typebox';
import { Nullable, strict } from './common.js';

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
