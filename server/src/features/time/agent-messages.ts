import type { FastifyBaseLogger } from 'fastify';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { TimeService } from './service.js';

/**
 * Time's part of the agent channel: `set_time_policy` answers the agent gave from its queue (after
 * it reconnected) are recorded as each mapping's sync state.
 */
export function registerAgentMessages(
  channel: AgentChannel,
  deps: { time: TimeService; log: FastifyBaseLogger },
): void {
  const { time, log } = deps;
  channel.onAnswered((systemId, command, args, result) => {
    time
      .onAnswered(systemId, command, args, result)
      .catch((err) => log.warn({ err }, 'could not record time policy sync'));
  });
}
