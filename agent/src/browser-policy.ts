// Browsers' managed policies (issue 17): every Chromium-based browser on the computer force-installs the
// Hearth extension from this agent's server, so a child cannot remove or disable it. The server packs
// and signs the extension with its own key (/extension/update.xml names the ID), so the ID is learnt
// from the server after authentication and kept; the native host manifests then let that ID in too,
// beside the fixed ID of an unpacked development load. Written by the daemon (root), kept on upgrade,
// removed by `install --uninstall`.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EXTENSION_ID, NATIVE_HOST_NAME } from '@hearth/protocol';
import type { AgentContext, AgentModule } from './context.js';
import type { Logger } from './log.js';
import { type AgentPaths, underRoot } from './paths.js';
import type { StateStore } from './state.js';
import { writeAtomic } from './state.js';
import { NATIVE_HOST_DIRS, nativeHostManifest } from './system-files.js';

/** Where each browser reads mandatory policies on Linux (one JSON file each; ours is hearth.json). */
export const MANAGED_POLICY_DIRS = {
  chromium: '/etc/chromium/policies/managed',
  chrome: '/etc/opt/chrome/policies/managed',
  brave: '/etc/brave/policies/managed',
  edge: '/etc/opt/edge/policies/managed',
} as const;
export const POLICY_FILE = 'hearth.json';
const STATE_FILE = 'browser-extension.json';

export interface ExtensionSource {
  extension_id: string;
  update_url: string;
}

const isSource = (d: unknown): d is ExtensionSource =>
  !!d &&
  typeof d === 'object' &&
  /^[a-p]{32}$/.test((d as ExtensionSource).extension_id) &&
  /^https?:\/\/[^\s;]+$/.test((d as ExtensionSource).update_url);

/**
 * The device policies' browser rules (DESIGN §12), merged over every account: the browsers read one
 * policy for the whole computer, so a rule on for one account holds for all of them.
 */
export interface BrowserSettings {
  block_incognito: boolean;
  block_other_extensions: boolean;
  /** Allowed besides Hearth's own extension when the others are blocked. */
  allowed_extension_ids: string[];
  youtube_restricted: boolean;
}

export const NO_BROWSER_SETTINGS: BrowserSettings = {
  block_incognito: false,
  block_other_extensions: false,
  allowed_extension_ids: [],
  youtube_restricted: false,
};

/** ForceYouTubeRestrict: 2 is Strict, the mode meant for children (1, Moderate, still shows most videos). */
export const YOUTUBE_STRICT = 2;

/**
 * The policy document of one browser: the extension installed by force from the server, then the
 * device policies' settings. Null when there is nothing to say (the file is removed).
 */
export function managedPolicy(
  source: ExtensionSource | null,
  settings: BrowserSettings = NO_BROWSER_SETTINGS,
  browser: keyof typeof MANAGED_POLICY_DIRS = 'chromium',
): Record<string, unknown> | null {
  const policy: Record<string, unknown> = {};
  if (source) policy.ExtensionInstallForcelist = [`${source.extension_id};${source.update_url}`];
  if (settings.block_incognito) {
    policy.IncognitoModeAvailability = 1;
    // Edge names its private windows InPrivate; Brave's Tor windows are private windows of their own.
    if (browser === 'edge') policy.InPrivateModeAvailability = 1;
    if (browser === 'brave') policy.TorDisabled = true;
  }
  if (settings.block_other_extensions) {
    policy.ExtensionInstallBlocklist = ['*'];
    const own = [EXTENSION_ID, ...(source ? [source.extension_id] : [])];
    policy.ExtensionInstallAllowlist = [...new Set([...own, ...settings.allowed_extension_ids])];
  }
  if (settings.youtube_restricted) policy.ForceYouTubeRestrict = YOUTUBE_STRICT;
  return Object.keys(policy).length ? policy : null;
}

