import type { Kysely } from 'kysely';
import type { Database, DeviceInstalledApplicationTable } from '../../platform/db/schema.js';

export type AppRow = DeviceInstalledApplicationTable;

export class InventoryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Runs `work` in one transaction, with a repository bound to it. */
  transaction<T>(work: (repo: InventoryRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new InventoryRepository(trx)));
  }

  reportOf(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('installed_apps_report')
      .select(['report_hash', 'reported_at', 'app_count'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .executeTakeFirst();
  }

  appsOf(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('device_installed_application')
      .select(['identifier', 'match_type', 'application_name', 'version_name', 'icon_hash'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .execute();
  }

  async markSeen(systemId: string, linuxUsername: string, at: string): Promise<void> {
    await this.db
      .updateTable('device_installed_application')
      .set({ last_seen_at: at })
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .execute();
  }

  async upsertApps(rows: AppRow[]): Promise<void> {
    // 9 values a row: 100 rows stay far below every dialect's parameter limit.
    for (let i = 0; i < rows.length; i += 100) {
      await this.db
        .insertInto('device_installed_application')
        .values(rows.slice(i, i + 100))
        .onConflict((oc) =>
          oc.columns(['system_id', 'linux_username', 'identifier', 'match_type']).doUpdateSet((eb) => ({
            application_name: eb.ref('excluded.application_name'),
            version_name: eb.ref('excluded.version_name'),
            icon_hash: eb.ref('excluded.icon_hash'),
            last_seen_at: eb.ref('excluded.last_seen_at'),
          })),
        )
        .execute();
    }
  }

  async deleteApps(
    systemId: string,
    linuxUsername: string,
    keys: { identifier: string; match_type: string }[],
  ): Promise<void> {
    for (const matchType of new Set(keys.map((k) => k.match_type))) {
      const identifiers = keys.filter((k) => k.match_type === matchType).map((k) => k.identifier);
      for (let i = 0; i < identifiers.length; i += 500) {
        await this.db
          .deleteFrom('device_installed_application')
          .where('system_id', '=', systemId)
          .where('linux_username', '=', linuxUsername)
          .where('match_type', '=', matchType as AppRow['match_type'])
          .where('identifier', 'in', identifiers.slice(i, i + 500))
          .execute();
      }
    }
  }

  async saveReport(
    systemId: string,
    linuxUsername: string,
    hash: string,
    at: string,
    count: number,
  ): Promise<void> {
    await this.db
      .insertInto('installed_apps_report')
      .values({
        system_id: systemId,
        linux_username: linuxUsername,
        report_hash: hash,
        reported_at: at,
        app_count: count,
      })
      .onConflict((oc) =>
        oc
          .columns(['system_id', 'linux_username'])
          .doUpdateSet({ report_hash: hash, reported_at: at, app_count: count }),
      )
      .execute();
    const total = await this.db
      .selectFrom('device_installed_application')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('system_id', '=', systemId)
      .executeTakeFirstOrThrow();
    await this.db
      .updateTable('agent_device')
      .set({
        installed_apps_report_hash: hash,
        installed_apps_reported_at: at,
        installed_apps_count: Number(total.n),
      })
      .where('system_id', '=', systemId)
      .execute();
  }

  /** A device's apps, of every account or only of `accounts`. */
  deviceApps(systemId: string, accounts?: readonly string[]) {
    let q = this.db.selectFrom('device_installed_application').selectAll().where('system_id', '=', systemId);
    if (accounts) {
      if (!accounts.length) return Promise.resolve([]);
      q = q.where('linux_username', 'in', accounts);
    }
    return q.orderBy('application_name').orderBy('identifier').orderBy('linux_username').execute();
  }

  /** The most recent report among these accounts of a device. */
  latestReport(systemId: string, accounts: readonly string[]) {
    if (!accounts.length) return Promise.resolve(undefined);
    return this.db
      .selectFrom('installed_apps_report')
      .select(['report_hash', 'reported_at'])
      .where('system_id', '=', systemId)
      .where('linux_username', 'in', accounts)
      .orderBy('reported_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Apps on the accounts mapped to a child, across all their devices. */
  childApps(managedUserId: string) {
    return this.db
      .selectFrom('device_mapping')
      .innerJoin('device_installed_application as app', (j) =>
        j
          .onRef('app.system_id', '=', 'device_mapping.system_id')
          .onRef('app.linux_username', '=', 'device_mapping.linux_username'),
      )
      .innerJoin('agent_device', 'agent_device.system_id', 'device_mapping.system_id')
      .select([
        'app.identifier',
        'app.match_type',
        'app.application_name',
        'app.version_name',
        'app.icon_hash',
        'app.first_seen_at',
        'app.last_seen_at',
        'app.system_id',
        'app.linux_username',
        'agent_device.hostname',
        'agent_device.display_name',
      ])
      .where('device_mapping.managed_user_id', '=', managedUserId)
      .orderBy('app.application_name')
      .orderBy('app.identifier')
      .execute();
  }

  icon(hash: string) {
    return this.db
      .selectFrom('application_icon')
      .select(['mime_type', 'data_base64'])
      .where('content_hash', '=', hash)
      .executeTakeFirst();
  }

  /** True when the icon was new. */
  async insertIcon(row: {
    content_hash: string;
    mime_type: string;
    data_base64: string;
    byte_size: number;
    created_at: string;
  }): Promise<boolean> {
    const r = await this.db
      .insertInto('application_icon')
      .values(row)
      .onConflict((oc) => oc.column('content_hash').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
