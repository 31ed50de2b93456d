import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';

/** Which instance holds a device's socket and when it was last heard from: SQL only. */
export class PresenceRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The instance named as holding the device's socket, with the last time anyone heard from it. */
  holder(systemId: string) {
    return this.db
      .selectFrom('agent_device')
      .select(['connected_instance', 'last_seen_at'])
      .where('system_id', '=', systemId)
      .executeTakeFirst();
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
}
