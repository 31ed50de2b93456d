import {
  type InstalledApp,
  type InstalledAppsReportMessage,
  MAX_CHUNKS_PER_REPORT,
  MAX_PENDING_REPORT_BYTES,
  REPORT_ABANDON_MS,
} from '@hearth/protocol';

interface Partial {
  username: string;
  total: number;
  chunks: Map<number, InstalledApp[]>;
  hasFinal: boolean;
  reportedAt: string;
  lastAt: number;
  /** What its chunks count against the device's budget (`chunkBytes`). */
  bytes: number;
}

/** A device's half-received reports and the bytes they hold. */
interface DeviceReports {
  reports: Map<string, Partial>;
  bytes: number;
}

export type ChunkOutcome =
  | { status: 'error'; error: string }
  | { status: 'pending' }
  | { status: 'complete'; username: string; apps: InstalledApp[]; reportedAt: string };

/** At most this many reports may be half-received from one device at a time. */
const REPORTS_IN_FLIGHT = 4;
const MiB = 1024 * 1024;

/** What a chunk's apps count against the budget: the UTF-8 length of their text, 64 bytes an app more. */
export function chunkBytes(apps: InstalledApp[]): number {
  let bytes = 0;
  for (const app of apps)
    bytes +=
      64 +
      Buffer.byteLength(app.application_name) +
      Buffer.byteLength(app.identifier) +
      Buffer.byteLength(app.version_name) +
      (app.icon_hash?.length ?? 0);
  return bytes;
}

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
 * is complete once all chunk_total chunks are in and the final one is among them. Memory is bounded
 * per device: at most 4 reports and 8 MiB of apps (`MAX_PENDING_REPORT_BYTES`) held at once; the
 * chunk that would go over is refused and its report dropped; a report with no chunk for ten minutes
 * is dropped by the sweep.
 */
export class ReportAssembler {
  private readonly byDevice = new Map<string, DeviceReports>();
  private total = 0;

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
    let device = this.byDevice.get(systemId);
    if (!device) {
      device = { reports: new Map(), bytes: 0 };
      this.byDevice.set(systemId, device);
    }
    let report = device.reports.get(message.report_id);
    if (!report) {
      if (device.reports.size >= REPORTS_IN_FLIGHT) {
        this.forgetIfEmpty(systemId, device);
        return { status: 'error', error: `At most ${REPORTS_IN_FLIGHT} reports may be in progress at once.` };
      }
      report = {
        username: message.linux_username,
        total: message.chunk_total,
        chunks: new Map(),
        hasFinal: false,
        reportedAt: message.reported_at,
        lastAt: now,
        bytes: 0,
      };
      device.reports.set(message.report_id, report);
    }
    if (report.total !== message.chunk_total || report.username !== message.linux_username) {
      // A report that contradicts itself is dropped whole: nothing of it will be applied.
      this.drop(systemId, device, message.report_id);
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
    const bytes = chunkBytes(message.apps);
    if (device.bytes + bytes > MAX_PENDING_REPORT_BYTES) {
      // A report missing a chunk can never complete: it is dropped now rather than held to expiry.
      this.drop(systemId, device, message.report_id);
      return {
        status: 'error',
        error: `This device's unfinished reports would hold more than ${MAX_PENDING_REPORT_BYTES / MiB} MiB; the report was dropped. Send fewer reports at once.`,
      };
    }
    report.chunks.set(message.chunk_index, message.apps);
    report.bytes += bytes;
    device.bytes += bytes;
    this.total += bytes;
    report.hasFinal ||= message.is_final;
    report.lastAt = now;
    if (message.is_final) report.reportedAt = message.reported_at;
    if (report.chunks.size < report.total || !report.hasFinal) return { status: 'pending' };
    this.drop(systemId, device, message.report_id);
    const apps: InstalledApp[] = [];
    for (let i = 0; i < report.total; i++) apps.push(...(report.chunks.get(i) ?? []));
    return { status: 'complete', username: report.username, apps, reportedAt: report.reportedAt };
  }

  /** Forgets a report and gives its bytes back. */
  private drop(systemId: string, device: DeviceReports, reportId: string): void {
    const report = device.reports.get(reportId);
    if (report) {
      device.reports.delete(reportId);
      device.bytes -= report.bytes;
      this.total -= report.bytes;
    }
    this.forgetIfEmpty(systemId, device);
  }

  private forgetIfEmpty(systemId: string, device: DeviceReports): void {
    if (device.reports.size === 0) this.byDevice.delete(systemId);
  }

  /** Drops reports whose chunks stopped coming `abandonMs` ago; returns how many. */
  sweep(now = Date.now(), abandonMs = REPORT_ABANDON_MS): number {
    let dropped = 0;
    for (const [systemId, device] of this.byDevice) {
      for (const [id, report] of device.reports) {
        if (now - report.lastAt > abandonMs) {
          this.drop(systemId, device, id);
          dropped++;
        }
      }
    }
    return dropped;
  }

  inFlight(systemId: string): number {
    return this.byDevice.get(systemId)?.reports.size ?? 0;
  }

  /** Bytes held for one device's unfinished reports, or for all devices (tests and figures). */
  heldBytes(systemId?: string): number {
    return systemId === undefined ? this.total : (this.byDevice.get(systemId)?.bytes ?? 0);
  }
}
