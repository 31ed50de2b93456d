import type { Kysely } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { Database, TimeAdjustmentTable, TimePolicySyncTable } from '../../platform/db/schema.js';

export type TimeSyncStatus = TimePolicySyncTable['status'];

/** Schedules, adjustments, the pause, today's use and delivery state (DESIGN §10): SQL only. */
export class TimeRepository {
  private readonly db: Kysely<Database>;
  // The dashboard's reads of every child's schedule, pause and adjustments: prepared.
  private readonly householdChildren: Prepared<
    'household',
    { id: string; paused_until: string | null; days: string | null }
  >;
  private readonly householdAdjustments: Prepared<
    'household' | 'date',
    { managed_user_id: string; seconds: number }
  >;

  constructor(database: Db) {
    this.db = database.kysely;
    this.householdChildren = new Prepared(database, (k, p) =>
      k
        .selectFrom('managed_user as c')
        .leftJoin('time_schedule as s', 's.managed_user_id', 'c.id')
        .select(['c.id', 'c.paused_until', 's.days'])
        .where('c.household_id', '=', p('household')),
    );
    this.householdAdjustments = new Prepared(database, (k, p) =>
      k
        .selectFrom('time_adjustment as a')
        .innerJoin('managed_user as c', 'c.id', 'a.managed_user_id')
        .select((eb) => ['a.managed_user_id', eb.fn.sum<number>('a.seconds').as('seconds')])
        .where('c.household_id', '=', p('household'))
        .where('a.date', '=', p('date'))
        .groupBy('a.managed_user_id'),
    );
  }

  household(householdId: string) {
    return this.db
      .selectFrom('household')
      .select(['id', 'name', 'timezone'])
      .where('id', '=', householdId)
      .executeTakeFirst();
  }

  async updateHousehold(householdId: string, changes: { name?: string; timezone?: string }): Promise<void> {
    if (!Object.keys(changes).length) return;
    await this.db.updateTable('household').set(changes).where('id', '=', householdId).execute();
  }

  parentIds(householdId: string) {
    return this.db.selectFrom('parent').select('id').where('household_id', '=', householdId).execute();
  }

  childIds(householdId: string) {
    return this.db.selectFrom('managed_user').select('id').where('household_id', '=', householdId).execute();
  }

  /** The child with its household's zone, schedule and pause, in one read. */
  child(managedUserId: string) {
    return this.db
      .selectFrom('managed_user as c')
      .innerJoin('household as h', 'h.id', 'c.household_id')
      .leftJoin('time_schedule as s', 's.managed_user_id', 'c.id')
      .select(['c.id', 'c.household_id', 'c.paused_until', 'h.timezone', 's.version', 's.days'])
      .where('c.id', '=', managedUserId)
      .executeTakeFirst();
  }

  /** Every child of a household with its schedule and pause (the dashboard: one read). */
  childrenOfHousehold(householdId: string) {
    return this.householdChildren.all({ household: householdId });
  }

