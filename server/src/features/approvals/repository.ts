import { type Kysely, sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type {
  ApprovalGrantTable,
  ApprovalRequestTable,
  Database,
  TimeAdjustmentTable,
  UserOnlineAccountTable,
} from '../../platform/db/schema.js';

export interface RequestFilter {
  householdId: string;
  status?: string;
  type?: string;
  managedUserId?: string;
  onlyChildren?: string[] | null;
}

export interface OnlineAccountFilter {
  householdId: string;
  q?: string;
  sort: 'domain' | 'username' | 'first_detected_at' | 'last_active_at';
  order: 'asc' | 'desc';
  managedUserId?: string;
  onlyChildren?: string[] | null;
}

export class ApprovalRepository {
  private readonly db: Kysely<Database>;
  // The registration check runs on every sign-up-looking page: its three reads are prepared.
  private readonly mappingOfAccount: Prepared<
    'system' | 'account',
    { id: string; managed_user_id: string; enforce_signup_approvals: number | undefined }
  >;
  private readonly pendingOfMapping: Prepared<
    'mapping' | 'type' | 'status',
    { id: string; domain: string | null }
  >;
  private readonly grantsOfMapping: Prepared<
    'mapping' | 'type',
    { domain: string | null; kind: string; expires_at: string | null; consumed_at: string | null }
  >;

  // The dashboard's count for owners and admins, on every visit.
  private readonly pendingOfHousehold: Prepared<'household', { n: number }>;

  constructor(database: Db) {
    this.db = database.kysely;
    this.pendingOfHousehold = new Prepared(database, (k, p) =>
      k
        .selectFrom('approval_request')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('household_id', '=', p('household'))
        // Written out, not a parameter, so the partial index of pending requests serves it.
        .where('status', '=', sql.lit('pending')),
    );
    this.mappingOfAccount = new Prepared(database, (k, p) =>
      k
        .selectFrom('device_mapping')
        .select(['id', 'managed_user_id', 'enforce_signup_approvals'])
        .where('system_id', '=', p('system'))
        .where('linux_username', '=', p('account')),
    );
    this.pendingOfMapping = new Prepared(database, (k, p) =>
      k
        .selectFrom('approval_request')
        .select(['id', 'domain'])
        .where('mapping_id', '=', p('mapping'))
        .where('type', '=', p('type') as 'site_signup')
        .where('status', '=', p('status') as 'pending'),
    );
    this.grantsOfMapping = new Prepared(database, (k, p) =>
      k
        .selectFrom('approval_grant')
        .select(['domain', 'kind', 'expires_at', 'consumed_at'])
        .where('mapping_id', '=', p('mapping'))
        .where('type', '=', p('type') as 'site_signup'),
    );
  }

  /** The mapping of an account on a device with its sign-up toggle (prepared). */
  signupMapping(systemId: string, linuxUsername: string) {
    return this.mappingOfAccount.first({ system: systemId, account: linuxUsername });
  }

  /** The mapping's pending sign-up requests (prepared). */
  pendingSignups(mappingId: string) {
    return this.pendingOfMapping.all({ mapping: mappingId, type: 'site_signup', status: 'pending' });
  }

  /** The mapping's sign-up grants, used or not (prepared). */
  signupGrants(mappingId: string) {
    return this.grantsOfMapping.all({ mapping: mappingId, type: 'site_signup' });
  }

  /** The device's name and, when the account is mapped, its child's overlay settings. */
  accountSettings(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('agent_device')
      .leftJoin('device_mapping', (join) =>
        join
          .onRef('device_mapping.system_id', '=', 'agent_device.system_id')
          .on('device_mapping.linux_username', '=', linuxUsername),
      )
      .leftJoin('managed_user', 'managed_user.id', 'device_mapping.managed_user_id')
      .select([
        'agent_device.hostname',
        'agent_device.display_name',
        'managed_user.id as managed_user_id',
        'managed_user.name as child_name',
        'managed_user.overlay_age_tier',
        'managed_user.overlay_parent_note',
      ])
      .where('agent_device.system_id', '=', systemId)
      .executeTakeFirst();
  }

  /** The mapping of an account on a device, with what sign-up enforcement needs. */
  mappingForAccount(systemId: string, linuxUsername: string) {
    return this.db
      .selectFrom('device_mapping')
      .select(['id', 'managed_user_id', 'household_id', 'enforce_signup_approvals'])
      .where('system_id', '=', systemId)
      .where('linux_username', '=', linuxUsername)
      .executeTakeFirst();
  }

  mapping(householdId: string, mappingId: string) {
    return this.db
      .selectFrom('device_mapping')
      .innerJoin('agent_device', 'agent_device.system_id', 'device_mapping.system_id')
      .select([
        'device_mapping.id',
        'device_mapping.managed_user_id',
        'device_mapping.system_id',
        'device_mapping.linux_username',
        'device_mapping.enforce_signup_approvals',
        'device_mapping.screenshot_interval_minutes',
        'agent_device.platform',
        'agent_device.agent_version',
      ])
      .where('device_mapping.household_id', '=', householdId)
      .where('device_mapping.id', '=', mappingId)
      .executeTakeFirst();
  }

  /** Changes what the body names of a mapping's settings; a field left out keeps its value. */
  async setSettings(
    mappingId: string,
    change: { enforce_signup_approvals?: boolean; screenshot_interval_minutes?: number },
  ): Promise<void> {
    const set = {
      ...(change.enforce_signup_approvals !== undefined
        ? { enforce_signup_approvals: change.enforce_signup_approvals ? 1 : 0 }
        : {}),
      ...(change.screenshot_interval_minutes !== undefined
        ? { screenshot_interval_minutes: change.screenshot_interval_minutes }
        : {}),
    };
    if (!Object.keys(set).length) return;
    await this.db.updateTable('device_mapping').set(set).where('id', '=', mappingId).execute();
  }

  pendingRequest(mappingId: string, type: string, domain: string) {
    return this.db
      .selectFrom('approval_request')
      .select(['id'])
      .where('mapping_id', '=', mappingId)
      .where('type', '=', type as ApprovalRequestTable['type'])
      .where('domain', '=', domain)
      .where('status', '=', 'pending')
      .executeTakeFirst();
  }

  async insertRequest(row: ApprovalRequestTable): Promise<void> {
    await this.db.insertInto('approval_request').values(row).execute();
  }

  private requests() {
    return this.db
      .selectFrom('approval_request')
      .leftJoin('managed_user', 'managed_user.id', 'approval_request.managed_user_id')
      .selectAll('approval_request')
      .select('managed_user.name as managed_user_name');
  }

  getRequest(householdId: string, id: string) {
    return this.requests()
      .where('approval_request.household_id', '=', householdId)
      .where('approval_request.id', '=', id)
      .executeTakeFirst();
  }

  listRequests(filter: RequestFilter) {
    let q = this.requests().where('approval_request.household_id', '=', filter.householdId);
    if (filter.status)
      q = q.where('approval_request.status', '=', filter.status as ApprovalRequestTable['status']);
    if (filter.type) q = q.where('approval_request.type', '=', filter.type as ApprovalRequestTable['type']);
    if (filter.managedUserId) q = q.where('approval_request.managed_user_id', '=', filter.managedUserId);
    if (filter.onlyChildren) {
      if (!filter.onlyChildren.length) return Promise.resolve([]);
      q = q.where('approval_request.managed_user_id', 'in', filter.onlyChildren);
    }
    return q
      .orderBy('approval_request.requested_at', 'desc')
      .orderBy('approval_request.id', 'desc')
      .limit(500)
      .execute();
  }

  async countPending(householdId: string, onlyChildren: string[] | null): Promise<number> {
    if (!onlyChildren)
      return Number((await this.pendingOfHousehold.first({ household: householdId }))?.n ?? 0);
    let q = this.db
      .selectFrom('approval_request')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('household_id', '=', householdId)
      .where('status', '=', 'pending');
    if (onlyChildren) {
      if (!onlyChildren.length) return 0;
      q = q.where('managed_user_id', 'in', onlyChildren);
    }
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /** Decides a pending request; false when it was decided meanwhile. */
  async decide(
    id: string,
    changes: Pick<
      ApprovalRequestTable,
      'status' | 'decided_at' | 'decided_by' | 'grant' | 'approved_minutes'
    >,
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('approval_request')
      .set(changes)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async insertGrant(row: ApprovalGrantTable): Promise<void> {
    await this.db.insertInto('approval_grant').values(row).execute();
  }

  listGrants(mappingId: string, type: ApprovalGrantTable['type']) {
    return this.db
      .selectFrom('approval_grant')
      .select(['id', 'domain', 'kind', 'source_request_id', 'created_at', 'expires_at', 'consumed_at'])
      .where('mapping_id', '=', mappingId)
      .where('type', '=', type)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async deleteGrant(mappingId: string, grantId: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('approval_grant')
      .where('mapping_id', '=', mappingId)
      .where('id', '=', grantId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  async consumeOnceGrants(mappingId: string, domains: string[], at: string): Promise<void> {
    await this.db
      .updateTable('approval_grant')
      .set({ consumed_at: at })
      .where('mapping_id', '=', mappingId)
      .where('type', '=', 'site_signup')
      .where('kind', '=', 'once')
      .where('consumed_at', 'is', null)
      .where('domain', 'in', domains)
      .execute();
  }

  async insertAdjustment(row: TimeAdjustmentTable): Promise<void> {
    await this.db.insertInto('time_adjustment').values(row).execute();
  }

  async upsertOnlineAccount(row: UserOnlineAccountTable): Promise<void> {
    await this.db
      .insertInto('user_online_account')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['household_id', 'owner_key', 'domain', 'username']).doUpdateSet({
          last_active_at: row.last_active_at,
          system_id: row.system_id,
          linux_username: row.linux_username,
        }),
      )
      .execute();
  }

  private onlineAccounts() {
    return this.db
      .selectFrom('user_online_account')
      .leftJoin('managed_user', 'managed_user.id', 'user_online_account.managed_user_id')
      .select([
        'user_online_account.id',
        'user_online_account.domain',
        'user_online_account.username',
        'user_online_account.managed_user_id',
        'managed_user.name as managed_user_name',
        'user_online_account.system_id',
        'user_online_account.linux_username',
        'user_online_account.first_detected_at',
        'user_online_account.last_active_at',
      ]);
  }

  getOnlineAccount(householdId: string, ownerKey: string, domain: string, username: string) {
    return this.onlineAccounts()
      .where('user_online_account.household_id', '=', householdId)
      .where('user_online_account.owner_key', '=', ownerKey)
      .where('user_online_account.domain', '=', domain)
      .where('user_online_account.username', '=', username)
      .executeTakeFirst();
  }

  listOnlineAccounts(filter: OnlineAccountFilter) {
    let q = this.onlineAccounts().where('user_online_account.household_id', '=', filter.householdId);
    if (filter.managedUserId) q = q.where('user_online_account.managed_user_id', '=', filter.managedUserId);
    if (filter.onlyChildren) {
      if (!filter.onlyChildren.length) return Promise.resolve([]);
      q = q.where('user_online_account.managed_user_id', 'in', filter.onlyChildren);
    }
    const needle = filter.q?.trim().toLowerCase();
    if (needle) {
      const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) =>
        eb.or([
          eb(sql`lower(user_online_account.domain)`, 'like', sql`${pattern} escape '\\'`),
          eb(sql`lower(user_online_account.username)`, 'like', sql`${pattern} escape '\\'`),
        ]),
      );
    }
    return q
      .orderBy(`user_online_account.${filter.sort}`, filter.order)
      .orderBy('user_online_account.id', filter.order)
      .limit(1000)
      .execute();
  }
}
