import {
  CLOSE_CODES,
  ENROLMENT_HELLOS_PER_MINUTE,
  type HelloMessage,
  MAX_PENDING_DEVICES,
} from '@hearth/protocol';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { Decision, Handshake, HandshakeSocket } from '../../agent-channel/types.js';
import type { Config } from '../../config.js';
import { nowIso } from '../../platform/clock.js';
import { randomHex, safeEqual, sha256Hex } from '../../platform/crypto.js';
import type { EventPublisher } from '../../platform/events.js';
import type { CounterStore } from '../../platform/rate-limit.js';
import { cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { HouseholdRepository } from '../household/repository.js';
import type { DeviceRepository, DeviceRow } from './repository.js';

/** How long an unenrolled agent gets to answer its `unenroll` before the socket is closed. */
const UNENROLL_ANSWER_MS = 2000;

export interface EnrolmentDeps {
  devices: DeviceRepository;
  households: HouseholdRepository;
  cache: ReadCache;
  events: EventPublisher;
  /** Counts enrolment hellos per household and per address. */
  counters: CounterStore;
  config: Pick<Config, 'agentToken'>;
}

/**
 * The agent's hello and what follows it (docs/protocol.md, "Hello"): a paired device authenticates
 * with its secure token, a new one enrolls with its household's token and waits for a parent, and
 * the parent's decision reaches the socket wherever it is held. The secure token is minted on the
 * instance holding the socket, so it never crosses the bus.
 */
export class Enrolment implements Handshake {
  /** Per household, the enrolment work under way on this instance (see `oneAtATime`). */
  private readonly enrolling = new Map<string, Promise<void>>();

  constructor(private readonly deps: EnrolmentDeps) {}

  async hello(socket: HandshakeSocket, hello: HelloMessage): Promise<void> {
    const { devices, events } = this.deps;
    // Every enrolment attempt counts against its address before anything is looked up, wrong tokens too.
    if (!hello.secure_token) {
      const wait = await this.overLimit(`address:${socket.address}`, ENROLMENT_HELLOS_PER_MINUTE.address);
      if (wait !== null)
        return this.tooMany(
          socket,
          'rate_limited',
          `too many enrolment hellos from this address; retry in ${wait} s`,
        );
    }
    const device = await devices.bySystemId(hello.system_id);
    const at = nowIso();
    const reported = {
      hostname: hello.hostname,
      agent_version: hello.agent_version,
      linux_users: JSON.stringify(hello.linux_users),
      last_seen_at: at,
      updated_at: at,
    };

    if (hello.secure_token) {
      const matches =
        !!device?.secure_token_hash && safeEqual(sha256Hex(hello.secure_token), device.secure_token_hash);
      if (!device || !matches) {
        socket.send({ type: 'auth_result', success: false, error: 'invalid_token' });
        return socket.close(CLOSE_CODES.authFailed, 'authentication failed');
      }
      if (device.status !== 'approved') {
        socket.send({ type: 'auth_result', success: false, error: `device_${device.status}` });
        const status = device.status;
        // Detached: the agent's answer arrives as a later frame, which waits behind this one.
        socket.detach(
          (status === 'unenrolled'
            ? socket.deliverQueued(device.system_id, 'unenroll', UNENROLL_ANSWER_MS)
            : Promise.resolve()
          ).finally(() => socket.close(CLOSE_CODES.deviceRejected, `device ${status}`)),
        );
        return;
      }
      await devices.update(device.system_id, { ...reported, connected_instance: socket.instanceId });
      await this.forgetChanged(device, reported);
      socket.bind(device.system_id, device.household_id, hello, 'authenticated');
      socket.send({ type: 'auth_result', success: true, system_id: device.system_id });
      events.publish(device.household_id, 'device_status', {
        system_id: device.system_id,
        status: 'approved',
        online: true,
      });
      socket.flushQueue();
      return;
    }

    const householdId = await this.householdForEnrollment(hello.enrollment_token);
    if (!householdId) {
      socket.send({ type: 'auth_result', success: false, error: 'invalid_enrollment_token' });
      return socket.close(CLOSE_CODES.authFailed, 'no valid enrollment token');
    }
    const wait = await this.overLimit(`household:${householdId}`, ENROLMENT_HELLOS_PER_MINUTE.household);
    if (wait !== null)
      return this.tooMany(
        socket,
        'rate_limited',
        `too many enrolment hellos for this household; retry in ${wait} s`,
      );
    if (device && device.household_id !== householdId) {
      socket.send({ type: 'pairing_status', status: 'rejected' });
      return socket.close(CLOSE_CODES.deviceRejected, 'this device belongs to another household');
    }
    if (device?.status === 'rejected') {
      socket.send({ type: 'pairing_status', status: 'rejected' });
      return socket.close(CLOSE_CODES.deviceRejected, 'device rejected');
    }
    if (device?.status === 'approved') {
      if (device.secure_token_hash) {
        // A paired device proves itself with its secure token. The household's token cannot take it
        // over: it is enrolled again only after a parent unenrols it.
        socket.send({ type: 'auth_result', success: false, error: 'device_already_paired' });
        return socket.close(
          CLOSE_CODES.authFailed,
          'device already paired: use its secure token, or a parent unenrols it first',
        );
      }
      // Approved while it was away: the token is made now, on the instance that holds the socket.
      await devices.update(device.system_id, { ...reported, connected_instance: socket.instanceId });
      await this.forgetChanged(device, reported);
      socket.bind(device.system_id, householdId, hello, 'pending');
      return this.issueToken(socket);
    }
    // Counting the waiting devices and adding one is done one hello at a time per household, so a
    // rush of hellos cannot all see room for themselves.
    const outcome = await this.oneAtATime(householdId, async () => {
      if (device?.status !== 'pending' && (await devices.countPending(householdId)) >= MAX_PENDING_DEVICES)
        return 'full';
      return (await this.openPending(socket, hello, householdId, device, reported, at))
        ? 'opened'
        : 'changed';
    });
    if (outcome === 'full')
      return this.tooMany(
        socket,
        'too_many_pending',
        `${MAX_PENDING_DEVICES} devices are already waiting for a parent in this household`,
      );
    if (outcome === 'changed') {
      // Another hello or a parent's decision changed the device since it was read: the agent asks again.
      socket.send({ type: 'auth_result', success: false, error: 'try_again' });
      return socket.close(1013, 'the device changed while it enrolled; try again');
    }
    socket.bind(hello.system_id, householdId, hello, 'pending');
    socket.send({ type: 'pairing_status', status: 'pending' });
    events.publish(householdId, 'device_pending', {
      system_id: hello.system_id,
      hostname: hello.hostname,
      platform: hello.platform,
    });
  }

  /**
   * Creates the device as pending, or re-opens a known one (pending, or unenrolled by a parent).
   * False when the device changed since it was read (created by another hello, decided by a parent),
   * so nothing was written.
   */
  private async openPending(
    socket: HandshakeSocket,
    hello: HelloMessage,
    householdId: string,
    device: DeviceRow | undefined,
    reported: Partial<DeviceRow>,
    at: string,
  ): Promise<boolean> {
    const { devices } = this.deps;
    if (!device) {
      try {
        await devices.insert({
          system_id: hello.system_id,
          household_id: householdId,
          hostname: hello.hostname,
          display_name: null,
          platform: hello.platform,
          status: 'pending',
          agent_version: hello.agent_version,
          linux_users: JSON.stringify(hello.linux_users),
          secure_token_hash: null,
          last_seen_at: at,
          created_at: at,
          updated_at: at,
          connected_instance: socket.instanceId,
        });
      } catch (err) {
        if (await devices.bySystemId(hello.system_id)) return false;
        throw err;
      }
      return true;
    }
    // Re-enrollment (a pending device saying hello again, or one a parent unenrolled) asks a parent again.
    const changes = {
      ...reported,
      platform: hello.platform,
      status: 'pending' as const,
      secure_token_hash: null,
      decided_at: null,
      connected_instance: socket.instanceId,
    };
    if (!(await devices.transition(device.system_id, [device.status], changes))) return false;
    await this.forgetChanged(device, changes);
    return true;
  }

  /** Runs `work` after the household's earlier enrolment work on this instance has finished. */
  private async oneAtATime<T>(householdId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.enrolling.get(householdId) ?? Promise.resolve();
    const run = previous.then(work);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.enrolling.set(householdId, settled);
    try {
      return await run;
    } finally {
      if (this.enrolling.get(householdId) === settled) this.enrolling.delete(householdId);
    }
  }

  /** Seconds until the window ends when `key` went over `max` enrolment hellos this minute, else null. */
  private async overLimit(key: string, max: number): Promise<number | null> {
    const window = await this.deps.counters.hit(`enrol:${key}`, 60_000);
    return window.count > max ? Math.max(1, Math.ceil((window.resetAt - Date.now()) / 1000)) : null;
  }

  /** Refuses a hello over a budget; the agent may try again later (close 4429). */
  private tooMany(socket: HandshakeSocket, error: string, reason: string): void {
    socket.send({ type: 'auth_result', success: false, error });
    socket.close(CLOSE_CODES.tooMany, reason);
  }

  /** Runs on the instance holding the device's socket, after the bus carried the decision here. */
  async decided(socket: HandshakeSocket, decision: Decision): Promise<void> {
    if (decision === 'approved') {
      if (socket.state === 'pending') await this.issueToken(socket);
    } else if (decision === 'rejected') {
      socket.send({ type: 'pairing_status', status: 'rejected' });
      socket.close(CLOSE_CODES.deviceRejected, 'device rejected');
    } else if (socket.systemId) {
      await socket.deliverQueued(socket.systemId, 'unenroll', UNENROLL_ANSWER_MS);
      socket.close(CLOSE_CODES.deviceRejected, 'device unenrolled');
    }
  }

  /** A device's socket went away: dashboards show it offline. */
  disconnected(systemId: string, householdId: string): void {
    this.deps.events.publish(householdId, 'device_status', { system_id: systemId, online: false });
  }

  private async issueToken(socket: HandshakeSocket): Promise<void> {
    const { systemId, householdId } = socket;
    if (!systemId || !householdId) return;
    const hex = randomHex(32);
    await this.deps.devices.update(systemId, { secure_token_hash: sha256Hex(hex), updated_at: nowIso() });
    await this.deps.cache.invalidate(cacheTags.device(systemId));
    socket.authenticate();
    socket.send({ type: 'pairing_approved', system_id: systemId, secure_token: hex });
    this.deps.events.publish(householdId, 'device_status', {
      system_id: systemId,
      status: 'approved',
      online: true,
    });
    socket.flushQueue();
  }

  /**
   * Drops cached reads a hello made stale, comparing the stored row with what was just written over
   * it: the device behind its token (platform, version, accounts, status, token) and the household's
   * children list (which shows hostname and platform).
   */
  private async forgetChanged(before: DeviceRow, written: Partial<DeviceRow>): Promise<void> {
    const changed = (key: keyof DeviceRow) => key in written && written[key] !== before[key];
    const named = changed('hostname') || changed('platform');
    const tags: string[] = [];
    if (named || (['agent_version', 'linux_users', 'status', 'secure_token_hash'] as const).some(changed))
      tags.push(cacheTags.device(before.system_id));
    if (named) tags.push(cacheTags.children(before.household_id));
    await this.deps.cache.invalidate(...tags);
  }

  /** The household an enrollment token belongs to; the operator's HEARTH_AGENT_TOKEN means the first one. */
  private async householdForEnrollment(token: string | undefined): Promise<string | null> {
    if (!token) return null;
    const { config, households } = this.deps;
    if (config.agentToken && safeEqual(token, config.agentToken))
      return (await households.firstHousehold())?.id ?? null;
    const row = await households.byEnrollmentToken(token);
    return row && safeEqual(row.enrollment_token, token) ? row.id : null;
  }
}

/** Makes the devices feature the channel's handshake. */
export function registerEnrolment(channel: AgentChannel, deps: EnrolmentDeps): void {
  channel.setHandshake(new Enrolment(deps));
}
