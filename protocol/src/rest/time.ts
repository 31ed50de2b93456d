import { type Static, Type } from '@sinclair/typebox';
import { Id, Name, Nullable, strict } from './common.js';

// DESIGN §10: the household's zone, the weekly schedule, adjustments, the pause, delivery state and
// today's usage. The rules themselves (what is valid, what a day allows) are in ../time/.

/** An IANA zone name such as "Europe/Berlin"; the server checks that it knows it. */
export const TimeZoneName = Type.String({ minLength: 1, maxLength: 64 });

export const UpdateHouseholdBody = Type.Object(
  { name: Type.Optional(Name), timezone: Type.Optional(TimeZoneName) },
  strict,
);
export type UpdateHouseholdBody = Static<typeof UpdateHouseholdBody>;

export const HouseholdView = Type.Object({ id: Id, name: Type.String(), timezone: Type.String() });
export type HouseholdView = Static<typeof HouseholdView>;

const Clock = Type.String({
  maxLength: 5,
  description: '"HH:MM" in 15-minute steps ("24:00" allowed as an end)',
});
export const TimeWindowSchema = Type.Object({ start: Clock, end: Clock }, strict);
export const DayScheduleSchema = Type.Object(
  {
    limit_minutes: Nullable(
      Type.Integer({ minimum: 0, maximum: 1440, description: '0–1440, or null for no daily limit' }),
    ),
    windows: Type.Array(TimeWindowSchema, { maxItems: 4 }),
  },
  strict,
);

const day = () => Type.Optional(DayScheduleSchema);
/** Some days of the week; a day left out is unchanged. */
export const PartialWeekSchema = Type.Object(
  {
    monday: day(),
    tuesday: day(),
    wednesday: day(),
    thursday: day(),
    friday: day(),
    saturday: day(),
    sunday: day(),
  },
  strict,
);
const FullWeekSchema = Type.Object({
  monday: DayScheduleSchema,
  tuesday: DayScheduleSchema,
  wednesday: DayScheduleSchema,
  thursday: DayScheduleSchema,
  friday: DayScheduleSchema,
  saturday: DayScheduleSchema,
  sunday: DayScheduleSchema,
});

export const ScheduleView = Type.Object({
  managed_user_id: Id,
  version: Type.Integer(),
  timezone: Type.String(),
  days: FullWeekSchema,
});
export type ScheduleView = Static<typeof ScheduleView>;

/** JSON, or a form whose `days` field is the same object as a JSON string. */
export const UpdateScheduleBody = Type.Object({ managed_user_id: Id, days: PartialWeekSchema }, strict);
export type UpdateScheduleBody = Static<typeof UpdateScheduleBody>;

export const ModifyTimeBody = Type.Object(
  {
    managed_user_id: Id,
    minutes: Type.Integer({ minimum: -720, maximum: 720 }),
    date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  strict,
);
export type ModifyTimeBody = Static<typeof ModifyTimeBody>;

export const ModifyTimeView = Type.Object({
  managed_user_id: Id,
  date: Type.String(),
  /** All adjustments of that date together. */
  adjustment_minutes: Type.Integer(),
  /** Today's remaining seconds after the change (null when today has no limit). */
  remaining_seconds: Nullable(Type.Integer()),
});
export type ModifyTimeView = Static<typeof ModifyTimeView>;

export const PauseBody = Type.Object(
  { minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })) },
  strict,
);
export type PauseBody = Static<typeof PauseBody>;

export const TIME_SYNC_STATUSES = ['synced', 'pending', 'failed', 'unsupported'] as const;
export type TimeSyncStatus = (typeof TIME_SYNC_STATUSES)[number];

export const ScheduleSyncView = Type.Object({
  managed_user_id: Id,
  version: Type.Integer(),
  items: Type.Array(
    Type.Object({
      mapping_id: Id,
      system_id: Type.String(),
      /** The device's display name. */
      hostname: Nullable(Type.String()),
      platform: Nullable(Type.String()),
      linux_username: Type.String(),
      status: Type.Union(TIME_SYNC_STATUSES.map((s) => Type.Literal(s))),
      applied_version: Nullable(Type.Integer()),
      last_attempt_at: Nullable(Type.String()),
      error: Nullable(Type.String()),
      /** Consoles: when the worker last synced it, whether that is over 30 minutes ago, and what it could not hold. */
      last_sync_at: Type.Optional(Nullable(Type.String())),
      stale: Type.Optional(Type.Boolean()),
      notes: Type.Optional(Type.Array(Type.String())),
    }),
  ),
});
export type ScheduleSyncView = Static<typeof ScheduleSyncView>;
