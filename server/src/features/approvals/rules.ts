import type { BearerDevice } from '../../platform/access.js';
import { normalizeDomain } from '../../platform/domain.js';
import { invalidRequest } from '../../platform/errors.js';
import { cacheTags, type ReadCache } from '../../platform/read-cache.js';

export const ONCE_GRANT_MS = 24 * 60 * 60 * 1000;
/** Sign-up approvals need the extension beside a Linux or Windows agent; Android and consoles have neither. */
const SIGNUP_PLATFORMS = new Set(['linux', 'windows']);
/** 0.57.0 is the first version whose agents relay the extension's sign-up checks. */
const SIGNUP_MIN_VERSION = '0.57.0';

export function versionAtLeast(version: string | null | undefined, minimum: string): boolean {
  if (!version) return false;
  const parse = (v: string) =>
    v
      .replace(/^v/, '')
      .split(/[.+-]/)
      .slice(0, 3)
      .map((n) => Number.parseInt(n, 10) || 0);
  const [a, b] = [parse(version), parse(minimum)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

export function signupSupported(platform: string, agentVersion: string | null): boolean {
  return SIGNUP_PLATFORMS.has(platform) && versionAtLeast(agentVersion, SIGNUP_MIN_VERSION);
}

export function domainOrFail(input: string, path = 'domain'): string {
  const domain = normalizeDomain(input);
  if (!domain)
    throw invalidRequest(`"${input.slice(0, 80)}" is not a valid domain.`, [
      { path: `body/${path}`, message: 'is not a hostname' },
    ]);
  return domain;
}

/** An agent speaks only for the accounts its device reported. */
export function requireAccount(device: BearerDevice, linuxUsername: string): void {
  if (!device.linuxUsers.includes(linuxUsername)) {
    throw invalidRequest(`The account "${linuxUsername}" is not one this device reported.`, [
      { path: 'linux_username', message: 'is not an account of this device' },
    ]);
  }
}

export function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** When a one-time grant made now stops counting. */
export const onceGrantExpiry = () => new Date(Date.now() + ONCE_GRANT_MS).toISOString();

/** Drops the cached sign-up facts of a mapping after a change to its settings, requests or grants. */
export function forgetMapping(cache: ReadCache, mappingId: string | null | undefined): Promise<void> {
  return mappingId ? cache.invalidate(cacheTags.mapping(mappingId)) : Promise.resolve();
}
