/** One version for every Hearth component; 0.57.0 is the first that carries sign-up approvals. */
export const HEARTH_VERSION = '0.57.0';

export const OVERLAY_REASONS = ['sleep', 'filtered', 'locked', 'signup', 'clock_tamper'] as const;
export type OverlayReason = (typeof OVERLAY_REASONS)[number];

/**
 * Why Hearth Space shows `locked` (DESIGN §7, the `context` query parameter): `paused` when a parent
 * paused the child; without a context the allowance is used up.
 */
export const OVERLAY_CONTEXTS = ['paused'] as const;
export type OverlayContext = (typeof OVERLAY_CONTEXTS)[number];

/**
 * Alert kinds Hearth itself raises: a child's access request (its own route) and the agents'
 * `alert_event` types. An agent may report other `event_type`s; they are stored and listed as they come.
 */
export const ALERT_KINDS = ['access_requested', 'clock_tamper', 'alerts_dropped'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const AGE_TIERS = ['under8', 'eight12', 'teen'] as const;
export type AgeTier = (typeof AGE_TIERS)[number];
/** The overlay behaves as eight12 when a child has no tier. */
export const DEFAULT_AGE_TIER: AgeTier = 'eight12';

export const PARENT_ROLES = ['owner', 'admin', 'member'] as const;
export type ParentRole = (typeof PARENT_ROLES)[number];

export const PLATFORMS = ['linux', 'windows', 'android', 'xbox', 'nintendo'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const DEVICE_STATUSES = ['pending', 'approved', 'rejected', 'unenrolled'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

export const LIMITS = {
  passwordMinLength: 12,
  passwordMaxLength: 256,
  usernameMaxLength: 64,
  nameMaxLength: 100,
  parentNoteMaxLength: 500,
  linuxUsernameMaxLength: 64,
  jsonBodyBytes: 1024 * 1024,
  signInFailuresPerMinute: 10,
  sessionIdleDays: 7,
} as const;

export const SESSION_COOKIE = 'hearth_session';
export const CSRF_HEADER = 'x-csrftoken';
export const CSRF_FIELD = 'csrf_token';