/** The extension ID an update manifest names (the `appid` of its only app). */
export function appIdOf(xml: string): string | null {
  return /<app\s[^>]*appid=['"]([a-p]{32})['"]/.exec(xml)?.[1] ?? null;
}

/** Writes `text` unless the file already holds exactly it; true when written. */
function writeIfChanged(file: string, text: string): boolean {
  try {
    if (readFileSync(file, 'utf8') === text) return false;
  } catch {
    // absent: written below
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  writeAtomic(file, text, 0o644);
  return true;
}

/**
 * Puts the policies (and, once the extension is known, the host manifests) in place; the paths written
 * or removed. A browser's file goes when it would say nothing.
 */
export function applyBrowserPolicies(
  paths: AgentPaths,
  source: ExtensionSource | null,
  settings: BrowserSettings = NO_BROWSER_SETTINGS,
): string[] {
  const written: string[] = [];
  for (const [browser, dir] of Object.entries(MANAGED_POLICY_DIRS)) {
    const file = path.join(dir, POLICY_FILE);
    const policy = managedPolicy(source, settings, browser as keyof typeof MANAGED_POLICY_DIRS);
    if (!policy) {
      if (existsSync(underRoot(paths, file))) {
        rmSync(underRoot(paths, file), { force: true });
        written.push(file);
      }
      continue;
    }
    if (writeIfChanged(underRoot(paths, file), `${JSON.stringify(policy, null, 2)}\n`)) written.push(file);
  }
  if (!source) return written;
  const manifest = nativeHostManifest([source.extension_id]);
  for (const dir of Object.values(NATIVE_HOST_DIRS)) {
    const file = path.join(dir, `${NATIVE_HOST_NAME}.json`);
    if (writeIfChanged(underRoot(paths, file), manifest)) written.push(file);
  }
  return written;
}

/** Removes our policy files (the browsers' folders are shared, so they stay); the paths removed. */
export function removeBrowserPolicies(paths: AgentPaths): string[] {
  const removed: string[] = [];
  for (const dir of Object.values(MANAGED_POLICY_DIRS)) {
    const file = path.join(dir, POLICY_FILE);
    if (!existsSync(underRoot(paths, file))) continue;
    rmSync(underRoot(paths, file), { force: true });
    removed.push(file);
  }
  return removed;
}

export function keptSource(state: StateStore): ExtensionSource | null {
  return state.read(STATE_FILE, isSource);
}

async function learnSource(ctx: AgentContext, log: Logger): Promise<ExtensionSource | null> {
  const res = await ctx.serverFetch('/extension/update.xml');
  if (res.status !== 200) {
    await res.body?.cancel();
    log.info('the server offers no browser extension yet', { status: res.status });
    return null;
  }
  const text = (await res.text()).slice(0, 64 * 1024);
  const id = appIdOf(text);
  if (!id) {
    log.warn('the server’s extension update manifest names no extension');
    return null;
  }
  return { extension_id: id, update_url: `${ctx.serverUrl}/extension/update.xml` };
}

export function browserPolicyModule(): AgentModule {
  return {
    name: 'browser-policy',
    start(ctx) {
      const log = ctx.log.child({ part: 'browser-policy' });
      // The device policies (started before this part) say which browser rules are on.
      let settings = ctx.deviceBrowserSettings?.() ?? NO_BROWSER_SETTINGS;
      let current: ExtensionSource | null = null;
      /** Writes the files; throws only for `strict` callers (the device policy reports the failure). */
      const write = (strict: boolean) => {
        try {
          const written = applyBrowserPolicies(ctx.paths, current, settings);
          if (written.length)
            log.info('browser policies written', {
              extension_id: current?.extension_id ?? null,
              files: written.length,
            });
        } catch (err) {
          log.warn('could not write the browser policies', { err });
          if (strict) throw err;
        }
      };
      const apply = (source: ExtensionSource) => {
        current = source;
        write(false);
      };
      ctx.browserPolicies = {
        setSettings(next) {
          settings = next;
          write(true);
        },
      };
      // Offline at start: the last known extension is enforced all the same.
      const kept = keptSource(ctx.state);
      if (kept) apply(kept);
      else write(false);
      ctx.events.on('authenticated', () => {
        learnSource(ctx, log)
          .then((source) => {
            if (!source) return;
            const before = keptSource(ctx.state);
            if (before?.extension_id !== source.extension_id || before.update_url !== source.update_url)
              ctx.state.write(STATE_FILE, source);
            apply(source);
          })
          .catch((err) => log.debug('could not ask the server for its extension', { err }));
      });
    },
  };
}
