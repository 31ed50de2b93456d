/** One version for every Hearth component; 0.57.0 is the first that carries sign-up approvals. */
export const HEARTH_VERSION = '0.57.0';

export const OVERLAY_REASONS = ['sleep', 'filtered', 'locked', 'signup', 'clock_tamper'] as const;
export type OverlayReason = (typeof OVERLAY_REASONS)[number];

/**
 * Why Hearth Space shows `locked` (DESIGN §7, the `context` query parameter): `paused` when a parent
 * paused the child; without a context the allowance is used up.
 */
/**
 * `paused` (with `locked`): a parent paused the child. `unreachable` (with `signup`): the extension could
 * not reach the agent, so it held the sign-up back without asking (DESIGN §15, failing closed).
 */
export const OVERLAY_CONTEXTS = ['paused', 'unreachable'] as const;
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

/**
 * The browser extension's public key (base64 DER SubjectPublicKeyInfo, RSA-2048). The extension's
 * manifest carries it as `key`, which fixes its ID so the native host manifests can name it.
 */
export const EXTENSION_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAw94IsSMsLCkZgSPjO4/vN+pJoKttFtroSTMF51TBtWf2UMW4iBMtWjzFdPtmqCRV2W1qOKKgOQDo6cUYc51Cu80T7SPetcSVWkwzLCUdH604D1IXJ+5l/m8SFxe+8EUdpndLM0/UohpTxS0EXxRwS0olPrsKQR/DVkGCjXeNq490VEszUVOkHTuFlvoksY09TqCgGx0SlShlE8Dcx0/phBV1xeCnI/iK8vIFiO04jsg9wzajY3Gp1xKhlLBeaoA/96zIWLZw4h1StVzy+cc1IvzCp91zd/jxokdGaO9MJdlXPjKs6KsITmTe/DKfyiIwSgY+st5HDUWdazw+jql8+QIDAQAB';
/** Chromium's ID for that key: the first 16 bytes of SHA-256 of the DER key, hex digits 0-f → a-p. */
export const EXTENSION_ID = 'eddcfmgglegjhjheeojpncfhekfifdjo';
/** The extension's native messaging host (DESIGN §14). */
export const NATIVE_HOST_NAME = 'com.hearth.agent';
