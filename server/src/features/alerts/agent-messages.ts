import { AlertEventMessage } from '@hearth/protocol';
import type { AgentChannel } from '../../agent-channel/channel.js';
import { REFUSED } from '../../agent-channel/dispatch.js';
import { AlertRefused, type AlertService } from './service.js';

/** Alerts' agent message: an event the agent saw on the device (clock tampering, …). */
export function registerAgentMessages(channel: AgentChannel, deps: { alerts: AlertService }): void {
  channel.on<AlertEventMessage>('alert_event', AlertEventMessage, async (device, message) => {
    try {
      await deps.alerts.agentEvent(device, message);
    } catch (err) {
      if (!(err instanceof AlertRefused)) throw err;
      device.send({ type: 'error', code: err.code, message: err.message });
      // A reserved kind or an oversize detail counts as a refused frame; an alert over the budget does not.
      return err.code === 'invalid_message' ? REFUSED : undefined;
    }
    return undefined;
  });
}
