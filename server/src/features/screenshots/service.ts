import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type CaptureScreenshotAnswer,
  type CaptureScreenshotArgs,
  OVERLAY_COMMAND_TTL_MS,
  type ScreenshotView,
} from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentChannel } from '../../agent-channel/channel.js';
import type { BearerDevice, SessionAuth } from '../../platform/access.js';
import { creationIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import { conflict, forbidden, HttpError, invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import type { AccessService } from '../access/service.js';
import { parseLinuxUsers } from '../devices/repository.js';
import type { DeviceService } from '../devices/service.js';
import { checkScreenshot, type ScreenshotType } from './image.js';
import type { ScreenshotMeta, ScreenshotRepository, ScreenshotRow } from './repository.js';

export const CAPTURE_COMMAND = 'capture_screenshot';
/** Screenshots a device list answers at most. */
const LIST_LIMIT = 200;
const RETENTION_BATCH = 500;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const EXTENSIONS: Record<ScreenshotType, string> = { 'image/png': 'png', 'image/jpeg': 'jpg' };

export interface ScreenshotOptions {
  dataDir: string;
  storage: 'file' | 'database';
  retentionDays: number;
}

/** What the image route sends. */
export interface ScreenshotImage {
  contentType: string;
  bytes: Buffer;
}

/**
 * Screenshots (DESIGN §12): a parent's capture (`capture_screenshot` to the device), the agent's upload
 * (checked to decode as its type), the device's gallery, the image itself (never without a session of
 * the household and the right to see the child), deletion with the file, the worker's retention and
 * the periodic captures per mapping.
 */
export class ScreenshotService {
  constructor(
    private readonly repo: ScreenshotRepository,
    private readonly access: AccessService,
    private readonly devices: DeviceService,
    private readonly channel: AgentChannel,
    private readonly events: EventPublisher,
    private readonly options: ScreenshotOptions,
    private readonly log: FastifyBaseLogger,
  ) {}

  get directory(): string {
    return path.join(this.options.dataDir, 'screenshots');
  }

  private fileOf(row: Pick<ScreenshotMeta, 'id' | 'content_type'>): string {
    return path.join(this.directory, `${row.id}.${EXTENSIONS[row.content_type]}`);
  }

  private view(row: ScreenshotMeta): ScreenshotView {
    return {
      id: row.id,
      system_id: row.system_id,
      linux_username: row.linux_username,
      taken_at: row.taken_at,
      width: Number(row.width),
      height: Number(row.height),
      bytes: Number(row.bytes),
      content_type: row.content_type,
      request_id: row.request_id,
      image_url: `/api/screenshots/${row.id}/image`,
    };
  }

  // ——— the parent's routes ———

  /** A sensitive device route: the account must be one the device reported and mapped to a child. */
  async capture(
    actor: SessionAuth,
    systemId: string,
    linuxUsername: string,
  ): Promise<CaptureScreenshotAnswer> {
    const device = await this.devices.loadDevice(actor, systemId, 'sensitive');
    if (device.status !== 'approved') throw conflict('The device is not approved.');
    if (!parseLinuxUsers(device.linux_users).some((u) => u.username === linuxUsername))
      throw invalidRequest(`The device has not reported an account "${linuxUsername}".`, [
        { path: 'body/linux_username', message: 'is not an account of this device' },
      ]);
    if (!(await this.repo.mappingOf(systemId, linuxUsername)))
      throw invalidRequest(`The account "${linuxUsername}" is not mapped to a child.`, [
        { path: 'body/linux_username', message: 'is not mapped to a child' },
      ]);
    // On a shared device a member sees only the screens of children they manage.
    if (!(await this.access.checkAccounts(actor, systemId, [linuxUsername])).has(linuxUsername))
      throw forbidden('You can capture only the screens of children you manage.');
    const requestId = newId();
    const args: CaptureScreenshotArgs = { linux_username: linuxUsername, request_id: requestId };
    // A capture asked for now is stale after ten minutes, like an overlay command.
    const outcome = await this.devices.command(
      systemId,
      CAPTURE_COMMAND,
      { ...args },
      {
        ttlMs: OVERLAY_COMMAND_TTL_MS,
      },
    );
    const answer: CaptureScreenshotAnswer = {
      delivered: outcome.delivered,
      queued: outcome.queued,
      request_id: requestId,
    };
    if (outcome.error !== undefined)
      answer.error = (
        typeof outcome.error === 'string' ? outcome.error : JSON.stringify(outcome.error)
      ).slice(0, 500);
    return answer;
  }

  async list(actor: SessionAuth, systemId: string): Promise<ScreenshotView[]> {
    await this.devices.loadDevice(actor, systemId, 'view');
    const accounts = await this.access.visibleAccounts(actor, systemId);
    const rows = await this.repo.listOfDevice(systemId, accounts ? [...accounts] : null, LIST_LIMIT);
    return rows.map((r) => this.view(r));
  }

  /** The row once the parent may see it: 404 for another household's, or a child they may not see. */
  private async visible(actor: SessionAuth, id: string): Promise<ScreenshotMeta> {
    const row = await this.repo.get(actor.householdId, id);
    if (!row) throw notFound('The screenshot');
    await this.access.requireDeviceAccess(actor, row.system_id, 'view');
    const accounts = await this.access.visibleAccounts(actor, row.system_id);
    if (accounts && !accounts.has(row.linux_username)) throw notFound('The screenshot');
    return row;
  }

  async image(actor: SessionAuth, id: string): Promise<ScreenshotImage> {
    const row = await this.visible(actor, id);
    const bytes =
      row.storage === 'database'
        ? await this.repo.data(id)
        : await readFile(this.fileOf(row)).catch(() => null);
    if (!bytes) throw notFound('The screenshot image');
    return { contentType: row.content_type, bytes };
  }

  async remove(actor: SessionAuth, id: string): Promise<{ id: string; deleted: boolean }> {
    const row = await this.visible(actor, id);
    await this.access.requireDeviceAccess(actor, row.system_id, 'sensitive');
    if (
      !(await this.access.checkAccounts(actor, row.system_id, [row.linux_username])).has(row.linux_username)
    )
      throw forbidden('You can delete only the screenshots of children you manage.');
    await this.removeFile(row);
    await this.repo.delete(id);
    return { id, deleted: true };
  }

  private async removeFile(row: ScreenshotMeta): Promise<void> {
    if (row.storage === 'file') await rm(this.fileOf(row), { force: true });
  }

  // ——— the agent's upload ———

  async upload(
    device: BearerDevice,
    input: { contentType: string; bytes: Buffer; linuxUsername?: string; requestId?: string },
  ): Promise<ScreenshotView> {
    const type = input.contentType.split(';')[0]?.trim().toLowerCase() as ScreenshotType | undefined;
    if (type !== 'image/png' && type !== 'image/jpeg')
      throw invalidRequest('Send the screenshot as image/png or image/jpeg.');
    const account = input.linuxUsername;
    if (!account)
      throw invalidRequest('Name the account in the X-Hearth-Linux-Username header.', [
        { path: 'headers/x-hearth-linux-username', message: 'is required' },
      ]);
    if (input.requestId !== undefined && !REQUEST_ID.test(input.requestId))
      throw invalidRequest('X-Hearth-Request-Id must be the request_id of a capture_screenshot command.', [
        { path: 'headers/x-hearth-request-id', message: 'is malformed' },
      ]);
    if (!device.linuxUsers.includes(account))
      throw forbidden(`"${account.slice(0, 64)}" is not an account of this device.`);
    const mapping = await this.repo.mappingOf(device.systemId, account);
    if (!mapping) throw notFound('A child for this account');
    if (!input.bytes.length) throw invalidRequest('The screenshot is empty.');
    const { width, height } = checkScreenshot(input.bytes, type);
    const id = newId();
    const inDatabase = this.options.storage === 'database';
    const row: ScreenshotRow = {
      id,
      household_id: device.householdId,
      system_id: device.systemId,
      linux_username: account,
      managed_user_id: mapping.managed_user_id,
      request_id: input.requestId ?? null,
      content_type: type,
      width,
      height,
      bytes: input.bytes.length,
      taken_at: creationIso(),
      storage: inDatabase ? ('database' as const) : ('file' as const),
      data: inDatabase ? input.bytes : null,
    };
    if (!inDatabase) {
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      await writeFile(this.fileOf(row), input.bytes, { mode: 0o600, flag: 'wx' });
    }
    try {
      await this.repo.insert(row);
    } catch (err) {
      await this.removeFile(row);
      throw err;
    }
    this.events.publish(device.householdId, 'screenshot_added', {
      system_id: device.systemId,
      linux_username: account,
      managed_user_id: mapping.managed_user_id,
      id,
      request_id: row.request_id,
    });
    return this.view(row);
  }

  // ——— the worker ———

  /**
   * Deletes screenshots older than the retention (rows and files), and files no row names any more
   * (their device was removed, and its rows with it).
   */
  async prune(now = Date.now()): Promise<string> {
    const cutoff = new Date(now - this.options.retentionDays * 86_400_000).toISOString();
    let deleted = 0;
    for (;;) {
      const old = await this.repo.olderThan(cutoff, RETENTION_BATCH);
      if (!old.length) break;
      for (const row of old) await this.removeFile(row);
      await this.repo.deleteIds(old.map((r) => r.id));
      deleted += old.length;
      if (old.length < RETENTION_BATCH) break;
    }
    const orphans = await this.pruneOrphanFiles();
    return `deleted ${deleted} screenshots older than ${this.options.retentionDays} days and ${orphans} files of removed devices`;
  }

  private async pruneOrphanFiles(): Promise<number> {
    const names = await readdir(this.directory).catch(() => [] as string[]);
    const byId = new Map<string, string>();
    for (const name of names) {
      const match = /^([0-9a-f-]{36})\.(png|jpg)$/.exec(name);
      if (match?.[1]) byId.set(match[1], name);
    }
    const ids = [...byId.keys()];
    let removed = 0;
    for (let i = 0; i < ids.length; i += RETENTION_BATCH) {
      const chunk = ids.slice(i, i + RETENTION_BATCH);
      const kept = await this.repo.existing(chunk);
      for (const id of chunk) {
        if (kept.has(id)) continue;
        await rm(path.join(this.directory, byId.get(id) as string), { force: true });
        removed++;
      }
    }
    return removed;
  }

  /**
   * Periodic captures: each mapping whose interval has passed since its last request is sent
   * `capture_screenshot` when its device is online now; an offline device is never queued one (it
   * gets one on the first run after it connects).
   */
  async capturePeriodic(now = Date.now()): Promise<string> {
    const due = (await this.repo.periodicMappings()).filter((m) => {
      const last = m.screenshot_requested_at ? Date.parse(m.screenshot_requested_at) : 0;
      return now - last >= Number(m.screenshot_interval_minutes) * 60_000 && this.channel.isOnline(m);
    });
    let sent = 0;
    await Promise.all(
      due.map(async (m) => {
        const args: CaptureScreenshotArgs = { linux_username: m.linux_username };
        const result = await this.channel.rpc(m.system_id, CAPTURE_COMMAND, { ...args });
        if (result.status === 'offline') return;
        await this.repo.markRequested(m.id, new Date(now).toISOString());
        if (result.status === 'ok') sent++;
        else
          this.log.info({ system_id: m.system_id, result: result.status }, 'periodic screenshot not taken');
      }),
    );
    return `asked ${sent} of ${due.length} due accounts for a periodic screenshot`;
  }

  // ——— the mapping's setting (in its approval settings) ———

  interval(mappingId: string): Promise<number> {
    return this.repo.interval(mappingId);
  }

  setInterval(mappingId: string, minutes: number): Promise<void> {
    return this.repo.setInterval(mappingId, minutes);
  }
}

/** 413 for a screenshot over its limit. */
export const screenshotTooLarge = (limit: number) =>
  new HttpError(413, 'payload_too_large', `A screenshot may be at most ${limit / (1024 * 1024)} MiB.`);
