import { UsageReportMessage } from '@hearth/protocol';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { AuthenticatedDevice } from '../../agent-channel/types.js';
import { nowIso } from '../../platform/clock.js';
import type { UsageRepository } from './repository.js';

/** Usage's agent message: the day's running screen-time total of one account the hello named. */
export function registerAgentMessages(
  channel: AgentChannel,
  deps: {
    usage: UsageRepository;
    /** Told after a report was recorded (the time feature answers the child's other devices). */
    onRecorded?: (device: AuthenticatedDevice, report: UsageReportMessage) => Promise<void>;
  },
): void {
  channel.on<UsageReportMessage>('usage_report', UsageReportMessage, async (device, report) => {
    if (!device.linuxUsers.has(report.linux_username)) {
      device.send({
        type: 'error',
        code: 'unknown_account',
        message: `The account "${report.linux_username}" was not in this device's hello.`,
      });
      return;
    }
    await deps.usage.recordUsage(
      device.systemId,
      report.linux_username,
      report.date,
      report.seconds_used,
      nowIso(),
    );
    await deps.onRecorded?.(device, report);
  });
}
