import type { Kysely } from 'kysely';
import type { Database, DevicePolicyTable } from '../../platform/db/schema.js';

export type DevicePolicyRow = DevicePolicyTable;

/** A mapping with the device fields a device policy needs (its kind follows the platform). */
export interface PolicyMapping {
  id: string;
  managed_user_id: string;
  system_id: string;
  linux_username: string;
  platform: string;
  status: string;
  agent_version: string | null;
}

/** Device policies and their delivery state (DESIGN §12): SQL only. */
export class DevicePolicyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  mapping(householdId: string, mappingId: string): Promise<PolicyMapping | undefined> {
    return this.db
      .selectFrom('device_mapping as m')
      .innerJoin('agent_device as d', 'd.system_id', 'm.system_id')
      .select([
        'm.id',
        'm.managed_user_id',
        'm.system_id',
        'm.linux_username',
        'd.platform',
        'd.status',
        'd.agent_version',
      ])
      .where('m.household_id', '=', householdId)
      .where('m.id', '=', mappingId)
      .executeTakeFirst();
  }

  mappingOf(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('device_mapping')
      .select(['id', 'managed_user_id'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .executeTakeFirst();
  }

  get(scopeKey: string): Promise<DevicePolicyRow | undefined> {
    return this.db
      .selectFrom('device_policy')
      .selectAll()
      .where('scope_key', '=', scopeKey)
      .executeTakeFirst();
  }

  /** The device's per-account policies of `kind` at `version` that no answer has acknowledged yet. */
  waitingFor(
    systemId: string,
    kind: 'linux' | 'android',
    version: number,
  ): Promise<{ scope_key: string; linux_username: string | null }[]> {
    return this.db
      .selectFrom('device_policy')
      .select(['scope_key', 'linux_username'])
      .where('system_id', '=', systemId)
      .where('kind', '=', kind)
      .where('mapping_id', 'is not', null)
      .where('version', '=', version)
      .where((eb) => eb.or([eb('applied_version', 'is', null), eb('applied_version', '<', version)]))
      .orderBy('scope_key')
      .execute();
  }

  /**
   * Replaces the document and raises the version by one (1 for a first one), marking the new version
   * `status`; answers the new version. Two PUTs at once each get their own version.
   */
  async replace(
    row: Omit<DevicePolicyRow, 'version' | 'applied_version' | 'rules' | 'error' | 'last_attempt_at'>,
  ): Promise<number> {
    const at = row.updated_at;
    for (let attempt = 0; ; attempt++) {
      const updated = await this.db
        .updateTable('device_policy')
        .set((eb) => ({
          version: eb('version', '+', 1),
          policy: row.policy,
          updated_at: at,
          updated_by: row.updated_by,
          sync_status: row.sync_status,
          error: null,
          last_attempt_at: at,
        }))
        .where('scope_key', '=', row.scope_key)
        .returning('version')
        .executeTakeFirst();
      if (updated) return Number(updated.version);
      try {
        await this.db
          .insertInto('device_policy')
          .values({
            ...row,
            version: 1,
            applied_version: null,
            rules: null,
            error: null,
            last_attempt_at: at,
          })
          .execute();
        return 1;
      } catch (err) {
        // Another first PUT inserted the row meanwhile: raise its version instead.
        if (attempt > 0) throw err;
      }
    }
  }

  /** The delivery of `version` changed (unsupported, or the agent answered an error). */
  async recordDelivery(
    scopeKey: string,
    version: number,
    change: { sync_status: DevicePolicyRow['sync_status']; error: string | null; at: string },
  ): Promise<void> {
    await this.db
      .updateTable('device_policy')
      .set({ sync_status: change.sync_status, error: change.error, last_attempt_at: change.at })
      .where('scope_key', '=', scopeKey)
      .where('version', '=', version)
      .execute();
  }

  /**
   * The agent applied `version` (with per-rule outcomes): the row's status follows when that is its
   * current version; an older answer only updates what the agent last reported.
   */
  async recordApplied(
    scopeKey: string,
    version: number,
    answer: { ok: boolean; error: string | null; rules: string | null; at: string },
  ): Promise<boolean> {
    const current = await this.db
      .updateTable('device_policy')
      .set({
        applied_version: version,
        sync_status: answer.ok ? 'synced' : 'failed',
        error: answer.error,
        rules: answer.rules,
        last_attempt_at: answer.at,
      })
      .where('scope_key', '=', scopeKey)
      .where('version', '<=', version)
      .executeTakeFirst();
    if (Number(current.numUpdatedRows) > 0) return true;
    await this.db
      .updateTable('device_policy')
      .set({ applied_version: version, rules: answer.rules })
      .where('scope_key', '=', scopeKey)
      .execute();
    return false;
  }
}
