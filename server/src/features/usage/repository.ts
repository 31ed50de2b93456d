import type { UsageApp } from '@hearth/protocol';
import { type Kysely, sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { Database } from '../../platform/db/schema.js';

/** Screen time the agents report, running totals per device, account and day (and per app): SQL only. */
export class UsageRepository {
  private readonly db: Kysely<Database>;
  // The statistics' reads, built once (platform/db/prepared.ts).
  private readonly schedule: Prepared<'household' | 'child', { timezone: string; days: string | null }>;
  private readonly days: Prepared<'child' | 'from' | 'to', { date: string; seconds: number }>;
  private readonly devices: Prepared<
    'child' | 'from' | 'to',
    { system_id: string; hostname: string; display_name: string | null; platform: string; seconds: number }
  >;
  private readonly apps: Prepared<
    'child' | 'from' | 'to' | 'limit',
    {
      identifier: string;
      match_type: string;
      seconds: number;
      application_name: string | null;
      icon_hash: string | null;
    }
  >;

  constructor(database: Db) {
    this.db = database.kysely;
    this.schedule = new Prepared(database, (k, p) =>
      k
        .selectFrom('household as h')
        .leftJoin('time_schedule as s', (j) =>
          j.on('s.managed_user_id', '=', p('child')).onRef('s.household_id', '=', 'h.id'),
        )
        .select(['h.timezone', 's.days'])
        .where('h.id', '=', p('household')),
    );
    this.days = new Prepared(database, (k, p) =>
      k
        .selectFrom('device_mapping as m')
        .innerJoin('usage_day as u', (j) =>
          j.onRef('u.system_id', '=', 'm.system_id').onRef('u.linux_username', '=', 'm.linux_username'),
        )
        .select((eb) => ['u.date', eb.fn.sum<number>('u.seconds_used').as('seconds')])
        .where('m.managed_user_id', '=', p('child'))
        .where('u.date', '>=', p('from'))
        .where('u.date', '<=', p('to'))
        .groupBy('u.date'),
    );
    this.devices = new Prepared(database, (k, p) =>
      k
        .selectFrom('device_mapping as m')
        .innerJoin('agent_device as d', 'd.system_id', 'm.system_id')
        .leftJoin('usage_day as u', (j) =>
          j
            .onRef('u.system_id', '=', 'm.system_id')
            .onRef('u.linux_username', '=', 'm.linux_username')
            .on('u.date', '>=', p('from'))
            .on('u.date', '<=', p('to')),
        )
        .select((eb) => [
          'm.system_id',
          'd.hostname',
          'd.display_name',
          'd.platform',
          eb.fn.coalesce(eb.fn.sum<number>('u.seconds_used'), sql<number>`0`).as('seconds'),
        ])
        .where('m.managed_user_id', '=', p('child'))
        .groupBy(['m.system_id', 'd.hostname', 'd.display_name', 'd.platform']),
    );
    this.apps = new Prepared(database, (k, p) => {
      const listing = (column: 'application_name' | 'icon_hash') =>
        k
          .selectFrom('device_mapping as lm')
          .innerJoin('device_installed_application as i', (j) =>
            j.onRef('i.system_id', '=', 'lm.system_id').onRef('i.linux_username', '=', 'lm.linux_username'),
          )
          .select(`i.${column}`)
          .where('lm.managed_user_id', '=', p('child'))
          .where('i.identifier', '=', sql.ref<string>('t.identifier'))
          .where('i.match_type', '=', sql.ref<'executable' | 'package'>('t.match_type'))
          .orderBy(sql`case when i.icon_hash is null then 1 else 0 end`)
          .orderBy('i.last_seen_at', 'desc')
          .limit(sql<number>`1`);
      const top = k
        .selectFrom('device_mapping as m')
        .innerJoin('usage_app_day as a', (j) =>
          j.onRef('a.system_id', '=', 'm.system_id').onRef('a.linux_username', '=', 'm.linux_username'),
        )
        .select((eb) => ['a.identifier', 'a.match_type', eb.fn.sum<number>('a.seconds').as('seconds')])
        .where('m.managed_user_id', '=', p('child'))
        .where('a.date', '>=', p('from'))
        .where('a.date', '<=', p('to'))
        .groupBy(['a.identifier', 'a.match_type'])
        .orderBy('seconds', 'desc')
        .orderBy('a.identifier')
        .orderBy('a.match_type')
        .limit(sql<number>`${p('limit')}`);
      return k
        .selectFrom(top.as('t'))
        .select([
          't.identifier',
          't.match_type',
          't.seconds',
          listing('application_name').as('application_name'),
          listing('icon_hash').as('icon_hash'),
        ])
        .orderBy('t.seconds', 'desc')
        .orderBy('t.identifier')
        .orderBy('t.match_type');
    });
  }

  /**
   * Records a report's day total and its apps' totals. Totals only grow within a day: a lower one than
   * stored is ignored (the update's `where`), so a reordered or repeated report cannot lower it. The
   * apps go in one statement whatever their number (`apps` must not name an app twice).
   */
  async recordUsage(
    systemId: string,
    linuxUsername: string,
    date: string,
    seconds: number,
    apps: readonly UsageApp[],
    at: string,
  ): Promise<void> {
    await this.db
      .insertInto('usage_day')
      .values({
        system_id: systemId,
        linux_username: linuxUsername,
        date,
        seconds_used: seconds,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc
          .columns(['system_id', 'linux_username', 'date'])
          .doUpdateSet({ seconds_used: sql`excluded.seconds_used`, updated_at: sql`excluded.updated_at` })
          .where(sql<boolean>`excluded.seconds_used > usage_day.seconds_used`),
      )
      .execute();
    if (!apps.length) return;
    await this.db
      .insertInto('usage_app_day')
      .values(
        apps.map((a) => ({
          system_id: systemId,
          linux_username: linuxUsername,
          date,
          identifier: a.identifier,
          match_type: a.match_type,
          seconds: a.seconds,
          updated_at: at,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['system_id', 'linux_username', 'date', 'identifier', 'match_type'])
          .doUpdateSet({ seconds: sql`excluded.seconds`, updated_at: sql`excluded.updated_at` })
          .where(sql<boolean>`excluded.seconds > usage_app_day.seconds`),
      )
      .execute();
  }

  /** The household's zone and the child's weekly schedule (`days` JSON, null when never edited). */
  scheduleOf(householdId: string, managedUserId: string) {
    return this.schedule.first({ household: householdId, child: managedUserId });
  }

  /** Seconds per day over a range, all the child's mapped accounts together (days without use absent). */
  async perDay(managedUserId: string, from: string, to: string) {
    const rows = await this.days.all({ child: managedUserId, from, to });
    return new Map(rows.map((r) => [r.date, Number(r.seconds)]));
  }

  /** Each device the child is mapped on, with its seconds over the range (0 without use). */
  async perDevice(managedUserId: string, from: string, to: string) {
    const rows = await this.devices.all({ child: managedUserId, from, to });
    return rows.map((r) => ({ ...r, seconds: Number(r.seconds) }));
  }

  /**
   * The child's most used applications over the range (all mapped accounts together), each with its
   * name and icon from the inventory of the child's accounts: with several listings, one with an icon
   * before one without, then the newest.
   */
  async topApps(managedUserId: string, from: string, to: string, limit: number) {
    const rows = await this.apps.all({ child: managedUserId, from, to, limit });
    return rows.map((r) => ({ ...r, seconds: Number(r.seconds) }));
  }
}
