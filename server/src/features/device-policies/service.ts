import {
  type AndroidDevicePolicy,
  type AndroidDevicePolicyView,
  type DevicePolicyKind,
  type DevicePolicySync,
  LINUX_POLICY_RULES,
  type LinuxDevicePolicy,
  type LinuxDevicePolicyView,
  type PolicyAppliedMessage,
  type RuleResult,
  type SetDevicePolicyArgs,
} from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { hearsPolicies, isConsole, policySupported } from '../../agent-channel/policy-sync.js';
import type { AuthenticatedDevice, CommandResult } from '../../agent-channel/types.js';
import type { SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import type { AccessService } from '../access/service.js';
import type { DeviceService } from '../devices/service.js';
import type { DevicePolicyRepository, DevicePolicyRow } from './repository.js';

export const DEVICE_POLICY_COMMAND = 'set_device_policy';

export const DEFAULT_LINUX_POLICY: LinuxDevicePolicy = {
  ...(Object.fromEntries(LINUX_POLICY_RULES.map((r) => [r, false])) as Omit<
    LinuxDevicePolicy,
    'allowed_extension_ids'
  >),
  allowed_extension_ids: [],
};

export const DEFAULT_ANDROID_POLICY: AndroidDevicePolicy = {
  camera_disabled: false,
  microphone_disabled: false,
  screen_capture_disabled: false,
  install_apps_disabled: false,
  uninstall_apps_disabled: false,
  factory_reset_disabled: false,
  bluetooth_disabled: false,
  location_mode: 'user_choice',
};

const PLATFORM_NAMES: Record<string, string> = {
  linux: 'Linux',
  android: 'Android',
  windows: 'Windows',
  xbox: 'Xbox',
  nintendo: 'Nintendo',
};

/** The agent's per-rule outcomes, as stored (only well-formed entries). */
function parseRules(text: string | null): Record<string, RuleResult> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps only the document's own fields, in order, filling what an older row lacks with the defaults. */
function documentOf<T extends object>(defaults: T, text: string | undefined): T {
  let stored: Record<string, unknown> = {};
  try {
    stored = text ? JSON.parse(text) : {};
  } catch {}
  return Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, k in stored ? stored[k] : v])) as T;
}

/** A device the policy targets: what the sync state and the push read of it. */
interface Target {
  scopeKey: string;
  householdId: string;
  systemId: string;
  mappingId: string | null;
  linuxUsername: string | null;
  kind: DevicePolicyKind;
  device: { platform: string; status: string; agent_version: string | null };
}

/**
 * Device policies (DESIGN §12): the Linux document per mapping, the Android one per mapping and
 * device-wide. A PUT replaces the document, raises its version and pushes `set_device_policy`
 * through the durable queue (a newer push replaces a queued one for the same kind and account); the
 * agent's `policy_applied` of that version, with its per-rule outcomes, makes it synced (or failed).
 */
export class DevicePolicyService {
  constructor(
    private readonly repo: DevicePolicyRepository,
    private readonly access: AccessService,
    private readonly devices: DeviceService,
    private readonly events: EventPublisher,
    private readonly log: FastifyBaseLogger,
  ) {}

  // ——— the parent's routes ———

  async mappingPolicy(actor: SessionAuth, mappingId: string, kind: 'linux'): Promise<LinuxDevicePolicyView>;
  async mappingPolicy(
    actor: SessionAuth,
    mappingId: string,
    kind: 'android',
  ): Promise<AndroidDevicePolicyView>;
  async mappingPolicy(
    actor: SessionAuth,
    mappingId: string,
    kind: DevicePolicyKind,
  ): Promise<LinuxDevicePolicyView | AndroidDevicePolicyView> {
    const target = await this.mappingTarget(actor, mappingId, kind, 'view');
    return this.view(target, await this.repo.get(target.scopeKey));
  }

