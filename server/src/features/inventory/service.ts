import { createHash } from 'node:crypto';
import type { AppIconReportMessage, InstalledApp, InstalledAppsReportMessage } from '@hearth/protocol';
import { MAX_ICON_BYTES } from '@hearth/protocol';
import type { AuthenticatedDevice } from '../../agent-channel/types.js';
import type { SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { sha256Hex } from '../../platform/crypto.js';
import { conflict } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import type { AccessService } from '../access/service.js';
import type { DeviceService } from '../devices/service.js';
import { ReportAssembler } from './assembler.js';
import type { AppRow, InventoryRepository } from './repository.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** A PNG starts with its signature and an IHDR chunk, and ends with IEND. */
export function looksLikePng(bytes: Buffer): boolean {
  return (
    bytes.length >= 33 &&
    bytes.subarray(0, 8).equals(PNG_SIGNATURE) &&
    bytes.toString('latin1', 12, 16) === 'IHDR' &&
    bytes.toString('latin1', bytes.length - 8, bytes.length - 4) === 'IEND'
  );
}

const key = (a: { identifier: string; match_type: string }) => `${a.match_type}\u0000${a.identifier}`;
export const iconUrl = (hash: string | null | undefined) => (hash ? `/api/apps/icons/${hash}` : null);

/**
 * The content hash of a report covers the account and its sorted apps only (not report_id or
 * reported_at), so an identical re-report is recognised and writes nothing.
 */
export function reportHash(username: string, apps: InstalledApp[]): string {
  const rows = apps
    .map(
      (a) => [a.identifier, a.match_type, a.application_name, a.version_name, a.icon_hash || null] as const,
    )
    .sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : 1) : x[0] < y[0] ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([username, rows]))
    .digest('hex');
}

/**
 * Installed applications, one row per (device, account, identifier,
 * match_type), no separate catalogue — at household scale the per-child union is a cheap grouping,
 * and a catalogue would add a join and a second write to every report. Icons are content-addressed
 * and shared.
 */
export class InventoryService {
  readonly assembler = new ReportAssembler();

  constructor(
    private readonly repo: InventoryRepository,
    private readonly access: AccessService,
    private readonly devices: DeviceService,
    private readonly events: EventPublisher,
  ) {}

  async onReportChunk(device: AuthenticatedDevice, message: InstalledAppsReportMessage): Promise<void> {
    const ack = (fields: Record<string, unknown>) =>
      device.send({
        type: 'installed_apps_report_ack',
        report_id: message.report_id,
        apps_upserted: 0,
        apps_removed: 0,
        apps_total: 0,
        ...fields,
      });
    const outcome = this.assembler.accept(device.systemId, device.platform, device.linuxUsers, message);
    if (outcome.status === 'error') return ack({ success: false, pending: false, error: outcome.error });
    if (outcome.status === 'pending') return ack({ success: true, pending: true });
    const counts = await this.applyReport(device, outcome.username, outcome.apps, outcome.reportedAt);
    ack({ success: true, pending: false, ...counts });
  }

  /** Replaces an account's inventory with a complete report in one transaction. */
  async applyReport(
    device: { systemId: string; householdId: string },
    username: string,
    reported: InstalledApp[],
    reportedAt: string,
  ) {
    const unique = new Map<string, InstalledApp>();
    for (const app of reported) unique.set(key(app), app);
    const apps = [...unique.values()];
    const hash = reportHash(username, apps);
    const previous = await this.repo.reportOf(device.systemId, username);
    if (previous?.report_hash === hash) {
      // Nothing is written, but a waiting "Rescan now" still learns that the scan came back.
      this.events.publish(device.householdId, 'installed_apps_updated', {
        system_id: device.systemId,
        linux_username: username,
        count: apps.length,
        changed: false,
      });
      return { apps_upserted: 0, apps_removed: 0, apps_total: apps.length };
    }

    const at = nowIso();
    const counts = await this.repo.transaction(async (repo) => {
      const existing = new Map((await repo.appsOf(device.systemId, username)).map((r) => [key(r), r]));
      const changed: AppRow[] = [];
      for (const app of apps) {
        const old = existing.get(key(app));
        const icon = app.icon_hash || null;
        if (
          old &&
          old.application_name === app.application_name &&
          old.version_name === app.version_name &&
          old.icon_hash === icon
        )
          continue;
        changed.push({
          system_id: device.systemId,
          linux_username: username,
          identifier: app.identifier,
          match_type: app.match_type,
          application_name: app.application_name,
          version_name: app.version_name,
          icon_hash: icon,
          first_seen_at: at,
          last_seen_at: at,
        });
      }
      const present = new Set(apps.map(key));
      const gone = [...existing.values()].filter((r) => !present.has(key(r)));
      await repo.markSeen(device.systemId, username, at);
      await repo.upsertApps(changed);
      await repo.deleteApps(device.systemId, username, gone);
      await repo.saveReport(device.systemId, username, hash, reportedAt, apps.length);
      return { apps_upserted: changed.length, apps_removed: gone.length, apps_total: apps.length };
    });
    this.events.publish(device.householdId, 'installed_apps_updated', {
      system_id: device.systemId,
      linux_username: username,
      count: apps.length,
      changed: true,
    });
    return counts;
  }

