import { AppIconReportMessage, InstalledAppsReportMessage } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { AppPolicyService } from './policy.js';
import type { InventoryService } from './service.js';

/** Partial reports are looked at this often for ones the agent abandoned. */
const ASSEMBLER_SWEEP_MS = 60_000;

/**
 * Inventory's agent messages: installed-apps reports (in chunks) and icons, each answered with an
 * ack, and the recording of app-policy pushes the agent answered from its queue. Returns the stop
 * for the sweeper of abandoned partial reports.
 */
export function registerAgentMessages(
  channel: AgentChannel,
  deps: { inventory: InventoryService; appPolicy: AppPolicyService; log: FastifyBaseLogger },
): () => void {
  const { inventory, appPolicy, log } = deps;
  // A malformed report or icon is refused with the ack the agent waits for, saying why.
  channel.on<InstalledAppsReportMessage>(
    'installed_apps_report',
    InstalledAppsReportMessage,
    (device, m) => inventory.onReportChunk(device, m),
    (device, m, why) =>
      device.send({
        type: 'installed_apps_report_ack',
        report_id: m.report_id ?? null,
        success: false,
        pending: false,
        apps_upserted: 0,
        apps_removed: 0,
        apps_total: 0,
        error: why,
      }),
  );
  channel.on<AppIconReportMessage>(
    'app_icon_report',
    AppIconReportMessage,
    (device, m) => inventory.onIcon(device, m),
    (device, m, why) =>
      device.send({
        type: 'app_icon_report_ack',
        content_hash: m.content_hash ?? null,
        success: false,
        duplicate: false,
        error: why,
      }),
  );
  channel.onAnswered((systemId, command, args, result) => {
    appPolicy
      .onAnswered(systemId, command, args, result)
      .catch((err) => log.warn({ err }, 'could not record policy sync'));
  });
  // The abandon time is on the channel's clock, so tests can watch reports expire.
  const abandonMs = channel.timings.reportAbandonMs;
  const sweeper = setInterval(
    () => inventory.assembler.sweep(Date.now(), abandonMs),
    Math.min(ASSEMBLER_SWEEP_MS, Math.max(10, abandonMs / 4)),
  );
  sweeper.unref();
  return () => clearInterval(sweeper);
}
