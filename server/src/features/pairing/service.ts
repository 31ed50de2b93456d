import { createHash } from 'node:crypto';
import { createReadStream, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type PairingConfig, type ProvisioningConfig, WS_PATH } from '@hearth/protocol';
import QRCode from 'qrcode';
import type { Config } from '../../config.js';
import { safeEqual, sha256Hex } from '../../platform/crypto.js';
import { HttpError, notFound } from '../../platform/errors.js';
import type { HouseholdRepository } from '../household/repository.js';

export const ARTIFACTS = {
  apk: { file: 'hearth-agent.apk', type: 'application/vnd.android.package-archive', what: 'Android agent' },
  msi: { file: 'hearth-agent.msi', type: 'application/x-msi', what: 'Windows agent installer' },
} as const;
export type ArtifactKind = keyof typeof ARTIFACTS;

/** The Android component that becomes device owner when provisioning from the QR code. */
export const ANDROID_ADMIN_COMPONENT = 'com.hearth.agent/.HearthDeviceAdminReceiver';

/** `<household id>.<digest of its enrolment token>`: the provisioning QR's download address. */
export const apkDownloadToken = (householdId: string, enrollmentToken: string): string =>
  `${householdId}.${sha256Hex(`hearth-apk-download:${enrollmentToken}`)}`;

export class PairingService {
  private checksum: { key: string; value: string } | null = null;

  constructor(
    private readonly households: HouseholdRepository,
    private readonly config: Config,
  ) {}

  private get artifactsDir(): string {
    return path.join(this.config.dataDir, 'artifacts');
  }

  /** HEARTH_PUBLIC_URL when set, else the address the parent reached us on. */
  serverUrl(requestOrigin: string): string {
    return this.config.publicUrl ?? requestOrigin.replace(/\/+$/, '');
  }

  async pairingConfig(householdId: string, requestOrigin: string): Promise<PairingConfig> {
    const household = await this.households.getHousehold(householdId);
    if (!household) throw notFound('The household');
    const serverUrl = this.serverUrl(requestOrigin);
    const wsUrl = `${serverUrl.replace(/^http/, 'ws')}${WS_PATH}`;
    return {
      server_url: serverUrl,
      ws_url: wsUrl,
      enrollment_token: household.enrollment_token,
      payload: { type: 'hearth_pairing', ws_url: wsUrl, enrollment_token: household.enrollment_token },
    };
  }

  async provisioning(householdId: string, requestOrigin: string): Promise<ProvisioningConfig> {
    const pairing = await this.pairingConfig(householdId, requestOrigin);
    const apk = await this.artifactStat('apk');
    const payload: Record<string, unknown> = {
      'android.app.extra.PROVISIONING_DEVICE_ADMIN_COMPONENT_NAME': ANDROID_ADMIN_COMPONENT,
      'android.app.extra.PROVISIONING_LEAVE_ALL_SYSTEM_APPS_ENABLED': true,
      'android.app.extra.PROVISIONING_ADMIN_EXTRAS_BUNDLE': {
        hearth_server_url: pairing.server_url,
        hearth_ws_url: pairing.ws_url,
        hearth_enrollment_token: pairing.enrollment_token,
      },
    };
    if (apk) {
      // A phone being provisioned has no parent's session: it downloads from the household's
      // capability address, which only someone holding the QR (and so the enrolment token) knows.
      payload['android.app.extra.PROVISIONING_DEVICE_ADMIN_PACKAGE_DOWNLOAD_LOCATION'] =
        `${pairing.server_url}/api/pairing/provisioning/apk/${apkDownloadToken(householdId, pairing.enrollment_token)}`;
      payload['android.app.extra.PROVISIONING_DEVICE_ADMIN_PACKAGE_CHECKSUM'] = await this.apkChecksum(apk);
    }
    return {
      server_url: pairing.server_url,
      enrollment_token: pairing.enrollment_token,
      apk_available: !!apk,
      payload,
    };
  }

  qrPng(payload: unknown): Promise<Buffer> {
    return QRCode.toBuffer(JSON.stringify(payload), {
      type: 'png',
      errorCorrectionLevel: 'M',
      margin: 2,
      width: 360,
    });
  }

  private async artifactStat(kind: ArtifactKind): Promise<Stats | null> {
    try {
      const s = await stat(path.join(this.artifactsDir, ARTIFACTS[kind].file));
      return s.isFile() ? s : null;
    } catch {
      return null;
    }
  }

  /** Android wants the SHA-256 of the APK, base64url without padding. */
  private async apkChecksum(s: Stats): Promise<string> {
    const key = `${s.size}:${s.mtimeMs}`;
    if (this.checksum?.key === key) return this.checksum.value;
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path.join(this.artifactsDir, ARTIFACTS.apk.file)))
      hash.update(chunk as Buffer);
    const value = hash.digest('base64url');
    this.checksum = { key, value };
    return value;
  }

  /**
   * The APK for a phone being provisioned from the QR: the download token must be the household's
   * current one (a new enrolment token ends the old address); any other answers 404.
   */
  async provisioningApk(token: string) {
    const householdId = token.split('.')[0] ?? '';
    const household = householdId ? await this.households.getHousehold(householdId) : undefined;
    if (!household || !safeEqual(token, apkDownloadToken(household.id, household.enrollment_token)))
      throw notFound('The download');
    return this.artifact('apk');
  }

  async artifact(kind: ArtifactKind) {
    const s = await this.artifactStat(kind);
    const { file, type, what } = ARTIFACTS[kind];
    if (!s) {
      throw new HttpError(
        404,
        'not_found',
        `No ${what} has been uploaded yet: the server operator places it in the data directory as artifacts/${file}.`,
      );
    }
    return { path: path.join(this.artifactsDir, file), size: s.size, file, type };
  }
}