  async replaceMappingPolicy(
    actor: SessionAuth,
    mappingId: string,
    kind: DevicePolicyKind,
    policy: LinuxDevicePolicy | AndroidDevicePolicy,
  ) {
    const target = await this.mappingTarget(actor, mappingId, kind, 'manage');
    return this.replace(actor, target, policy);
  }

  async devicePolicy(actor: SessionAuth, systemId: string): Promise<AndroidDevicePolicyView> {
    const target = await this.deviceTarget(actor, systemId, 'view');
    return this.view(target, await this.repo.get(target.scopeKey)) as AndroidDevicePolicyView;
  }

  async replaceDevicePolicy(actor: SessionAuth, systemId: string, policy: AndroidDevicePolicy) {
    const target = await this.deviceTarget(actor, systemId, 'sensitive');
    return this.replace(actor, target, policy) as Promise<AndroidDevicePolicyView>;
  }

  private async mappingTarget(
    actor: SessionAuth,
    mappingId: string,
    kind: DevicePolicyKind,
    need: 'view' | 'manage',
  ): Promise<Target> {
    await this.access.requireMapping(actor, mappingId, need);
    const m = await this.repo.mapping(actor.householdId, mappingId);
    if (!m) throw notFound('The mapping');
    // Reading another platform's policy answers `unsupported`; setting it is a mistake (400).
    if (need === 'manage') requireKind(kind, m.platform, 'mapping');
    return {
      scopeKey: `mapping:${m.id}`,
      householdId: actor.householdId,
      systemId: m.system_id,
      mappingId: m.id,
      linuxUsername: m.linux_username,
      kind,
      device: m,
    };
  }

  private async deviceTarget(
    actor: SessionAuth,
    systemId: string,
    need: 'view' | 'sensitive',
  ): Promise<Target> {
    const device = await this.devices.loadDevice(actor, systemId, need);
    if (need === 'sensitive') requireKind('android', device.platform, 'device');
    return {
      scopeKey: `device:${systemId}`,
      householdId: actor.householdId,
      systemId,
      mappingId: null,
      linuxUsername: null,
      kind: 'android',
      device,
    };
  }

  private view(
    target: Target,
    row: DevicePolicyRow | undefined,
  ): LinuxDevicePolicyView & AndroidDevicePolicyView {
    const document =
      target.kind === 'linux'
        ? documentOf(DEFAULT_LINUX_POLICY, row?.policy)
        : documentOf(DEFAULT_ANDROID_POLICY, row?.policy);
    const version = Number(row?.version ?? 0);
    const supported =
      target.device.platform === target.kind && policySupported(target.device) && !isConsole(target.device);
    const rules = parseRules(row?.rules ?? null);
    const sync: DevicePolicySync = {
      // Never set: nothing to apply.
      status: !supported ? 'unsupported' : row ? row.sync_status : 'synced',
      applied_version: row?.applied_version == null ? null : Number(row.applied_version),
      last_attempt_at: row?.last_attempt_at ?? null,
      error: row?.sync_status === 'failed' ? (row.error ?? null) : null,
      ...(rules ? { rules } : {}),
    };
    const scope = target.mappingId ? { mapping_id: target.mappingId } : { system_id: target.systemId };
    return { ...scope, version, ...document, sync } as LinuxDevicePolicyView & AndroidDevicePolicyView;
  }

  private async replace(actor: SessionAuth, target: Target, policy: LinuxDevicePolicy | AndroidDevicePolicy) {
    const document =
      target.kind === 'linux'
        ? documentOf(DEFAULT_LINUX_POLICY, JSON.stringify(policy))
        : documentOf(DEFAULT_ANDROID_POLICY, JSON.stringify(policy));
    if ('allowed_extension_ids' in document)
      document.allowed_extension_ids = [...new Set(document.allowed_extension_ids)];
    const supported =
      policySupported(target.device) && !isConsole(target.device) && hearsPolicies(target.device);
    const version = await this.repo.replace({
      scope_key: target.scopeKey,
      household_id: target.householdId,
      system_id: target.systemId,
      mapping_id: target.mappingId,
      linux_username: target.linuxUsername,
      kind: target.kind,
      policy: JSON.stringify(document),
      updated_at: nowIso(),
      updated_by: actor.parentId,
      sync_status: supported ? 'pending' : 'unsupported',
    });
    if (supported) await this.push(target, version, document);
    return this.view(target, await this.repo.get(target.scopeKey));
  }