  async onIcon(device: AuthenticatedDevice, message: AppIconReportMessage): Promise<void> {
    const ack = (fields: Record<string, unknown>) =>
      device.send({
        type: 'app_icon_report_ack',
        content_hash: message.content_hash,
        duplicate: false,
        ...fields,
      });
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(message.data_base64))
      return ack({ success: false, error: 'data_base64 is not base64.' });
    const bytes = Buffer.from(message.data_base64, 'base64');
    if (bytes.length > MAX_ICON_BYTES)
      return ack({ success: false, error: `Icons are at most ${MAX_ICON_BYTES} bytes.` });
    if (!looksLikePng(bytes)) return ack({ success: false, error: 'The icon is not a PNG image.' });
    if (sha256Hex(bytes) !== message.content_hash)
      return ack({ success: false, error: 'content_hash is not the SHA-256 of the icon bytes.' });
    const fresh = await this.repo.insertIcon({
      content_hash: message.content_hash,
      mime_type: 'image/png',
      data_base64: bytes.toString('base64'),
      byte_size: bytes.length,
      created_at: nowIso(),
    });
    ack({ success: true, duplicate: !fresh });
  }

  async icon(hash: string): Promise<Buffer | null> {
    if (!HASH_PATTERN.test(hash)) return null;
    const row = await this.repo.icon(hash);
    return row ? Buffer.from(row.data_base64, 'base64') : null;
  }

  /**
   * A device's apps. A member reads only the accounts mapped to a child they may see: on a shared
   * device a sibling's account (or an unmapped one) answers exactly as an account that never
   * reported, so the answer does not tell whether it exists.
   */
  async deviceInventory(actor: SessionAuth, systemId: string, linuxUsername?: string) {
    const device = await this.devices.loadDevice(actor, systemId, 'view');
    const visible = await this.access.visibleAccounts(actor, systemId);
    let accounts: string[] | undefined = linuxUsername === undefined ? undefined : [linuxUsername];
    if (visible) accounts = (accounts ?? [...visible]).filter((a) => visible.has(a));
    const rows = await this.repo.deviceApps(systemId, accounts);
    // The report stamp of the accounts read: the device's own when they are all of its accounts.
    const report =
      accounts === undefined
        ? {
            reported_at: device.installed_apps_reported_at ?? null,
            report_hash: device.installed_apps_report_hash ?? null,
          }
        : await this.repo.latestReport(systemId, accounts);
    return {
      system_id: systemId,
      reported_at: report?.reported_at ?? null,
      report_hash: report?.report_hash ?? null,
      count: rows.length,
      items: rows.map((r) => ({
        linux_username: r.linux_username,
        application_name: r.application_name,
        identifier: r.identifier,
        match_type: r.match_type,
        version_name: r.version_name,
        icon_hash: r.icon_hash,
        icon_url: iconUrl(r.icon_hash),
        first_seen_at: r.first_seen_at,
        last_seen_at: r.last_seen_at,
      })),
    };
  }

  /** One entry per (identifier, match_type) across the child's devices, with the devices that have it. */
  async childInventory(actor: SessionAuth, managedUserId: string) {
    await this.access.requireChild(actor, managedUserId, 'view');
    const rows = await this.repo.childApps(managedUserId);
    const items = new Map<
      string,
      {
        identifier: string;
        match_type: string;
        application_name: string;
        icon_hash: string | null;
        icon_url: string | null;
        first_seen_at: string;
        last_seen_at: string;
        devices: { system_id: string; hostname: string; linux_username: string; version_name: string }[];
      }
    >();
    for (const r of rows) {
      let item = items.get(key(r));
      if (!item) {
        item = {
          identifier: r.identifier,
          match_type: r.match_type,
          application_name: r.application_name,
          icon_hash: r.icon_hash,
          icon_url: iconUrl(r.icon_hash),
          first_seen_at: r.first_seen_at,
          last_seen_at: r.last_seen_at,
          devices: [],
        };
        items.set(key(r), item);
      }
      if (!item.icon_hash && r.icon_hash) {
        item.icon_hash = r.icon_hash;
        item.icon_url = iconUrl(r.icon_hash);
      }
      if (r.first_seen_at < item.first_seen_at) item.first_seen_at = r.first_seen_at;
      if (r.last_seen_at > item.last_seen_at) item.last_seen_at = r.last_seen_at;
      item.devices.push({
        system_id: r.system_id,
        hostname: r.display_name ?? r.hostname,
        linux_username: r.linux_username,
        version_name: r.version_name,
      });
    }
    return { managed_user_id: managedUserId, items: [...items.values()] };
  }

  async refresh(actor: SessionAuth, systemId: string) {
    const device = await this.devices.loadDevice(actor, systemId, 'view');
    if (device.status !== 'approved') throw conflict('The device is not approved.');
    const outcome = await this.devices.command(systemId, 'refresh_installed_apps', {});
    return { queued: true, delivered: outcome.delivered };
  }
}
