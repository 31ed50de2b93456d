import {
  type InstalledApp,
  type InstalledAppsReportMessage,
  MAX_CHUNKS_PER_REPORT,
  REPORT_ABANDON_MS,
} from '@hearth/protocol';

interface Partial {
  username: string;
  total: number;
  chunks: Map<number, InstalledApp[]>;
  hasFinal: boolean;
  reportedAt: string;
  lastAt: number;
}

export type ChunkOutcome =
  | { status: 'error'; error: string }
  | { status: 'pending' }
  | { status: 'complete'; username: string; apps: InstalledApp[]; reportedAt: string };

/** At most this many reports may be half-received from one device at a time. */
const REPORTS_IN_FLIGHT = 4;

/** Checks one app against the platform's identifier rules (docs/protocol.md, installed_apps_report). */
export function appProblem(platform: string, app: InstalledApp): string | null {
  if (platform === 'android') {
    if (app.match_type !== 'package') return 'android apps use match_type "package"';
    if (!/^\/android\/package\/[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/.test(app.identifier))
      return 'android identifiers are /android/package/<packageName>';
    return null;
  }
  if (platform === 'linux' || platform === 'windows') {
    if (app.match_type !== 'executable') return `${platform} apps use match_type "executable"`;
    const absolute =
      platform === 'linux'
        ? app.identifier.startsWith('/')
        : /^([A-Za-z]:[\\/]|\\\\|\/)/.test(app.identifier);
    if (!absolute) return `${platform} identifiers are absolute paths`;
    return null;
  }
  return `${platform} devices do not report installed applications`;
}

/**
 * Puts chunked installed_apps_report messages back together. Chunks may come in any order; a report
 * is complete once all chunk_total chunks are in and the final one is among them. Memory is bounded:
 * a few reports per device, a hundred chunks of a thousand apps each, dropped after ten quiet minutes.
 */
export class ReportAssembler {
  private readonly byDevice = new Map<string, Map<string, Partial>>();

  accept(
    systemId: string,
    platform: string,
    accounts: Set<string>,
    message: InstalledAppsReportMessage,
    now = Date.now(),
  ): ChunkOutcome {
    if (!accounts.has(message.linux_username))
      return {
        status: 'error',
        error: `The account "${message.linux_username}" was not in this device's hello.`,
      };
    if (message.chunk_index >= message.chunk_total)
      return { status: 'error', error: 'chunk_index must be below chunk_total.' };
    for (const [i, app] of message.apps.entries()) {
      const problem = appProblem(platform, app);
      if (problem) return { status: 'error', error: `apps[${i}]: ${problem}.` };
    }
    let reports = this.byDevice.get(systemId);
    if (!reports) {
      reports = new Map();
      this.byDevice.set(systemId, reports);
    }
    let report = reports.get(message.report_id);
    if (!report) {
      if (reports.size >= REPORTS_IN_FLIGHT)
        return { status: 'error', error: `At most ${REPORTS_IN_FLIGHT} reports may be in progress at once.` };
      report = {
        username: message.linux_username,
        total: message.chunk_total,
        chunks: new Map(),
        hasFinal: false,
        reportedAt: message.reported_at,
        lastAt: now,
      };
      reports.set(message.report_id, report);
    }
    if (report.total !== message.chunk_total || report.username !== message.linux_username) {
      // A report that contradicts itself is dropped whole: nothing of it will be applied.
      reports.delete(message.report_id);
      return {
        status: 'error',
        error:
          'chunk_total or linux_username differs from earlier chunks of this report; the report was dropped.',
      };
    }
    if (report.chunks.has(message.chunk_index))
      return { status: 'error', error: `Chunk ${message.chunk_index} was already received.` };
    if (report.total > MAX_CHUNKS_PER_REPORT)
      return { status: 'error', error: `A report has at most ${MAX_CHUNKS_PER_REPORT} chunks.` };
    report.chunks.set(message.chunk_index, message.apps);
    report.hasFinal ||= message.is_final;
    report.lastAt = now;
    if (message.is_final) report.reportedAt = message.reported_at;
    if (report.chunks.size < report.total || !report.hasFinal) return { status: 'pending' };
    reports.delete(message.report_id);
    if (reports.size === 0) this.byDevice.delete(systemId);
    const apps: InstalledApp[] = [];
    for (let i = 0; i < report.total; i++) apps.push(...(report.chunks.get(i) ?? []));
    return { status: 'complete', username: report.username, apps, reportedAt: report.reportedAt };
  }

  /** Drops reports whose chunks stopped coming; returns how many. */
  sweep(now = Date.now()): number {
    let dropped = 0;
    for (const [systemId, reports] of this.byDevice) {
      for (const [id, report] of reports) {
        if (now - report.lastAt > REPORT_ABANDON_MS) {
          reports.delete(id);
          dropped++;
        }
      }
      if (reports.size === 0) this.byDevice.delete(systemId);
    }
    return dropped;
  }

  inFlight(systemId: string): number {
    return this.byDevice.get(systemId)?.size ?? 0;
  }
}
