import {
  AGE_TIERS,
  type AgeTier,
  DEFAULT_AGE_TIER,
  LIMITS,
  OVERLAY_CONTEXTS,
  OVERLAY_REASONS,
  type OverlayContext,
  type OverlayReason,
} from '@hearth/protocol';

/** Everything the page is told at start-up; the Android host may change parts of it later. */
export interface PageParams {
  reason: OverlayReason;
  tier: AgeTier;
  /** With `locked`: `paused` when a parent paused the child; null when the allowance is used up (DESIGN §7). */
  context: OverlayContext | null;
  /** Device name, or in sign-up mode the domain. */
  device: string;
  note: string;
  lang: string | null;
  /** The original sign-up URL, already checked to be http(s); null otherwise. */
  signupUrl: string | null;
  /** Loopback bridge of the Linux agent, when both parts are present and valid. */
  bridge: { url: string; token: string } | null;
}

/** Device names and domains are short; a long value is cut rather than let it push the layout around. */
const DEVICE_MAX = 253;

export function parseReason(value: unknown): OverlayReason {
  return OVERLAY_REASONS.includes(value as OverlayReason) ? (value as OverlayReason) : 'filtered';
}

export function parseContext(value: unknown): OverlayContext | null {
  return OVERLAY_CONTEXTS.includes(value as OverlayContext) ? (value as OverlayContext) : null;
}

export function parseTier(value: unknown): AgeTier {
  return AGE_TIERS.includes(value as AgeTier) ? (value as AgeTier) : DEFAULT_AGE_TIER;
}

/** Collapses control characters and runs of spaces, trims, and caps the length. */
export function cleanText(value: unknown, max: number): string {
  if (typeof value !== 'string') return '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const flat = value.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').trim();
  return Array.from(flat).slice(0, max).join('');
}

export function cleanNote(value: unknown): string {
  return cleanText(value, LIMITS.parentNoteMaxLength);
}

export function cleanDevice(value: unknown): string {
  return cleanText(value, DEVICE_MAX).replace(/\s+/g, ' ');
}

/** Only absolute http(s) URLs are ever followed; anything else (javascript:, data:, relative) is dropped. */
export function safeHttpUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** The kiosk bridge must be plain http on loopback: the token never leaves the machine. */
export function loopbackBridge(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' || url.username || url.password) return null;
    return LOOPBACK_HOSTS.has(url.hostname) ? url.href : null;
  } catch {
    return null;
  }
}

export function readParams(search: string): PageParams {
  const q = new URLSearchParams(search);
  const reason = parseReason(q.get('reason'));
  const signupUrl = safeHttpUrl(q.get('url'));
  let device = cleanDevice(q.get('device'));
  // A sign-up page opened without a domain still has one to show: the host of the sign-up URL.
  if (reason === 'signup' && !device && signupUrl) device = new URL(signupUrl).hostname;
  const bridgeUrl = loopbackBridge(q.get('bridge'));
  const token = q.get('bridge_token') ?? '';
  return {
    reason,
    tier: parseTier(q.get('age')),
    context: parseContext(q.get('context')),
    device,
    note: cleanNote(q.get('note')),
    lang: q.get('lang'),
    signupUrl,
    bridge: bridgeUrl && token ? { url: bridgeUrl, token } : null,
  };
}
