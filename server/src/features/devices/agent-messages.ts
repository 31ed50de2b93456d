import { OverlayStatusMessage } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { AuthenticatedDevice } from '../../agent-channel/types.js';
import { nowIso } from '../../platform/clock.js';
import type { EventPublisher } from '../../platform/events.js';
import type { DeviceRepository } from './repository.js';

/** Why an `overlay_status` that passed its schema is refused, or null to store it. */
export function overlayProblem(
  device: AuthenticatedDevice,
  message: OverlayStatusMessage,
): { code: string; message: string } | null {
  const seen = new Set<string>();
  for (const entry of message.overlays) {
    if (!device.linuxUsers.has(entry.linux_username))
      return {
        code: 'unknown_account',
        message: `The account "${entry.linux_username}" was not in this device's hello.`,
      };
    if (seen.has(entry.linux_username))
      return {
        code: 'invalid_message',
        message: `overlay_status: the account "${entry.linux_username}" is named twice.`,
      };
    seen.add(entry.linux_username);
  }
  return null;
}

/**
 * The devices feature's agent message: on which accounts Hearth Space shows now. The whole set
 * replaces the stored one; a change is announced as `device_status` so open device pages refresh.
 */
export function registerAgentMessages(
  channel: AgentChannel,
  deps: { devices: DeviceRepository; events: EventPublisher; log: FastifyBaseLogger },
): void {
  const refuse = (device: AuthenticatedDevice, code: string, message: string) => {
    deps.log.warn({ system_id: device.systemId, code, reason: message }, 'overlay status refused');
    device.send({ type: 'error', code, message });
  };
  channel.on<OverlayStatusMessage>(
    'overlay_status',
    OverlayStatusMessage,
    async (device, message) => {
      const problem = overlayProblem(device, message);
      if (problem) return refuse(device, problem.code, problem.message);
      const overlays = [...message.overlays]
        .sort((a, b) => (a.linux_username < b.linux_username ? -1 : 1))
        .map((o) => ({
          linux_username: o.linux_username,
          reason: o.reason,
          since: new Date(o.since).toISOString(),
          ...(o.context ? { context: o.context } : {}),
        }));
      if (await deps.devices.setOverlays(device.systemId, JSON.stringify(overlays), nowIso()))
        deps.events.publish(device.householdId, 'device_status', { system_id: device.systemId });
      return undefined;
    },
    (device, _message, why) => refuse(device, 'invalid_message', why),
  );
}
