import type { DeviceOverlay } from '@hearth/protocol';
import type { Kysely } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { AgentDeviceTable, Database } from '../../platform/db/schema.js';

export interface ReportedAccount {
  username: string;
  display_name?: string;
}

export function parseLinuxUsers(json: string | null | undefined): ReportedAccount[] {
  if (!json) return [];
  try {
    const value = JSON.parse(json);
    return Array.isArray(value) ? value.filter((u) => u && typeof u.username === 'string') : [];
  } catch {
    return [];
  }
}

/** The stored `overlay_status` entries; anything unreadable counts as none. */
export function parseOverlays(json: string | null | undefined): DeviceOverlay[] {
  if (!json) return [];
  try {
    const value = JSON.parse(json);
    return Array.isArray(value) ? value.filter((o) => o && typeof o.linux_username === 'string') : [];
  } catch {
    return [];
  }
}

export type DeviceRow = AgentDeviceTable;

export class DeviceRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: AgentDeviceTable): Promise<void> {
    await this.db.insertInto('agent_device').values(row).execute();
  }

  get(householdId: string, systemId: string) {
    return this.db
      .selectFrom('agent_device')
      .selectAll()
      .where('household_id', '=', householdId)
      .where('system_id', '=', systemId)
      .executeTakeFirst();
  }

  /** Any household's device: only the agent's hello, which authenticates by the device itself, uses this. */
  bySystemId(systemId: string) {
    return this.db
      .selectFrom('agent_device')
      .selectAll()
      .where('system_id', '=', systemId)
      .executeTakeFirst();
  }

  list(householdId: string, options: { status?: string; onlyIds?: string[] | null } = {}) {
    let q = this.db.selectFrom('agent_device').selectAll().where('household_id', '=', householdId);
    if (options.status) q = q.where('status', '=', options.status as AgentDeviceTable['status']);
    if (options.onlyIds) {
      if (!options.onlyIds.length) return Promise.resolve([]);
      q = q.where('system_id', 'in', options.onlyIds);
    }
    return q.orderBy('created_at', 'desc').orderBy('system_id', 'desc').execute();
  }

  /** How many of a household's devices wait for a parent's decision. */
  async countPending(householdId: string): Promise<number> {
    const row = await this.db
      .selectFrom('agent_device')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('household_id', '=', householdId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async update(systemId: string, changes: Partial<AgentDeviceTable>): Promise<void> {
    await this.db.updateTable('agent_device').set(changes).where('system_id', '=', systemId).execute();
  }

  /** Moves a device from `from` to `to`; false when it was not in `from` (decided meanwhile). */
  async transition(
    systemId: string,
    from: AgentDeviceTable['status'][],
    changes: Partial<AgentDeviceTable>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('agent_device')
      .set(changes)
      .where('system_id', '=', systemId)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Deletes a rejected or unenrolled device in one transaction. The schema's foreign keys remove its
   * mappings (and their grants and requests), queued commands, usage, installed apps and app-rule sync;
   * alerts and online accounts keep their rows with the device nulled. 'enrolled' when it is pending
   * or approved (nothing is deleted), 'missing' when there is no such device.
   */
  removeDecided(
    householdId: string,
    systemId: string,
  ): Promise<'missing' | 'enrolled' | { mappingIds: string[] }> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('agent_device')
        .select('status')
        .where('household_id', '=', householdId)
        .where('system_id', '=', systemId)
        .executeTakeFirst();
      if (!row) return 'missing' as const;
      if (row.status !== 'rejected' && row.status !== 'unenrolled') return 'enrolled' as const;
      const mappings = await trx
        .selectFrom('device_mapping')
        .select('id')
        .where('system_id', '=', systemId)
        .execute();
      await trx.deleteFrom('device_mapping').where('system_id', '=', systemId).execute();
      await trx.deleteFrom('device_command').where('system_id', '=', systemId).execute();
      const deleted = await trx
        .deleteFrom('agent_device')
        .where('system_id', '=', systemId)
        .where('status', 'in', ['rejected', 'unenrolled'])
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) return 'enrolled' as const;
      return { mappingIds: mappings.map((m) => m.id) };
    });
  }

  /** When each device's usage total last grew: one grouped read for a whole list of devices. */
  async lastUsageAt(systemIds: readonly string[]): Promise<Map<string, string>> {
    const at = new Map<string, string>();
    for (let i = 0; i < systemIds.length; i += 500) {
      const rows = await this.db
        .selectFrom('usage_day')
        .select((eb) => ['system_id', eb.fn.max('updated_at').as('at')])
        .where('system_id', 'in', systemIds.slice(i, i + 500))
        .groupBy('system_id')
        .execute();
      for (const r of rows) if (r.at) at.set(r.system_id, String(r.at));
    }
    return at;
  }

  /**
   * Stores an approved device's `overlay_status` entries; false when nothing changed (or the device
   * is no longer approved), so a repeated status after a reconnect is not announced again.
   */
  async setOverlays(systemId: string, json: string, at: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('agent_device')
      .select(['overlay_state', 'status'])
      .where('system_id', '=', systemId)
      .executeTakeFirst();
    if (row?.status !== 'approved') return false;
    const changed = row.overlay_state !== json;
    await this.db
      .updateTable('agent_device')
      .set({ overlay_state: json, overlay_state_at: at })
      .where('system_id', '=', systemId)
      .where('status', '=', 'approved')
      .execute();
    return changed;
  }

  mappingsOfDevice(systemId: string) {
    return this.db
      .selectFrom('device_mapping')
      .innerJoin('managed_user', 'managed_user.id', 'device_mapping.managed_user_id')
      .select([
        'device_mapping.id',
        'device_mapping.linux_username',
        'device_mapping.managed_user_id',
        'managed_user.name as managed_user_name',
        'managed_user.overlay_age_tier',
        'managed_user.overlay_parent_note',
      ])
      .where('device_mapping.system_id', '=', systemId)
      .orderBy('device_mapping.created_at', 'asc')
      .execute();
  }
}

type TokenRow = Pick<
  DeviceRow,
  'system_id' | 'household_id' | 'platform' | 'agent_version' | 'linux_users' | 'status'
>;

/** The device behind a bearer token: every agent request asks, so the read is prepared. */
export class DeviceTokenRepository {
  private readonly byToken: Prepared<'hash', TokenRow>;

  constructor(database: Db) {
    this.byToken = new Prepared(database, (k, p) =>
      k
        .selectFrom('agent_device')
        .select(['system_id', 'household_id', 'platform', 'agent_version', 'linux_users', 'status'])
        .where('secure_token_hash', '=', p('hash')),
    );
  }

  byHash(tokenHash: string): Promise<TokenRow | undefined> {
    return this.byToken.first({ hash: tokenHash });
  }
}
