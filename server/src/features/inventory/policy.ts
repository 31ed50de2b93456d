import type { AppPolicyBody, AppPolicyView, AppRule } from '@hearth/protocol';
import { hearsPolicies } from '../../agent-channel/policy-sync.js';
import type { CommandResult } from '../../agent-channel/types.js';
import type { SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { conflict, invalidRequest } from '../../platform/errors.js';
import type { AccessService } from '../access/service.js';
import type { DeviceService } from '../devices/service.js';
import { appProblem } from './assembler.js';
import type { AppPolicyRepository, SyncStatus } from './policy-repository.js';

export const SYNC_COMMAND = 'sync_app_policy';

function parseRules(text: string | undefined): AppRule[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** Per-child application rules (allow, block, daily limit), versioned and pushed to the child's devices. */
export class AppPolicyService {
  constructor(
    private readonly repo: AppPolicyRepository,
    private readonly access: AccessService,
    private readonly devices: DeviceService,
  ) {}

  async get(actor: SessionAuth, managedUserId: string): Promise<AppPolicyView> {
    await this.access.requireChild(actor, managedUserId, 'view');
    return this.view(managedUserId);
  }

  private async view(managedUserId: string): Promise<AppPolicyView> {
    const policy = await this.repo.policyOf(managedUserId);
    const sync = await this.repo.syncOf(managedUserId);
    // An unenrolled or rejected device never gets rules again: it leaves the sync list and its counts.
    const mappings = (await this.repo.mappingsOf(managedUserId)).filter(hearsPolicies);
    return {
      managed_user_id: managedUserId,
      version: Number(policy?.version ?? 0),
      rules: parseRules(policy?.rules),
      updated_at: policy?.updated_at ?? null,
      sync: mappings.map((m) => {
        const s = sync.find((x) => x.system_id === m.system_id);
        return {
          system_id: m.system_id,
          hostname: m.display_name ?? m.hostname,
          linux_username: m.linux_username,
          version: s ? Number(s.version) : null,
          status: !policy ? 'none' : !s ? 'pending' : s.status,
          updated_at: s?.updated_at ?? null,
        };
      }),
    };
  }

  /** PUT replaces the rules, bumps the version and pushes it to each mapped device (queued while offline). */
  async put(actor: SessionAuth, managedUserId: string, body: AppPolicyBody): Promise<AppPolicyView> {
    await this.access.requireChild(actor, managedUserId, 'manage');
    const seen = new Set<string>();
    for (const [i, rule] of body.rules.entries()) {
      const platform =
        rule.match_type === 'package' ? 'android' : rule.identifier.startsWith('/') ? 'linux' : 'windows';
      const problem = appProblem(platform, {
        application_name: rule.application_name ?? 'app',
        identifier: rule.identifier,
        match_type: rule.match_type,
        version_name: '',
      });
      if (problem)
        throw invalidRequest(`rules[${i}]: ${problem}.`, [
          { path: `body/rules/${i}/identifier`, message: problem },
        ]);
      if (rule.action === 'limit' && !rule.daily_minutes)
        throw invalidRequest(`rules[${i}]: a limit needs daily_minutes.`, [
          { path: `body/rules/${i}/daily_minutes`, message: 'is required for limit' },
        ]);
      if (rule.action !== 'limit' && rule.daily_minutes !== undefined)
        throw invalidRequest(`rules[${i}]: daily_minutes belongs to limit rules only.`);
      const k = `${rule.match_type}:${rule.identifier}`;
      if (seen.has(k)) throw invalidRequest(`rules[${i}]: ${rule.identifier} has two rules.`);
      seen.add(k);
    }
    const at = nowIso();
    const saved = await this.repo.replaceRules(managedUserId, JSON.stringify(body.rules), {
      at,
      by: actor.parentId,
      expected: body.version,
    });
    if (!saved.saved)
      throw conflict(`The policy changed meanwhile (now version ${saved.current}); reload and try again.`);
    const version = saved.version;
    for (const m of await this.repo.mappingsOf(managedUserId)) {
      if (m.status !== 'approved') continue;
      await this.recordSync(managedUserId, m.system_id, version, 'pending', null);
      const args = {
        managed_user_id: managedUserId,
        linux_username: m.linux_username,
        version,
        rules: body.rules,
      };
      const outcome = await this.devices.command(m.system_id, SYNC_COMMAND, args, {
        coalesceKey: `${SYNC_COMMAND}:${m.linux_username}`,
      });
      if (outcome.delivered)
        await this.recordSync(
          managedUserId,
          m.system_id,
          version,
          outcome.error ? 'failed' : 'synced',
          outcome.error ? String(JSON.stringify(outcome.error)) : null,
        );
    }
    return this.view(managedUserId);
  }

  /**
   * An account no longer belongs to the child: a push with no rules (`managed_user_id` null, version
   * 0) tells its device to drop the child's app rules. It replaces a queued push for the account.
   */
  async release(systemId: string, linuxUsername: string): Promise<void> {
    await this.devices.command(
      systemId,
      SYNC_COMMAND,
      { managed_user_id: null, linux_username: linuxUsername, version: 0, rules: [] },
      { coalesceKey: `${SYNC_COMMAND}:${linuxUsername}` },
    );
  }

  /** A queued push reached the device and was answered. */
  async onAnswered(
    systemId: string,
    command: string,
    args: Record<string, unknown>,
    result: CommandResult,
  ): Promise<void> {
    if (
      command !== SYNC_COMMAND ||
      typeof args.managed_user_id !== 'string' ||
      typeof args.version !== 'number'
    )
      return;
    const failed = result.status !== 'ok';
    await this.recordSync(
      args.managed_user_id,
      systemId,
      args.version,
      failed ? 'failed' : 'synced',
      failed ? JSON.stringify(result) : null,
    );
  }

  private recordSync(
    managedUserId: string,
    systemId: string,
    version: number,
    status: SyncStatus,
    error: string | null,
  ): Promise<void> {
    return this.repo.recordSync(managedUserId, systemId, version, status, error, nowIso());
  }
}
