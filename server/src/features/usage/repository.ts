import type { UsageApp } from '@hearth/protocol';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

/** Screen time the agents report, running totals per device, account and day (and per app): SQL only. */
export class UsageRepository {
  constructor(private readonly db: Kysely<Database>) {}

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
  async scheduleOf(householdId: string, managedUserId: string) {
    return this.db
      .selectFrom('household as h')
      .leftJoin('time_schedule as s', (j) =>
        j.on('s.managed_user_id', '=', managedUserId).onRef('s.household_id', '=', 'h.id'),
      )
      .select(['h.timezone', 's.days'])
      .where('h.id', '=', householdId)
      .executeTakeFirst();
  }

  /** Seconds per day over a range, all the child's mapped accounts together (days without use absent). */
  async perDay(managedUserId: string, from: string, to: string) {
    const rows = await this.db
      .selectFrom('device_mapping as m')
      .innerJoin('usage_day as u', (j) =>
        j.onRef('u.system_id', '=', 'm.system_id').onRef('u.linux_username', '=', 'm.linux_username'),
      )
      .select((eb) => ['u.date', eb.fn.sum<number>('u.seconds_used').as('seconds')])
      .where('m.managed_user_id', '=', managedUserId)
      .where('u.date', '>=', from)
      .where('u.date', '<=', to)
      .groupBy('u.date')
      .execute();
    return new Map(rows.map((r) => [r.date, Number(r.seconds)]));
  }

  /** Each device the child is mapped on, with its seconds over the range (0 without use). */
  async perDevice(managedUserId: string, from: string, to: string) {
    const rows = await this.db
      .selectFrom('device_mapping as m')
      .innerJoin('agent_device as d', 'd.system_id', 'm.system_id')
      .leftJoin('usage_day as u', (j) =>
        j
          .onRef('u.system_id', '=', 'm.system_id')
          .onRef('u.linux_username', '=', 'm.linux_username')
          .on('u.date', '>=', from)
          .on('u.date', '<=', to),
      )
      .select((eb) => [
        'm.system_id',
        'd.hostname',
        'd.display_name',
        'd.platform',
        eb.fn.coalesce(eb.fn.sum<number>('u.seconds_used'), sql<number>`0`).as('seconds'),
      ])
      .where('m.managed_user_id', '=', managedUserId)
      .groupBy(['m.system_id', 'd.hostname', 'd.display_name', 'd.platform'])
      .execute();
    return rows.map((r) => ({ ...r, seconds: Number(r.seconds) }));
  }

  /** The child's most used applications over the range, all mapped accounts together. */
  async topApps(managedUserId: string, from: string, to: string, limit: number) {
    const rows = await this.db
      .selectFrom('device_mapping as m')
      .innerJoin('usage_app_day as a', (j) =>
        j.onRef('a.system_id', '=', 'm.system_id').onRef('a.linux_username', '=', 'm.linux_username'),
      )
      .select((eb) => ['a.identifier', 'a.match_type', eb.fn.sum<number>('a.seconds').as('seconds')])
      .where('m.managed_user_id', '=', managedUserId)
      .where('a.date', '>=', from)
      .where('a.date', '<=', to)
      .groupBy(['a.identifier', 'a.match_type'])
      .orderBy('seconds', 'desc')
      .orderBy('a.identifier')
      .orderBy('a.match_type')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, seconds: Number(r.seconds) }));
  }

  /** Names and icons of the given apps from the inventory of the child's mapped accounts. */
  async inventoryNames(managedUserId: string, identifiers: string[]) {
    if (!identifiers.length) return [];
    return this.db
      .selectFrom('device_mapping as m')
      .innerJoin('device_installed_application as i', (j) =>
        j.onRef('i.system_id', '=', 'm.system_id').onRef('i.linux_username', '=', 'm.linux_username'),
      )
      .select(['i.identifier', 'i.match_type', 'i.application_name', 'i.icon_hash', 'i.last_seen_at'])
      .where('m.managed_user_id', '=', managedUserId)
      .where('i.identifier', 'in', identifiers)
      .execute();
  }
}
