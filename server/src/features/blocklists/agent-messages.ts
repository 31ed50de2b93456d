import { PolicyAppliedMessage } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { AuthenticatedDevice } from '../../agent-channel/types.js';
import type { DomainPolicyService } from './policy.js';

/**
 * The domain policy's part of the agent channel: `policy_applied` (kind `domain`) records the version
 * an account enforces, and an error answer to a queued `domain_policy_changed` marks its push failed.
 */
export function registerAgentMessages(
  channel: AgentChannel,
  deps: {
    policy: DomainPolicyService;
    log: FastifyBaseLogger;
    /** The device policies' answers (kinds `linux` and `android`, DESIGN §12) share the message. */
    onDevicePolicyApplied?: (device: AuthenticatedDevice, message: PolicyAppliedMessage) => Promise<void>;
  },
): void {
  const { policy, log } = deps;
  channel.on<PolicyAppliedMessage>('policy_applied', PolicyAppliedMessage, async (device, message) => {
    if (message.kind === 'domain') return policy.onApplied(device, message);
    await deps.onDevicePolicyApplied?.(device, message);
  });
  channel.onAnswered((systemId, command, args, result) => {
    policy
      .onAnswered(systemId, command, args, result)
      .catch((err) => log.warn({ err }, 'could not record domain policy sync'));
  });
}
