import { type Static, Type } from '@sinclair/typebox';
import { Id, Nullable, strict } from './common.js';

// DESIGN §12: device policies (Linux per mapping; Android per mapping and per device) and screenshots.

/** The Linux rules, each a switch (false: off). */
export const LINUX_POLICY_RULES = [
  'block_software_install',
  'block_removable_media',
  'block_account_changes',
  'block_power_actions',
  'block_terminal',
  'disable_bluetooth',
  'block_incognito',
  'block_other_extensions',
  'youtube_restricted',
] as const;
export type LinuxPolicyRule = (typeof LINUX_POLICY_RULES)[number];

/** A Chromium extension id: 32 letters a–p. */
export const ExtensionId = Type.String({ pattern: '^[a-p]{32}$' });
/** Extension ids a Linux policy may allow besides Hearth's own. */
export const MAX_ALLOWED_EXTENSIONS = 100;

export const LinuxDevicePolicy = Type.Object(
  {
    block_software_install: Type.Boolean(),
    block_removable_media: Type.Boolean(),
    block_account_changes: Type.Boolean(),
    block_power_actions: Type.Boolean(),
    block_terminal: Type.Boolean(),
    disable_bluetooth: Type.Boolean(),
    block_incognito: Type.Boolean(),
    block_other_extensions: Type.Boolean(),
    allowed_extension_ids: Type.Array(ExtensionId, { maxItems: MAX_ALLOWED_EXTENSIONS }),
    youtube_restricted: Type.Boolean(),
  },
  strict,
);
export type LinuxDevicePolicy = Static<typeof LinuxDevicePolicy>;

export const ANDROID_LOCATION_MODES = ['user_choice', 'on', 'off'] as const;

export const AndroidDevicePolicy = Type.Object(
  {
    camera_disabled: Type.Boolean(),
    microphone_disabled: Type.Boolean(),
    screen_capture_disabled: Type.Boolean(),
    install_apps_disabled: Type.Boolean(),
    uninstall_apps_disabled: Type.Boolean(),
    factory_reset_disabled: Type.Boolean(),
    bluetooth_disabled: Type.Boolean(),
    location_mode: Type.Union(ANDROID_LOCATION_MODES.map((m) => Type.Literal(m))),
  },
  strict,
);
export type AndroidDevicePolicy = Static<typeof AndroidDevicePolicy>;

export const DEVICE_POLICY_KINDS = ['linux', 'android'] as const;
export type DevicePolicyKind = (typeof DEVICE_POLICY_KINDS)[number];

/** How the agent answered for one rule (`policy_applied`'s `rules`). */
export const RULE_OUTCOMES = ['applied', 'unsupported', 'failed'] as const;
export type RuleOutcome = (typeof RULE_OUTCOMES)[number];
export const RuleResult = Type.Object(
  {
    status: Type.Union(RULE_OUTCOMES.map((s) => Type.Literal(s))),
    /** Why a rule is unsupported or failed, in words (e.g. "rfkill is not installed"). */
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  strict,
);
export type RuleResult = Static<typeof RuleResult>;

/** The GET's delivery state: pending until the agent's `policy_applied` of this version. */
export const DevicePolicySync = Type.Object({
  status: Type.Union((['synced', 'pending', 'failed', 'unsupported'] as const).map((s) => Type.Literal(s))),
  applied_version: Nullable(Type.Integer()),
  last_attempt_at: Type.Optional(Nullable(Type.String())),
  error: Type.Optional(Nullable(Type.String())),
  /** Per rule, as the agent last reported it (absent before the first report). */
  rules: Type.Optional(Type.Record(Type.String(), RuleResult)),
});
export type DevicePolicySync = Static<typeof DevicePolicySync>;

export const LinuxDevicePolicyView = Type.Object({
  mapping_id: Id,
  version: Type.Integer(),
  ...LinuxDevicePolicy.properties,
  sync: DevicePolicySync,
});
export type LinuxDevicePolicyView = Static<typeof LinuxDevicePolicyView>;

/** Per mapping (`mapping_id`) or device-wide (`system_id`). */
export const AndroidDevicePolicyView = Type.Object({
  mapping_id: Type.Optional(Id),
  system_id: Type.Optional(Type.String()),
  version: Type.Integer(),
  ...AndroidDevicePolicy.properties,
  sync: DevicePolicySync,
});
export type AndroidDevicePolicyView = Static<typeof AndroidDevicePolicyView>;

/** `set_device_policy` (server → agent command, through the durable queue). */
export interface SetDevicePolicyArgs {
  kind: DevicePolicyKind;
  /** The account (Linux, Android per mapping); absent for the Android device-wide policy. */
  linux_username?: string;
  version: number;
  policy: LinuxDevicePolicy | AndroidDevicePolicy;
}

// ——— screenshots ———

/** Largest screenshot upload. */
export const MAX_SCREENSHOT_BYTES = 4 * 1024 * 1024;
/** Largest screenshot dimensions accepted (a decompression bomb declares more). */
export const MAX_SCREENSHOT_PIXELS = 8192 * 8192;
export const SCREENSHOT_TYPES = ['image/png', 'image/jpeg'] as const;

export const CaptureScreenshotBody = Type.Object(
  { linux_username: Type.String({ minLength: 1, maxLength: 64 }) },
  strict,
);
export type CaptureScreenshotBody = Static<typeof CaptureScreenshotBody>;

/** `capture_screenshot` (server → agent command). */
export interface CaptureScreenshotArgs {
  linux_username: string;
  /** Ties the upload to the parent's request (absent for periodic captures). */
  request_id?: string;
}

/** `POST /api/devices/<system_id>/screenshots/capture`: the command's fate and the id the upload names. */
export const CaptureScreenshotAnswer = Type.Object({
  delivered: Type.Boolean(),
  queued: Type.Boolean(),
  request_id: Type.String(),
  /** The agent answered the capture with an error (in its words): no picture comes. */
  error: Type.Optional(Type.String()),
});
export type CaptureScreenshotAnswer = Static<typeof CaptureScreenshotAnswer>;

/** The agent's upload names its account, and may name the request it answers. */
export const SCREENSHOT_USERNAME_HEADER = 'x-hearth-linux-username';
export const SCREENSHOT_REQUEST_HEADER = 'x-hearth-request-id';

export const ScreenshotView = Type.Object({
  id: Id,
  system_id: Type.String(),
  linux_username: Type.String(),
  taken_at: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  bytes: Type.Integer(),
  content_type: Type.String(),
  /** The parent's capture it answers; null for periodic ones. */
  request_id: Type.Optional(Nullable(Type.String())),
  image_url: Type.String(),
});
export type ScreenshotView = Static<typeof ScreenshotView>;
