import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

export type SyncStatus = 'pending' | 'synced' | 'failed';

/** Per-child application rules and each device's sync state. */
export class AppPolicyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The accounts mapped to a child, with what a push to their device needs. */
  mappingsOf(managedUserId: string) {
    return this.db
      .selectFrom('device_mapping')
      .innerJoin('agent_device', 'agent_device.system_id', 'device_mapping.system_id')
      .select([
        'device_mapping.system_id',
        'device_mapping.linux_username',
        'agent_device.hostname',
        'agent_device.display_name',
        'agent_device.platform',
        'agent_device.status',
      ])
      .where('device_mapping.managed_user_id', '=', managedUserId)
      .execute();
  }

  policyOf(managedUserId: string) {
    return this.db
      .selectFrom('app_policy')
      .selectAll()
      .where('managed_user_id', '=', managedUserId)
      .executeTakeFirst();
  }

  syncOf(managedUserId: string) {
    return this.db
      .selectFrom('app_policy_sync')
      .selectAll()
      .where('managed_user_id', '=', managedUserId)
      .execute();
  }

  /**
   * Replaces the rules with the next version in one transaction. With `expected`, only while the
   * stored version still is that one; otherwise nothing is written and the current version returned.
   */
  replaceRules(
    managedUserId: string,
    rules: string,
    change: { at: string; by: string; expected?: number },
  ): Promise<{ saved: true; version: number } | { saved: false; current: number }> {
    return this.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('app_policy')
        .select('version')
        .where('managed_user_id', '=', managedUserId)
        .executeTakeFirst();
      const currentVersion = Number(current?.version ?? 0);
      if (change.expected !== undefined && change.expected !== currentVersion)
        return { saved: false as const, current: currentVersion };
      const next = currentVersion + 1;
      const { at, by } = change;
      await trx
        .insertInto('app_policy')
        .values({ managed_user_id: managedUserId, version: next, rules, updated_at: at, updated_by: by })
        .onConflict((oc) =>
          oc.column('managed_user_id').doUpdateSet({ version: next, rules, updated_at: at, updated_by: by }),
        )
        .execute();
      return { saved: true as const, version: next };
    });
  }

  async recordSync(
    managedUserId: string,
    systemId: string,
    version: number,
    status: SyncStatus,
    error: string | null,
    at: string,
  ): Promise<void> {
    await this.db
      .insertInto('app_policy_sync')
      .values({ managed_user_id: managedUserId, system_id: systemId, version, status, error, updated_at: at })
      .onConflict((oc) =>
        oc.columns(['managed_user_id', 'system_id']).doUpdateSet({ version, status, error, updated_at: at }),
      )
      .execute();
  }
}
