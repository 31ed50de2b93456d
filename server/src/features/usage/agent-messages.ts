import { type InstalledApp, type UsageApp, UsageReportMessage } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { AuthenticatedDevice } from '../../agent-channel/types.js';
import { nowIso } from '../../platform/clock.js';
import { appProblem } from '../inventory/assembler.js';
import type { UsageRepository } from './repository.js';

const DAY_MS = 86_400_000;

/** Called after a report was recorded (wired to the cross-device `time_status`); must not throw. */
export type OnUsageRecorded = (
  device: AuthenticatedDevice,
  report: UsageReportMessage,
) => void | Promise<void>;

/**
 * Why a report that passed its schema is dropped, or null to record it: an account the hello did not
 * name, a date that is not a calendar day or lies more than a day from the server's (UTC) date, an app
 * the inventory's identifier rules refuse.
 */
export function reportProblem(
  device: AuthenticatedDevice,
  report: UsageReportMessage,
  now = Date.now(),
): { code: string; message: string } | null {
  if (!device.linuxUsers.has(report.linux_username))
    return {
      code: 'unknown_account',
      message: `The account "${report.linux_username}" was not in this device's hello.`,
    };
  const day = Date.parse(`${report.date}T00:00:00Z`);
  if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== report.date)
    return { code: 'invalid_message', message: `usage_report: "${report.date}" is not a calendar date.` };
  const today = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`);
  if (Math.abs(day - today) > DAY_MS)
    return {
      code: 'date_out_of_range',
      message: `usage_report: the date ${report.date} is more than a day from the server's date; check the device's clock.`,
    };
  for (const app of report.apps ?? []) {
    const problem = appProblem(device.platform, {
      ...app,
      application_name: '',
      version_name: '',
    } as InstalledApp);
    if (problem) return { code: 'invalid_message', message: `usage_report: ${problem} (${app.identifier}).` };
  }
  return null;
}

/** One entry per app; an app named twice keeps its larger total (one upsert cannot touch a row twice). */
function distinctApps(apps: readonly UsageApp[]): UsageApp[] {
  if (apps.length < 2) return [...apps];
  const byKey = new Map<string, UsageApp>();
  for (const app of apps) {
    const key = `${app.match_type}\u0000${app.identifier}`;
    const seen = byKey.get(key);
    if (!seen || app.seconds > seen.seconds) byKey.set(key, app);
  }
  return [...byKey.values()];
}

/**
 * Usage's agent message: the day's running screen-time total of one account the hello named, with
 * optional per-app totals. A report that breaks the input rules is dropped, logged with the device and
 * answered with an error frame; the socket stays open.
 */
export function registerAgentMessages(
  channel: AgentChannel,
  deps: { usage: UsageRepository; log: FastifyBaseLogger; onRecorded?: OnUsageRecorded },
): void {
  const { usage, log } = deps;
  const onRecorded = deps.onRecorded ?? (() => {});
  const drop = (device: AuthenticatedDevice, code: string, message: string) => {
    log.warn({ system_id: device.systemId, code, reason: message }, 'usage report dropped');
    device.send({ type: 'error', code, message });
  };
  channel.on<UsageReportMessage>(
    'usage_report',
    UsageReportMessage,
    async (device, report) => {
      const problem = reportProblem(device, report);
      if (problem) return drop(device, problem.code, problem.message);
      await usage.recordUsage(
        device.systemId,
        report.linux_username,
        report.date,
        report.seconds_used,
        distinctApps(report.apps ?? []),
        nowIso(),
      );
      try {
        await onRecorded(device, report);
      } catch (err) {
        log.error({ err, system_id: device.systemId }, 'usage report follow-up failed');
      }
    },
    (device, _report, why) => drop(device, 'invalid_message', why),
  );
}
