// The time shapes of DESIGN §10 (from @hearth/protocol) under the names the admin UI uses, and their
// query hooks: schedule, today's figures, statistics, sync state per device.
import type {
  ModifyTimeView,
  ScheduleSyncView,
  ScheduleView,
  StatsRange,
  StatsView,
  TimeState,
  TimeSyncStatus,
  UsageView,
  Weekday,
  WeeklyDays,
} from '@hearth/protocol';
import { keys } from './keys';
import { FALLBACK_REFRESH_MS, type Resource, useResource } from './query';

const enc = encodeURIComponent;

/** `GET /api/managed-users/<id>/schedule` and the answer of `POST /weekly-schedule/update`. */
export type { ScheduleView };
/** `GET /api/user/<id>/usage`, and the answer of pause and resume. */
export type TimeUsageView = UsageView;
/** `POST /api/modify-time`. */
export type ModifyTimeAnswer = ModifyTimeView;
export type SyncStatus = TimeSyncStatus;
/** `GET /api/schedule-sync-status/<user_id>`. */
export type SyncStatusView = ScheduleSyncView;

/** `GET /api/user/<id>/stats?days=7|14|30` (days oldest first, ending today). */
export type TimeStatsView = StatsView;
export type { StatsRange, TimeState, Weekday, WeeklyDays };

export const useSchedule = (id: string): Resource<ScheduleView> =>
  useResource(keys.schedule(id), `/api/managed-users/${enc(id)}/schedule`);

export const useTimeUsage = (id: string): Resource<TimeUsageView> =>
  useResource(keys.usage(id), `/api/user/${enc(id)}/usage`);

/**
 * How often the sync state is asked again while a device has not answered yet: no live event announces
 * an agent's acknowledgement, so the badge follows it by asking.
 */
export const SYNC_PENDING_REFRESH_MS = 2_000;

export const useSyncStatus = (id: string): Resource<SyncStatusView> =>
  useResource(keys.scheduleSync(id), `/api/schedule-sync-status/${enc(id)}`, {
    refetchInterval: (data) =>
      data?.items.some((i) => i.status === 'pending') ? SYNC_PENDING_REFRESH_MS : FALLBACK_REFRESH_MS,
  });

export const useTimeStats = (id: string, days: StatsRange): Resource<TimeStatsView> =>
  useResource(keys.stats(id, days), `/api/user/${enc(id)}/stats?days=${days}`, { keepPrevious: true });
