// The time shapes of DESIGN §10 as the admin UI reads them (schedule, today's figures, statistics, sync
// state per device), and their query hooks. The rules' own types come from @hearth/protocol.
import type { StatsRange, StatsView, TimeState, Weekday, WeeklyDays } from '@hearth/protocol';
import { keys } from './keys';
import { FALLBACK_REFRESH_MS, type Resource, useResource } from './query';

const enc = encodeURIComponent;

/** `GET /api/managed-users/<id>/schedule` and the answer of `POST /weekly-schedule/update`. */
export interface ScheduleView {
  managed_user_id: string;
  version: number;
  timezone: string;
  days: WeeklyDays;
}

/** `GET /api/user/<id>/usage`, and the answer of pause and resume. */
export interface TimeUsageView {
  managed_user_id: string;
  date: string;
  timezone: string;
  state: TimeState;
  used_seconds: number;
  limit_seconds: number | null;
  adjustment_seconds: number;
  remaining_seconds: number | null;
  allowed_now: boolean;
  next_change_at: string | null;
  /** Present when the server says until when the child is paused (ISO, "indefinite" or null). */
  paused_until?: string | null;
  devices: {
    system_id: string;
    hostname: string;
    platform: string;
    linux_username: string;
    used_seconds: number;
    online: boolean;
  }[];
}

/** `POST /api/modify-time`. */
export interface ModifyTimeAnswer {
  managed_user_id: string;
  date: string;
  adjustment_minutes: number;
  remaining_seconds: number | null;
}

export type SyncStatus = 'synced' | 'pending' | 'failed' | 'unsupported';

/** `GET /api/schedule-sync-status/<user_id>`. */
export interface SyncStatusView {
  managed_user_id: string;
  version: number;
  items: {
    mapping_id: string;
    system_id: string;
    hostname: string;
    platform: string;
    linux_username: string;
    status: SyncStatus;
    applied_version: number | null;
    last_attempt_at: string | null;
    error: string | null;
  }[];
}

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
