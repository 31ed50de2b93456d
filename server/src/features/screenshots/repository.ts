import type { Kysely } from 'kysely';
import type { Database, ScreenshotTable } from '../../platform/db/schema.js';

export type ScreenshotRow = ScreenshotTable;
/** A row without its bytes (lists never read them). */
export type ScreenshotMeta = Omit<ScreenshotRow, 'data'>;

const META = [
  'id',
  'household_id',
  'system_id',
  'linux_username',
  'managed_user_id',
  'request_id',
  'content_type',
  'width',
  'height',
  'bytes',
  'taken_at',
  'storage',
] as const;

/** Screenshots and the periodic capture's bookkeeping (DESIGN §12): SQL only. */
export class ScreenshotRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: ScreenshotRow): Promise<void> {
    await this.db.insertInto('screenshot').values(row).execute();
  }

  /** The device's screenshots, newest first; `accounts` (when given) limits them to those accounts. */
  listOfDevice(
    systemId: string,
    accounts: readonly string[] | null,
    limit: number,
  ): Promise<ScreenshotMeta[]> {
    if (accounts && !accounts.length) return Promise.resolve([]);
    let q = this.db.selectFrom('screenshot').select(META).where('system_id', '=', systemId);
    if (accounts) q = q.where('linux_username', 'in', accounts);
    return q.orderBy('taken_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  get(householdId: string, id: string): Promise<ScreenshotMeta | undefined> {
    return this.db
      .selectFrom('screenshot')
      .select(META)
      .where('household_id', '=', householdId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async data(id: string): Promise<Buffer | null> {
    const row = await this.db.selectFrom('screenshot').select('data').where('id', '=', id).executeTakeFirst();
    return row?.data ? Buffer.from(row.data) : null;
  }

  async delete(id: string): Promise<boolean> {
    const res = await this.db.deleteFrom('screenshot').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Up to `limit` screenshots taken before `cutoff`, oldest first. */
  olderThan(cutoff: string, limit: number): Promise<ScreenshotMeta[]> {
    return this.db
      .selectFrom('screenshot')
      .select(META)
      .where('taken_at', '<', cutoff)
      .orderBy('taken_at', 'asc')
      .limit(limit)
      .execute();
  }

  async deleteIds(ids: readonly string[]): Promise<void> {
    if (ids.length) await this.db.deleteFrom('screenshot').where('id', 'in', ids).execute();
  }

  /** Which of `ids` have a row (files without one belonged to a device that was removed). */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db.selectFrom('screenshot').select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  }

  /** The child an account of a device is mapped to. */
  mappingOf(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('device_mapping')
      .select(['id', 'managed_user_id'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .executeTakeFirst();
  }

  /** Mappings with periodic screenshots on approved devices, with what the due check needs. */
  periodicMappings() {
    return this.db
      .selectFrom('device_mapping as m')
      .innerJoin('agent_device as d', 'd.system_id', 'm.system_id')
      .select([
        'm.id',
        'm.system_id',
        'm.linux_username',
        'm.screenshot_interval_minutes',
        'm.screenshot_requested_at',
        'd.status',
        'd.platform',
        'd.connected_instance',
        'd.last_seen_at',
      ])
      .where('m.screenshot_interval_minutes', '>', 0)
      .where('d.status', '=', 'approved')
      .execute();
  }

  async markRequested(mappingId: string, at: string): Promise<void> {
    await this.db
      .updateTable('device_mapping')
      .set({ screenshot_requested_at: at })
      .where('id', '=', mappingId)
      .execute();
  }

  async setInterval(mappingId: string, minutes: number): Promise<void> {
    await this.db
      .updateTable('device_mapping')
      .set({ screenshot_interval_minutes: minutes })
      .where('id', '=', mappingId)
      .execute();
  }

  async interval(mappingId: string): Promise<number> {
    const row = await this.db
      .selectFrom('device_mapping')
      .select('screenshot_interval_minutes')
      .where('id', '=', mappingId)
      .executeTakeFirst();
    return Number(row?.screenshot_interval_minutes ?? 0);
  }
}
