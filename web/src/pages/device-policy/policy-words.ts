// The words of the Restrictions panel and the Screenshots gallery: each rule in plain words, the state
// a rule is in on the device, extension ids and screenshot intervals.
import type {
  AndroidLocationMode,
  AndroidSwitch,
  LinuxDevicePolicyView,
  LinuxPolicyRule,
  PolicySync,
} from '../../api/device-policy';
import { formatMinutes } from '../../labels';

/** A rule's label and one line on what it does for the child (`{name}` is the child's name). */
export const LINUX_RULE_WORDS: Record<LinuxPolicyRule, { label: string; hint: string }> = {
  block_software_install: {
    label: 'No installing or removing software',
    hint: 'App stores and package tools ask for a parent; {name} cannot add or remove programs.',
  },
  block_removable_media: {
    label: 'No USB sticks or other removable media',
    hint: 'USB sticks, memory cards and external disks do not open for {name}.',
  },
  block_account_changes: {
    label: 'No changing accounts',
    hint: '{name} cannot add users or change account settings, such as who is an administrator.',
  },
  block_power_actions: {
    label: 'No shutting down or restarting',
    hint: 'Shut down, restart and sleep need a parent, so the computer stays as the household left it.',
  },
  block_terminal: {
    label: 'No terminal',
    hint: 'Terminal apps are hidden from {name}’s menus and close if started anyway.',
  },
  disable_bluetooth: {
    label: 'Bluetooth off',
    hint: 'Bluetooth is switched off, so no headphones, speakers or phones connect.',
  },
  block_incognito: {
    label: 'No private or incognito windows',
    hint: 'Browsers open no private windows, so Hearth’s website rules see every site.',
  },
  block_other_extensions: {
    label: 'Only allowed browser extensions',
    hint: 'Extensions {name} adds are turned off; Hearth’s own and those you allow below keep working.',
  },
  youtube_restricted: {
    label: 'YouTube restricted mode',
    hint: 'YouTube hides videos that may be for adults, and {name} cannot switch it off.',
  },
};

export const ANDROID_SWITCH_WORDS: Record<AndroidSwitch, { label: string; hint: string }> = {
  camera_disabled: { label: 'Camera off', hint: 'No app can take photos or videos.' },
  microphone_disabled: { label: 'Microphone off', hint: 'No app can record sound or make voice calls.' },
  screen_capture_disabled: {
    label: 'No screenshots on the phone',
    hint: 'Screenshots and screen recordings cannot be taken on the device.',
  },
  install_apps_disabled: { label: 'No installing apps', hint: 'Play Store and downloads install nothing.' },
  uninstall_apps_disabled: { label: 'No removing apps', hint: 'Apps stay, Hearth included.' },
  factory_reset_disabled: { label: 'No factory reset', hint: 'The phone cannot be wiped from its settings.' },
  bluetooth_disabled: { label: 'Bluetooth off', hint: 'No headphones, speakers or other phones connect.' },
};

export const LOCATION_MODE_LABELS: Record<AndroidLocationMode, string> = {
  user_choice: 'The child chooses',
  on: 'Always on',
  off: 'Always off',
};

/** `{name}` in a rule's words becomes the child's name. */
export const withName = (text: string, name: string) => text.replaceAll('{name}', name);

/**
 * Where one rule stands on the device: never set (nothing to do), waiting for the device to apply the
 * latest version, applied, not possible there (with the agent's reason) or failed (with why).
 */
export type RuleState =
  | { kind: 'unset' }
  | { kind: 'pending' }
  | { kind: 'applied' }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'failed'; reason: string };

export const AGENT_CANNOT =
  'This device’s Hearth agent cannot apply restrictions yet; update it, and they apply when it next connects.';

export function ruleState(view: { version: number; sync: PolicySync }, rule: string): RuleState {
  const { sync } = view;
  if (sync.status === 'unsupported') {
    // The panel's summary says why once; a rule repeats only a reason of its own.
    return { kind: 'unsupported', reason: sync.rules?.[rule]?.reason ?? '' };
  }
  if (view.version === 0) return { kind: 'unset' };
  if (sync.status === 'pending') return { kind: 'pending' };
  const reported = sync.rules?.[rule];
  if (reported?.status === 'unsupported')
    return { kind: 'unsupported', reason: reported.reason ?? 'The device cannot do this.' };
  if (reported?.status === 'failed')
    return { kind: 'failed', reason: reported.reason ?? 'The device could not apply it.' };
  if (reported?.status === 'applied') return { kind: 'applied' };
  if (sync.status === 'failed')
    return { kind: 'failed', reason: sync.error ?? 'The device could not apply the restrictions.' };
  return { kind: 'applied' };
}

/** The panel's line on the whole policy: when it was sent, applied, or why not. */
export function policySummary(
  view: Pick<LinuxDevicePolicyView, 'version' | 'sync'>,
  labels: Record<string, { label: string }> = {},
): string {
  const { sync } = view;
  if (sync.status === 'unsupported') return sync.error ?? AGENT_CANNOT;
  if (view.version === 0) return 'Nothing is restricted yet. Switch on what you want, then save.';
  if (sync.status === 'pending')
    return sync.last_attempt_at
      ? 'Sent; waiting for the device to apply it. An offline device gets it when it reconnects.'
      : 'Waiting for the device: it gets the restrictions as soon as it connects.';
  if (sync.status === 'failed') {
    // The rules that failed by their names here; the server's error names them by their keys.
    const failed = Object.entries(sync.rules ?? {})
      .filter(([, result]) => result.status === 'failed')
      .map(([rule]) => labels[rule]?.label ?? rule);
    if (failed.length) return `The device could not apply everything: ${failed.join(', ')}. See why below.`;
    return sync.error
      ? `The device could not apply everything: ${sync.error}`
      : 'The device could not apply everything; see the rules below.';
  }
  return 'The device applied these restrictions.';
}

/** A Chromium extension id: 32 letters from a to p. */
export const EXTENSION_ID = /^[a-p]{32}$/;

/**
 * The extension id in what a parent pasted: the id itself, or a Chrome Web Store address that ends in
 * it. Null when there is none.
 */
export function extensionIdFrom(input: string): string | null {
  const text = input.trim().toLowerCase();
  if (EXTENSION_ID.test(text)) return text;
  const found = text.match(/(?:^|[/=])([a-p]{32})(?:[/?#]|$)/);
  return found?.[1] ?? null;
}

/** The interval choices offered; any other value saved elsewhere is offered too. */
export const INTERVAL_PRESETS = [0, 5, 10, 15, 30, 60, 120, 240, 720, 1440];
export const MIN_INTERVAL = 5;
export const MAX_INTERVAL = 1440;

export function intervalLabel(minutes: number): string {
  if (minutes === 0) return 'Off';
  if (minutes === 60) return 'Every hour';
  if (minutes === 1440) return 'Once a day';
  if (minutes % 60 === 0) return `Every ${minutes / 60} hours`;
  return `Every ${formatMinutes(minutes * 60)}`;
}

/** "1.2 MB", "640 KB". */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
