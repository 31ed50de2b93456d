import { type Kysely, sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { AgentDeviceTable, Database, DeviceCommandTable } from '../../platform/db/schema.js';

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

  /** Any household's device: only the agent channel, which authenticates by the device itself, uses this. */
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

  /** Clears the instance mark only if this instance still holds the device (a newer socket may be elsewhere). */
  async markDisconnected(systemId: string, instanceId: string, at: string): Promise<void> {
    await this.db
      .updateTable('agent_device')
      .set({ connected_instance: null, last_seen_at: at })
      .where('system_id', '=', systemId)
      .where('connected_instance', '=', instanceId)
      .execute();
  }

  async touchMany(systemIds: string[], at: string): Promise<void> {
    for (let i = 0; i < systemIds.length; i += 500) {
      await this.db
        .updateTable('agent_device')
        .set({ last_seen_at: at })
        .where('system_id', 'in', systemIds.slice(i, i + 500))
        .execute();
    }
  }

  async releaseInstance(instanceId: string): Promise<void> {
    await this.db
      .updateTable('agent_device')
      .set({ connected_instance: null })
      .where('connected_instance', '=', instanceId)
      .execute();
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

export class CommandQueueRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async count(systemId: string): Promise<number> {
    const row = await this.db
      .selectFrom('device_command')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('system_id', '=', systemId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(row: DeviceCommandTable): Promise<void> {
    await this.db.insertInto('device_command').values(row).execute();
  }

  async deleteCoalesced(systemId: string, key: string): Promise<number> {
    const r = await this.db
      .deleteFrom('device_command')
      .where('system_id', '=', systemId)
      .where('coalesce_key', '=', key)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Live commands for a device, oldest first. */
  due(systemId: string, now: string) {
    return this.db
      .selectFrom('device_command')
      .selectAll()
      .where('system_id', '=', systemId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
  }

  async markAttempt(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.db
      .updateTable('device_command')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', ids)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('device_command').where('id', '=', id).execute();
  }

  async deleteExpired(now: string, maxAttempts: number): Promise<number> {
    const r = await this.db
      .deleteFrom('device_command')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('attempts', '>=', maxAttempts)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  list(systemId: string) {
    return this.db
      .selectFrom('device_command')
      .selectAll()
      .where('system_id', '=', systemId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }
}
