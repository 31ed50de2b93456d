import type { ScheduleSyncView } from '@hearth/protocol';
import type { Kysely } from 'kysely';
import { nowIso } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { Prepared } from '../platform/db/prepared.js';
import type { Database, TimePolicySyncTable } from '../platform/db/schema.js';

// The delivery state of a child's versioned policies (the time policy of DESIGN §10, the domain policy
// of §11): one row per mapped (device, account) with the version pushed, its status and what the
// agent acknowledged, and the sync-status answer built from those rows. Each policy has its own table
// of the same shape.

export type PolicySyncStatus = TimePolicySyncTable['status'];
export type PolicySyncRow = TimePolicySyncTable;
export type PolicySyncTable = 'time_policy_sync' | 'domain_policy_sync';
export type SyncStatusItem = ScheduleSyncView['items'][number];

/** The first agent release that applies pushed policies; an older agent's mappings are `unsupported`. */
export const POLICY_MIN_AGENT = [0, 57, 0] as const;
/** Platforms whose agent speaks the channel and can enforce a child's policies; consoles cannot (yet). */
const POLICY_PLATFORMS = new Set(['linux', 'windows', 'android']);

function versionAtLeast(version: string | null, min: readonly number[]): boolean {
  if (!version) return false;
  const parts = version.split(/[.+-]/).map((p) => Number.parseInt(p, 10));
  for (let i = 0; i < min.length; i++) {
    const part = Number.isFinite(parts[i]) ? (parts[i] as number) : 0;
    if (part !== min[i]) return part > (min[i] as number);
  }
  return true;
}

/** A console: no agent; the worker's console sync writes the time policy to its vendor (DESIGN §13). */
export const isConsole = (device: { platform: string | null }): boolean =>
  device.platform === 'xbox' || device.platform === 'nintendo';

/** Whether the device behind a mapping can apply a pushed policy (docs/protocol.md). */
export function policySupported(device: { platform: string | null; agent_version: string | null }): boolean {
  return (
    POLICY_PLATFORMS.has(device.platform ?? '') && versionAtLeast(device.agent_version, POLICY_MIN_AGENT)
  );
}

/** A mapped account with the device fields the sync status shows. */
export interface SyncMapping {
  id: string;
  system_id: string;
  linux_username: string;
  hostname: string;
  display_name: string | null;
  platform: string;
  status: string;
  agent_version: string | null;
}

/** A mapped account with its device, as the policies' delivery and the usage figures read it. */
export interface MappingRow extends SyncMapping {
  connected_instance?: string | null;
  last_seen_at: string | null;
}

/**
 * The reads every versioned policy's delivery makes, on every usage report and push: the accounts
 * mapped to a child with their devices, and which child one device account belongs to. Prepared.
 */
export class MappingReads {
  private readonly ofChild: Prepared<'id', MappingRow>;
  private readonly ofAccount: Prepared<'system' | 'account', { id: string; managed_user_id: string }>;

  constructor(database: Db) {
    this.ofChild = new Prepared(database, (k, p) =>
      k
        .selectFrom('device_mapping as m')
        .innerJoin('agent_device as d', 'd.system_id', 'm.system_id')
        .select([
          'm.id',
          'm.system_id',
          'm.linux_username',
          'd.hostname',
          'd.display_name',
          'd.platform',
          'd.status',
          'd.agent_version',
          'd.connected_instance',
          'd.last_seen_at',
        ])
        .where('m.managed_user_id', '=', p('id'))
        .orderBy('m.created_at', 'asc'),
    );
    this.ofAccount = new Prepared(database, (k, p) =>
      k
        .selectFrom('device_mapping')
        .select(['id', 'managed_user_id'])
        .where('system_id', '=', p('system'))
        .where('linux_username', '=', p('account')),
    );
  }

  /** The child's mapped accounts, oldest mapping first. */
  mappingsOf(managedUserId: string): Promise<MappingRow[]> {
    return this.ofChild.all({ id: managedUserId });
  }