  /**
   * Raises the child's version by one (writing `days` when given, else keeping the stored days or
   * `emptyDays` for a child never edited), in one transaction; answers the new version.
   */
  bumpVersion(
    managedUserId: string,
    householdId: string,
    change: { days?: string; emptyDays: string; at: string; by: string | null },
  ): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('time_schedule')
        .select(['version', 'days'])
        .where('managed_user_id', '=', managedUserId)
        .executeTakeFirst();
      const version = Number(current?.version ?? 0) + 1;
      const days = change.days ?? current?.days ?? change.emptyDays;
      await trx
        .insertInto('time_schedule')
        .values({
          managed_user_id: managedUserId,
          household_id: householdId,
          version,
          days,
          updated_at: change.at,
          updated_by: change.by,
        })
        .onConflict((oc) =>
          oc
            .column('managed_user_id')
            .doUpdateSet({ version, days, updated_at: change.at, updated_by: change.by }),
        )
        .execute();
      return version;
    });
  }

  async insertAdjustment(row: TimeAdjustmentTable): Promise<void> {
    await this.db.insertInto('time_adjustment').values(row).execute();
  }

  /** The child's adjustments per date from `fromDate` on, in seconds. */
  async adjustmentsFrom(managedUserId: string, fromDate: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('time_adjustment')
      .select((eb) => ['date', eb.fn.sum<number>('seconds').as('seconds')])
      .where('managed_user_id', '=', managedUserId)
      .where('date', '>=', fromDate)
      .groupBy('date')
      .execute();
    return new Map(rows.map((r) => [r.date, Number(r.seconds)]));
  }

  /** Each child's adjustments of one date in a household, in seconds (one grouped read). */
  async adjustmentsOfHousehold(householdId: string, date: string): Promise<Map<string, number>> {
    const rows = await this.householdAdjustments.all({ household: householdId, date });
    return new Map(rows.map((r) => [r.managed_user_id, Number(r.seconds)]));
  }

  async setPause(managedUserId: string, pausedUntil: string | null, at: string): Promise<void> {
    await this.db
      .updateTable('managed_user')
      .set({ paused_until: pausedUntil, updated_at: at })
      .where('id', '=', managedUserId)
      .execute();
  }

  /** The child's mapped accounts with their device. */
  mappingsOf(managedUserId: string) {
    return this.db
      .selectFrom('device_mapping as m')
      .innerJoin('agent_device as d', 'd.system_id', 'm.system_id')
      .select([
        'm.id',
        'm.system_id',
        'm.linux_username',
        'd.hostname',
        'd.display_name',
        'd.platform',
        'd.status',
        'd.agent_version',
        'd.connected_instance',
        'd.last_seen_at',
      ])
      .where('m.managed_user_id', '=', managedUserId)
      .orderBy('m.created_at', 'asc')
      .orderBy('m.id', 'asc')
      .execute();
  }

  /** The child's use on one date, per mapped account (one join over the child's mappings). */
  usageOn(managedUserId: string, date: string) {
    return this.db
      .selectFrom('device_mapping as m')
      .innerJoin('usage_day as u', (j) =>
        j.onRef('u.system_id', '=', 'm.system_id').onRef('u.linux_username', '=', 'm.linux_username'),
      )
      .select(['u.system_id', 'u.linux_username', 'u.seconds_used'])
      .where('m.managed_user_id', '=', managedUserId)
      .where('u.date', '=', date)
      .execute();
  }

  syncOf(managedUserId: string) {
    return this.db
      .selectFrom('time_policy_sync')
      .selectAll()
      .where('managed_user_id', '=', managedUserId)
      .execute();
  }

  /** A push of `version` to a mapping began (or cannot be made): never lowers a newer push's row. */
  async recordPush(row: TimePolicySyncTable): Promise<void> {
    const { version, status, last_attempt_at, error } = row;
    await this.db
      .insertInto('time_policy_sync')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('mapping_id')
          .doUpdateSet({ version, status, last_attempt_at, error })
          .where('time_policy_sync.version', '<=', version),
      )
      .execute();
  }

  /** The agent answered the push of `version`; an answer to an older push changes nothing. */
  async recordAnswer(
    mappingId: string,
    version: number,
    answer: { status: TimeSyncStatus; applied_version: number | null; error: string | null; at: string },
  ): Promise<void> {
    await this.db
      .updateTable('time_policy_sync')
      .set({
        status: answer.status,
        error: answer.error,
        last_attempt_at: answer.at,
        ...(answer.applied_version !== null ? { applied_version: answer.applied_version } : {}),
      })
      .where('mapping_id', '=', mappingId)
      .where('version', '=', version)
      .execute();
  }

  /** The mapping of an account on a device (an answer names the device and the account). */
  mappingOf(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('device_mapping')
      .select(['id', 'managed_user_id'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .executeTakeFirst();
  }
}