  // ——— delivery ———

  private async push(
    target: Target,
    version: number,
    policy: LinuxDevicePolicy | AndroidDevicePolicy,
  ): Promise<void> {
    const args: SetDevicePolicyArgs = {
      kind: target.kind,
      ...(target.linuxUsername !== null ? { linux_username: target.linuxUsername } : {}),
      version,
      policy,
    };
    try {
      const outcome = await this.devices.command(
        target.systemId,
        DEVICE_POLICY_COMMAND,
        { ...args },
        {
          coalesceKey: coalesceKey(target.kind, target.linuxUsername),
        },
      );
      // A delivered push waits for the agent's policy_applied; an error answer fails it.
      if (outcome.delivered && outcome.error !== undefined)
        await this.recordFailure(target.householdId, target.systemId, args, outcome.error);
    } catch (err) {
      this.log.warn({ err, system_id: target.systemId }, 'could not send set_device_policy');
      await this.recordFailure(target.householdId, target.systemId, args, (err as Error).message);
    }
  }

  private async recordFailure(
    householdId: string,
    systemId: string,
    args: { kind: DevicePolicyKind; linux_username?: string; version: number },
    error: unknown,
  ): Promise<void> {
    const scopeKey = await this.scopeOf(systemId, args.kind, args.linux_username);
    if (!scopeKey) return;
    const text = typeof error === 'string' ? error : JSON.stringify(error ?? 'failed');
    await this.repo.recordDelivery(scopeKey, args.version, {
      sync_status: 'failed',
      error: text.slice(0, 500),
      at: nowIso(),
    });
    this.events.publish(householdId, 'device_policy_applied', {
      system_id: systemId,
      kind: args.kind,
      linux_username: args.linux_username ?? null,
      version: args.version,
      ok: false,
    });
  }

  /** The row a (device, kind, account) names: the account's mapping, or the device-wide Android one. */
  private async scopeOf(
    systemId: string,
    kind: DevicePolicyKind,
    linuxUsername: string | undefined,
  ): Promise<string | null> {
    if (linuxUsername === undefined) return kind === 'android' ? `device:${systemId}` : null;
    const mapping = await this.repo.mappingOf(systemId, linuxUsername);
    return mapping ? `mapping:${mapping.id}` : null;
  }

  /**
   * An account no longer belongs to a child: its device is sent the all-false policy (version 0, which
   * an agent applies whatever version it holds), so nothing of the child's restrictions stays on it.
   */
  async release(
    device: { system_id: string; platform: string; agent_version: string | null },
    linuxUsername: string,
  ): Promise<void> {
    if (!policySupported(device)) return;
    const kind: DevicePolicyKind | null =
      device.platform === 'linux' ? 'linux' : device.platform === 'android' ? 'android' : null;
    if (!kind) return;
    const args: SetDevicePolicyArgs = {
      kind,
      linux_username: linuxUsername,
      version: 0,
      policy: kind === 'linux' ? DEFAULT_LINUX_POLICY : DEFAULT_ANDROID_POLICY,
    };
    await this.devices.command(
      device.system_id,
      DEVICE_POLICY_COMMAND,
      { ...args },
      {
        coalesceKey: coalesceKey(kind, linuxUsername),
      },
    );
  }

