import type { Kysely } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { AlertTable, Database } from '../../platform/db/schema.js';

export interface AlertFilter {
  householdId: string;
  kind?: string;
  managedUserId?: string;
  systemId?: string;
  unacknowledged?: boolean;
  /** Members see alerts of these children only (and none without a child). */
  onlyChildren?: string[] | null;
  before?: { created_at: string; id: string };
  limit: number;
}

/** The columns of an alert as lists show it, with its device's and child's names. */
function alertsWithNames(db: Kysely<Database>) {
  return db
    .selectFrom('alert')
    .leftJoin('agent_device', 'agent_device.system_id', 'alert.system_id')
    .leftJoin('managed_user', 'managed_user.id', 'alert.managed_user_id')
    .select([
      'alert.id',
      'alert.household_id',
      'alert.kind',
      'alert.system_id',
      'agent_device.hostname',
      'agent_device.display_name',
      'alert.linux_username',
      'alert.managed_user_id',
      'managed_user.name as managed_user_name',
      'alert.payload',
      'alert.created_at',
      'alert.acknowledged_at',
    ]);
}

type AlertListRow = Awaited<ReturnType<ReturnType<typeof alertsWithNames>['execute']>>[number];

export class AlertRepository {
  private readonly db: Kysely<Database>;
  // The dashboard's reads for owners and admins, on every visit: prepared.
  private readonly newestOfHousehold: Prepared<'household' | 'limit', AlertListRow>;
  private readonly unreadOfHousehold: Prepared<'household', { n: number }>;

  constructor(database: Db) {
    this.db = database.kysely;
    this.newestOfHousehold = new Prepared(database, (k, p) =>
      alertsWithNames(k)
        .where('alert.household_id', '=', p('household'))
        .orderBy('alert.created_at', 'desc')
        .orderBy('alert.id', 'desc')
        .limit(p('limit') as unknown as number),
    );
    this.unreadOfHousehold = new Prepared(database, (k, p) =>
      k
        .selectFrom('alert')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('household_id', '=', p('household'))
        .where('acknowledged_at', 'is', null),
    );
  }

  async insert(row: AlertTable): Promise<void> {
    await this.db.insertInto('alert').values(row).execute();
  }

  private base() {
    return alertsWithNames(this.db);
  }

  /** Newest first, keyset-paged on (created_at, id). */
  list(filter: AlertFilter): Promise<AlertListRow[]> {
    const unfiltered =
      !filter.kind &&
      !filter.managedUserId &&
      !filter.systemId &&
      !filter.unacknowledged &&
      !filter.onlyChildren &&
      !filter.before;
    if (unfiltered) return this.newestOfHousehold.all({ household: filter.householdId, limit: filter.limit });
    let q = this.base().where('alert.household_id', '=', filter.householdId);
    if (filter.kind) q = q.where('alert.kind', '=', filter.kind);
    if (filter.managedUserId) q = q.where('alert.managed_user_id', '=', filter.managedUserId);
    if (filter.systemId) q = q.where('alert.system_id', '=', filter.systemId);
    if (filter.unacknowledged) q = q.where('alert.acknowledged_at', 'is', null);
    if (filter.onlyChildren) {
      if (!filter.onlyChildren.length) return Promise.resolve([]);
      q = q.where('alert.managed_user_id', 'in', filter.onlyChildren);
    }
    const before = filter.before;
    if (before) {
      q = q.where((eb) =>
        eb.or([
          eb('alert.created_at', '<', before.created_at),
          eb.and([eb('alert.created_at', '=', before.created_at), eb('alert.id', '<', before.id)]),
        ]),
      );
    }
    return q.orderBy('alert.created_at', 'desc').orderBy('alert.id', 'desc').limit(filter.limit).execute();
  }

  /** The kinds of the household's alerts (those of `onlyChildren` when given), each once. */
  async kinds(householdId: string, onlyChildren: string[] | null): Promise<string[]> {
    let q = this.db.selectFrom('alert').select('kind').distinct().where('household_id', '=', householdId);
    if (onlyChildren) {
      if (!onlyChildren.length) return [];
      q = q.where('managed_user_id', 'in', onlyChildren);
    }
    return (await q.execute()).map((r) => r.kind);
  }

  get(householdId: string, id: string) {
    return this.base()
      .where('alert.household_id', '=', householdId)
      .where('alert.id', '=', id)
      .executeTakeFirst();
  }

  async acknowledge(id: string, at: string): Promise<void> {
    await this.db
      .updateTable('alert')
      .set({ acknowledged_at: at })
      .where('id', '=', id)
      .where('acknowledged_at', 'is', null)
      .execute();
  }

  async countUnread(householdId: string, onlyChildren: string[] | null): Promise<number> {
    if (!onlyChildren)
      return Number((await this.unreadOfHousehold.first({ household: householdId }))?.n ?? 0);
    let q = this.db
      .selectFrom('alert')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('household_id', '=', householdId)
      .where('acknowledged_at', 'is', null);
    if (onlyChildren) {
      if (!onlyChildren.length) return 0;
      q = q.where('managed_user_id', 'in', onlyChildren);
    }
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  async pruneHousehold(householdId: string, before: string): Promise<number> {
    const r = await this.db
      .deleteFrom('alert')
      .where('household_id', '=', householdId)
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async pruneAll(before: string): Promise<number> {
    const r = await this.db.deleteFrom('alert').where('created_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
