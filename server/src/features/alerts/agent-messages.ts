import { AlertEventMessage } from '@hearth/protocol';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { AlertService } from './service.js';

/** Alerts' agent message: an event the agent saw on the device (clock tampering, …). */
export function registerAgentMessages(channel: AgentChannel, deps: { alerts: AlertService }): void {
  channel.on<AlertEventMessage>('alert_event', AlertEventMessage, (device, message) =>
    deps.alerts.agentEvent(device, message),
  );
}