  /** A queued push reached the device and was answered (the channel's onAnswered hook). */
  async onAnswered(
    systemId: string,
    command: string,
    args: Record<string, unknown>,
    result: CommandResult,
    householdOf: (systemId: string) => Promise<string | undefined>,
  ): Promise<void> {
    if (command !== DEVICE_POLICY_COMMAND || result.status !== 'error') return;
    if (args.kind !== 'linux' && args.kind !== 'android') return;
    if (typeof args.version !== 'number' || args.version === 0) return;
    const householdId = await householdOf(systemId);
    if (!householdId) return;
    await this.recordFailure(
      householdId,
      systemId,
      {
        kind: args.kind,
        version: args.version,
        ...(typeof args.linux_username === 'string' ? { linux_username: args.linux_username } : {}),
      },
      result.error,
    );
  }

  /**
   * The agent's `policy_applied` of kind `linux` or `android`: synced when every rule it reports was
   * applied or cannot be on this system; failed, with the failed rules named, when one failed.
   */
  async onApplied(device: AuthenticatedDevice, message: PolicyAppliedMessage): Promise<void> {
    const kind = message.kind as DevicePolicyKind;
    if (message.linux_username !== undefined && !device.linuxUsers.has(message.linux_username)) {
      device.send({
        type: 'error',
        code: 'unknown_account',
        message: `The account "${message.linux_username}" was not in this device's hello.`,
      });
      return;
    }
    if (message.version === 0) return;
    const scopes = await this.answeredScopes(device.systemId, kind, message);
    const failed = Object.entries(message.rules ?? {}).filter(([, r]) => r.status === 'failed');
    const ok = failed.length === 0;
    const error = ok
      ? null
      : failed
          .map(([rule, r]) => (r.reason ? `${rule}: ${r.reason}` : rule))
          .join('; ')
          .slice(0, 500);
    for (const scope of scopes) {
      const current = await this.repo.recordApplied(scope.scope_key, message.version, {
        ok,
        error,
        rules: message.rules ? JSON.stringify(message.rules) : null,
        at: nowIso(),
      });
      if (!current) continue;
      this.events.publish(device.householdId, 'device_policy_applied', {
        system_id: device.systemId,
        kind,
        linux_username: scope.linux_username,
        version: message.version,
        ok,
      });
    }
  }

  /**
   * The policies a `policy_applied` answers. It names its account, or (the Android device-wide policy)
   * none. DESIGN §12 writes the answer as `{kind, version}` alone, so an answer that names no account and
   * is not the device-wide one answers each of the device's policies of that kind still waiting for
   * exactly that version.
   */
  private async answeredScopes(
    systemId: string,
    kind: DevicePolicyKind,
    message: PolicyAppliedMessage,
  ): Promise<{ scope_key: string; linux_username: string | null }[]> {
    const scopeKey = await this.scopeOf(systemId, kind, message.linux_username);
    const row = scopeKey ? await this.repo.get(scopeKey) : undefined;
    if (scopeKey && row?.kind === kind)
      return [{ scope_key: scopeKey, linux_username: message.linux_username ?? null }];
    if (message.linux_username !== undefined) return [];
    return this.repo.waitingFor(systemId, kind, message.version);
  }
}

/** One queued push per (kind, account): a newer one replaces it. */
const coalesceKey = (kind: DevicePolicyKind, linuxUsername: string | null) =>
  `${DEVICE_POLICY_COMMAND}:${kind}:${linuxUsername ?? '*'}`;

function requireKind(kind: DevicePolicyKind, platform: string, what: 'mapping' | 'device'): void {
  if (platform === kind) return;
  const name = PLATFORM_NAMES[platform] ?? platform;
  const wanted = PLATFORM_NAMES[kind];
  throw invalidRequest(
    what === 'mapping'
      ? `This mapping's device is a ${name} device; a ${wanted} device policy applies only to ${wanted} devices.`
      : `This is a ${name} device; the device-wide policy applies only to Android devices.`,
  );
}
