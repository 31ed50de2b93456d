import { type Kysely, sql } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

/** Screen time the agents report, one running total per device, account and day: SQL only. */
export class UsageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async recordUsage(
    systemId: string,
    linuxUsername: string,
    date: string,
    seconds: number,
    at: string,
  ): Promise<void> {
    // The agent sends the day's running total; keep the largest so a reordered report cannot lower it.
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
        oc.columns(['system_id', 'linux_username', 'date']).doUpdateSet({
          seconds_used: sql`case when excluded.seconds_used > usage_day.seconds_used then excluded.seconds_used else usage_day.seconds_used end`,
          updated_at: at,
        }),
      )
      .execute();
  }
}