  /** The mapping of one account on one device, if it belongs to a child. */
  mappingOf(systemId: string, linuxUsername: string) {
    return this.ofAccount.first({ system: systemId, account: linuxUsername });
  }
}

/**
 * Whether the mapping's device hears the child's policies: approved, or waiting for approval (its
 * queue is sent once it is approved). An unenrolled or rejected device never hears from the child again.
 */
export const hearsPolicies = (m: { status: string }): boolean =>
  m.status === 'approved' || m.status === 'pending';

/**
 * One item per mapped account on an approved or pending device (an unenrolled or rejected device never
 * hears from the child again: it leaves the list): `synced` when it applied `version`, `pending` while
 * a push of it is on its way, `failed` when the agent answered an error, `unsupported` when it cannot.
 * A policy never set (version 0) counts as synced: there is nothing to apply.
 */
export function syncStatusItems(
  version: number,
  mappings: readonly SyncMapping[],
  rows: readonly PolicySyncRow[],
  consolesApply = false,
): SyncStatusItem[] {
  const byMapping = new Map(rows.map((r) => [r.mapping_id, r]));
  return mappings.filter(hearsPolicies).map((m) => {
    const row = byMapping.get(m.id);
    let status: PolicySyncStatus;
    if (!policySupported(m) && !(consolesApply && isConsole(m))) status = 'unsupported';
    else if (!row) status = version === 0 ? 'synced' : 'pending';
    else if (Number(row.version) < version) status = 'pending';
    else status = row.status;
    return {
      mapping_id: m.id,
      system_id: m.system_id,
      hostname: m.display_name ?? m.hostname,
      platform: m.platform,
      linux_username: m.linux_username,
      status,
      applied_version: row?.applied_version === null || !row ? null : Number(row.applied_version),
      last_attempt_at: row?.last_attempt_at ?? null,
      error: status === 'failed' ? (row?.error ?? null) : null,
    };
  });
}

/** The rows of one policy's sync table: SQL only. */
export class PolicySyncRepository {
  constructor(
    private readonly db: Kysely<Database>,
    // Both tables have the same columns; Kysely is told the first one's name for its types.
    private readonly table: PolicySyncTable,
  ) {}

  private get t(): 'time_policy_sync' {
    return this.table as 'time_policy_sync';
  }

  syncOf(managedUserId: string): Promise<PolicySyncRow[]> {
    return this.db.selectFrom(this.t).selectAll().where('managed_user_id', '=', managedUserId).execute();
  }

  /**
   * A push of `version` to a mapping begins: recorded as pending, or as unsupported when the device
   * cannot apply it. Answers whether to send it.
   */
  async beginPush(m: SyncMapping, managedUserId: string, version: number): Promise<boolean> {
    const supported = policySupported(m);
    await this.recordPush({
      mapping_id: m.id,
      managed_user_id: managedUserId,
      system_id: m.system_id,
      version,
      applied_version: null,
      last_attempt_at: nowIso(),
      error: null,
      status: supported ? 'pending' : 'unsupported',
    });
    return supported;
  }

  /** A push of `version` to a mapping began (or cannot be made): never lowers a newer push's row. */
  async recordPush(row: PolicySyncRow): Promise<void> {
    const { version, status, last_attempt_at, error } = row;
    await this.db
      .insertInto(this.t)
      .values(row)
      .onConflict((oc) =>
        oc
          .column('mapping_id')
          .doUpdateSet({ version, status, last_attempt_at, error })
          .where(`${this.t}.version`, '<=', version),
      )
      .execute();
  }

  /** The agent answered the push of `version`; an answer to an older push changes nothing. */
  async recordAnswer(
    mappingId: string,
    version: number,
    answer: { status: PolicySyncStatus; applied_version: number | null; error: string | null; at: string },
  ): Promise<void> {
    await this.db
      .updateTable(this.t)
      .set({
        status: answer.status,
        error: answer.error,
        last_attempt_at: answer.at,
        ...(answer.applied_version !== null ? { applied_version: answer.applied_version } : {}),
      })
      .where('mapping_id', '=', mappingId)
      .where('version', '=', version)
      .execute();
  }
}
