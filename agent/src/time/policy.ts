// Each account's time policy (`set_time_policy`, DESIGN §10), kept in the state directory so that the
// rules are enforced offline and after a restart. Versions count per child: a push is applied when its
// version is higher than the one held for the same child, or when it is for another child (or none).
import {
  isValidTimeZone,
  openWeek,
  type SetTimePolicyArgs,
  scheduleProblems,
  WEEKDAYS,
  type WeeklyDays,
} from '@hearth/protocol';
import type { LedgerStore } from './ledger.js';

export interface KeptTimePolicy extends SetTimePolicyArgs {
  /** Seconds between the overlay and locking the session; absent: the agent's default. */
  lock_grace_seconds?: number;
}

export const USERNAME = /^[a-z_][a-z0-9_.-]{0,63}\$?$/i;
const fileOf = (username: string) => `time-policy.${username}.json`;

/** The args of a `set_time_policy`, checked; throws (answered success:false) when malformed. */
export function readPolicyArgs(args: Record<string, unknown>): KeptTimePolicy {
  const { managed_user_id, linux_username, version, timezone, days, adjustments, paused_until } = args;
  if (typeof linux_username !== 'string' || !USERNAME.test(linux_username))
    throw new Error('linux_username missing or malformed');
  if (managed_user_id !== null && typeof managed_user_id !== 'string')
    throw new Error('managed_user_id must be a string or null');
  if (!Number.isInteger(version) || (version as number) < 0)
    throw new Error('version must be an integer ≥ 0');
  if (typeof timezone !== 'string' || !isValidTimeZone(timezone))
    throw new Error('timezone is not an IANA zone');
  if (!days || typeof days !== 'object' || WEEKDAYS.some((d) => !(d in days)))
    throw new Error('days must name every day of the week');
  const problems = scheduleProblems(days as Record<string, unknown>);
  if (problems.length) throw new Error(`days: ${problems[0]?.path} ${problems[0]?.message}`);
  if (
    !adjustments ||
    typeof adjustments !== 'object' ||
    Object.entries(adjustments).some(([d, m]) => !/^\d{4}-\d{2}-\d{2}$/.test(d) || !Number.isInteger(m))
  )
    throw new Error('adjustments must map YYYY-MM-DD to whole minutes');
  if (paused_until !== null && typeof paused_until !== 'string')
    throw new Error('paused_until must be a string or null');
  const grace = args.lock_grace_seconds;
  return {
    managed_user_id,
    linux_username,
    version: version as number,
    timezone,
    days: days as WeeklyDays,
    adjustments: adjustments as Record<string, number>,
    paused_until,
    ...(typeof grace === 'number' && Number.isFinite(grace) && grace >= 0
      ? { lock_grace_seconds: grace }
      : {}),
  };
}

const isKept = (d: unknown): d is KeptTimePolicy => {
  if (!d || typeof d !== 'object') return false;
  try {
    readPolicyArgs(d as Record<string, unknown>);
    return true;
  } catch {
    return false;
  }
};

export class TimePolicyStore {
  private readonly kept = new Map<string, KeptTimePolicy | null>();

  constructor(private readonly store: LedgerStore) {}

  get(username: string): KeptTimePolicy | null {
    if (!USERNAME.test(username)) return null;
    if (!this.kept.has(username)) this.kept.set(username, this.store.read(fileOf(username), isKept));
    return this.kept.get(username) ?? null;
  }

  /** Applies a push unless it is older than what is held for the same child; answers the version held after. */
  apply(policy: KeptTimePolicy): { applied: boolean; version: number } {
    const held = this.get(policy.linux_username);
    if (held && held.managed_user_id === policy.managed_user_id && policy.version <= held.version)
      return { applied: false, version: held.version };
    this.store.write(fileOf(policy.linux_username), policy);
    this.kept.set(policy.linux_username, policy);
    return { applied: true, version: policy.version };
  }
}

/** The policy of an account that belongs to no child: nothing to enforce. */
export function releasedPolicy(username: string): KeptTimePolicy {
  return {
    managed_user_id: null,
    linux_username: username,
    version: 0,
    timezone: 'UTC',
    days: openWeek(),
    adjustments: {},
    paused_until: null,
  };
}
