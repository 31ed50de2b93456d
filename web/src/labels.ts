import { ALERT_KINDS, type AlertKind } from '@hearth/protocol';
import type { AgeTier, ParentRole } from './api/types';

export const PASSWORD_MIN_LENGTH = 12;
export const PARENT_NOTE_MAX_LENGTH = 500;
export const NAME_MAX_LENGTH = 100;

export const AGE_TIER_LABELS: Record<AgeTier, string> = {
  under8: 'Under 8',
  eight12: '8–12',
  teen: 'Teen',
};

/** Select options; the empty value stands for "not set" (the overlay then behaves as 8–12). */
export const AGE_TIER_OPTIONS = [
  { value: '', label: 'Not set' },
  { value: 'under8', label: 'Under 8' },
  { value: 'eight12', label: '8–12 (default)' },
  { value: 'teen', label: 'Teen' },
];

export function ageTierFromOption(value: string | null): AgeTier | null {
  return value === 'under8' || value === 'eight12' || value === 'teen' ? value : null;
}

export const ROLE_LABELS: Record<ParentRole, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
};

export const ROLE_DESCRIPTIONS: Record<ParentRole, string> = {
  owner: 'Full control, including other owners',
  admin: 'Full control of children, devices and parents',
  member: 'Only the children you choose below',
};

export const ROLE_COLORS: Record<ParentRole, string> = {
  owner: 'hearth',
  admin: 'grape',
  member: 'teal',
};

export const MAPPING_PROBLEMS: Record<string, string> = {
  device_not_approved: 'The device is not approved yet',
  account_not_reported: 'The device has not reported this account yet',
};

/** The name a parent gave the device (the hostname until renamed), for a mapping or an alert. */
export function deviceName(
  item: { display_name?: string | null; hostname?: string | null },
  fallback = 'Unknown device',
): string {
  return item.display_name ?? item.hostname ?? fallback;
}

/** A devices' status other than approved: the device no longer counts as the child's. */
export const isGone = (status: string | null | undefined) => status === 'unenrolled' || status === 'rejected';

/** A mapping problem (GET /users/validate) in plain words, told by the device's status where it helps. */
export function mappingProblemText(
  problem: string,
  mapping: { device_status?: string | null; linux_username: string },
): string {
  if (problem === 'device_not_approved') {
    if (mapping.device_status === 'unenrolled')
      return 'This device was unenrolled, so Hearth no longer looks after it. Remove this link, or pair the device again.';
    if (mapping.device_status === 'rejected')
      return 'This device was turned away, so Hearth does not look after it. Remove this link.';
    return 'This device is waiting for approval on the Devices page; Hearth looks after it once it is approved.';
  }
  if (problem === 'account_not_reported')
    return `The device has not reported an account called ${mapping.linux_username}. Check the spelling, or sign in to it once on the device.`;
  return MAPPING_PROBLEMS[problem] ?? 'Something about this link needs attention.';
}

const PLATFORM_LABELS: Record<string, string> = {
  linux: 'Linux',
  windows: 'Windows',
  android: 'Android',
  xbox: 'Xbox',
  nintendo: 'Nintendo',
};

export function platformLabel(platform: string | null): string {
  if (!platform) return 'Unknown';
  return PLATFORM_LABELS[platform] ?? platform;
}

/** "0 min", "45 min", "1 h 20 min". */
export function formatMinutes(seconds: number): string {
  const minutes = Math.floor(Math.max(0, seconds) / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export const DEVICE_STATUS_LABELS: Record<string, string> = {
  pending: 'Waiting for approval',
  approved: 'Approved',
  rejected: 'Rejected',
  unenrolled: 'Unenrolled',
};

export const DEVICE_STATUS_COLORS: Record<string, string> = {
  pending: 'yellow',
  approved: 'teal',
  rejected: 'red',
  unenrolled: 'gray',
};

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", else "on 12 Mar 2025". */
export function timeAgo(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  return `on ${new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}`;
}

/** The full local date and time, for a tooltip beside a relative time. */
export function exactTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
}

/** Why a child asked, in a parent's words (the overlay's reasons). */
export const ACCESS_REASON_LABELS: Record<string, string> = {
  locked: 'Paused or out of screen time',
  sleep: 'Bedtime',
  filtered: 'A blocked website',
  signup: 'Signing up on a website',
  clock_tamper: 'The device clock looks wrong',
};

export function accessReasonLabel(reason: unknown): string {
  return (typeof reason === 'string' && ACCESS_REASON_LABELS[reason]) || 'Asked for access';
}

/** Words for each kind Hearth raises; protocol's ALERT_KINDS is the one list, so none can be missed. */
const ALERT_KIND_TEXT: Record<AlertKind, { label: string; filter: string; description?: string }> = {
  access_requested: { label: 'Access request', filter: 'Access requests' },
  clock_tamper: {
    label: 'Clock changed',
    filter: 'Clock changes',
    description: 'The device clock was changed or does not match the real time',
  },
  alerts_dropped: {
    label: 'Alerts held back',
    filter: 'Alerts held back',
    description: 'The device raised too many alerts in a minute; the rest of that minute were not kept',
  },
};

const knownKind = (kind: string): kind is AlertKind => (ALERT_KINDS as readonly string[]).includes(kind);

/** One line on what happened, for alerts other than access requests. */
export function alertDescription(kind: string): string {
  return (knownKind(kind) && ALERT_KIND_TEXT[kind].description) || 'Reported by the device';
}

/**
 * The Alerts page's kind filter: every kind the server names (Hearth's own first, then any other kind
 * the household's alerts have), or Hearth's own until that list has loaded.
 */
export function alertKindOptions(kinds: readonly string[] = ALERT_KINDS): { value: string; label: string }[] {
  return kinds.map((kind) => ({
    value: kind,
    label: knownKind(kind) ? ALERT_KIND_TEXT[kind].filter : alertKindLabel(kind),
  }));
}

/** "Access request", "Clock changed"; a kind Hearth has no words for reads "Usb inserted" from usb_inserted. */
export function alertKindLabel(kind: string): string {
  if (knownKind(kind)) return ALERT_KIND_TEXT[kind].label;
  const words = kind.replaceAll('_', ' ').trim();
  return words ? words[0]?.toUpperCase() + words.slice(1) : 'Alert';
}

/** "99+" past 99, for small counters. */
export function shortCount(count: number): string {
  return count > 99 ? '99+' : String(count);
}
