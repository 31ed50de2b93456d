import type { Kysely } from 'kysely';
import { MappingReads, type MappingRow, PolicySyncRepository } from '../../agent-channel/policy-sync.js';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { Database, TimeAdjustmentTable } from '../../platform/db/schema.js';

export interface ChildRow {
  id: string;
  household_id: string;
  paused_until: string | null;
  timezone: string;
  version: number | null;
  days: string | null;
}

/** Schedules, adjustments, the pause, today's use and delivery state (DESIGN §10): SQL only. */
export class TimeRepository {
  private readonly db: Kysely<Database>;
  /** Delivery state of set_time_policy per mapped account. */
  readonly sync: PolicySyncRepository;
  private readonly mappings: MappingReads;
  // The dashboard's reads of every child's schedule, pause and adjustments: prepared.
  private readonly householdChildren: Prepared<
    'household',
    { id: string; paused_until: string | null; days: string | null }
  >;
  private readonly householdAdjustments: Prepared<
    'household' | 'date',
    { managed_user_id: string; seconds: number }
  >;

  // Every usage report and every usage read: prepared, built once.
  private readonly childRead: Prepared<'id', ChildRow>;
  private readonly adjustmentsRead: Prepared<'id' | 'from', { date: string; seconds: number }>;
  private readonly usageRead: Prepared<
    'id' | 'date',
    { system_id: string; linux_username: string; seconds_used: number }
  >;

  constructor(database: Db) {
    this.db = database.kysely;
    this.sync = new PolicySyncRepository(this.db, 'time_policy_sync');
    this.mappings = new MappingReads(database);
    this.childRead = new Prepared(database, (k, p) =>
      k
        .selectFrom('managed_user as c')
        .innerJoin('household as h', 'h.id', 'c.household_id')
        .leftJoin('time_schedule as s', 's.managed_user_id', 'c.id')
        .select(['c.id', 'c.household_id', 'c.paused_until', 'h.timezone', 's.version', 's.days'])
        .where('c.id', '=', p('id')),
    );
    this.adjustmentsRead = new Prepared(database, (k, p) =>
      k
        .selectFrom('time_adjustment')
        .select((eb) => ['date', eb.fn.sum<number>('seconds').as('seconds')])
        .where('managed_user_id', '=', p('id'))
        .where('date', '>=', p('from'))
        .groupBy('date'),
    );
    this.usageRead = new Prepared(database, (k, p) =>
      k
        .selectFrom('device_mapping as m')
        .innerJoin('usage_day as u', (j) =>
          j.onRef('u.system_id', '=', 'm.system_id').onRef('u.linux_username', '=', 'm.linux_username'),
        )
        .select(['u.system_id', 'u.linux_username', 'u.seconds_used'])
        .where('m.managed_user_id', '=', p('id'))
        .where('u.date', '=', p('date')),
    );
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
  child(managedUserId: string): Promise<ChildRow | undefined> {
    return this.childRead.first({ id: managedUserId });
  }

  /** The child's adjustments per date from `fromDate` on, in seconds. */
  async adjustmentsFrom(managedUserId: string, fromDate: string): Promise<Map<string, number>> {
    const rows = await this.adjustmentsRead.all({ id: managedUserId, from: fromDate });
    return new Map(rows.map((r) => [r.date, Number(r.seconds)]));
  }

  /** The child's mapped accounts with their device. */
  mappingsOf(managedUserId: string): Promise<MappingRow[]> {
    return this.mappings.mappingsOf(managedUserId);
  }

  /** The child's use on one date, per mapped account (one join over the child's mappings). */
  usageOn(managedUserId: string, date: string) {
    return this.usageRead.all({ id: managedUserId, date });
  }

  /** The mapping of an account on a device (an answer or a report names the device and the account). */
  mappingOf(systemId: string, linuxUsername: string) {
    return this.mappings.mappingOf(systemId, linuxUsername);
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
}
