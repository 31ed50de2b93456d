import type { Kysely } from 'kysely';
import type { Database, DeviceCommandTable } from '../platform/db/schema.js';

/** The durable per-device command queue (`device_command`): SQL only. */
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
