import { type Static, Type } from '@sinclair/typebox';
import { AlertView } from './alerts.js';
import { Id, Nullable } from './common.js';
import { DeviceView } from './devices.js';

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
