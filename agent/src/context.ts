// What every part of the daemon is given: paths, log, state, the server connection, and the few
// services the parts offer each other (the overlay, the kept domain policies, the time enforcer).
import type { EventEmitter } from 'node:events';
import type { ShowOverlayArgs } from '@hearth/protocol';
import type { HumanAccount } from './accounts.js';
import type { BrowserSettings } from './browser-policy.js';
import type { CommandHandler, Frame } from './channel.js';
import type { Logger } from './log.js';
import type { AgentPaths } from './paths.js';
import type { StateStore } from './state.js';

export interface AgentEvents {
  /** The socket is authenticated (first time and after every reconnect). */
  authenticated: [];
  disconnected: [];
  /** A device policy was applied (the status file shows each account's rules). */
  devicePolicyApplied: [];
}

export interface OverlayState {
  linux_username: string;
  reason: string;
  since: string;
}

/** Hearth Space on the child's screen (the kiosk window). */
export interface OverlayControl {
  show(args: ShowOverlayArgs): Promise<void>;
  dismiss(linuxUsername: string): Promise<void>;
  current(): OverlayState[];
}

export interface DomainPolicy {
  version: number;
  managed_user_id: string | null;
  block: string[];
  allow: string[];
}

/** The domain policies the agent keeps per account; the native host serves them to the extension. */
export interface DomainPolicies {
  get(linuxUsername: string): DomainPolicy | null;
  /** Called with the account whose policy changed. */
  onChange(listener: (linuxUsername: string, version: number) => void): void;
}

export interface AgentContext {
  paths: AgentPaths;
  log: Logger;
  state: StateStore;
  version: string;
  hostname: string;
  systemId: string;
  /** The server this device is enrolled with (its base URL, no trailing slash). */
  serverUrl: string;
  /** The device's human accounts (read again on each call: accounts come and go). */
  accounts(): HumanAccount[];
  events: EventEmitter<AgentEvents>;
  /** Whether the socket is authenticated now. */
  connected(): boolean;
  onCommand(name: string, handler: CommandHandler): void;
  onPush(type: string, handler: (frame: Frame) => void): void;
  /** Sends now if connected; false when not (the caller redoes the work later). */
  sendNow(frame: Frame): Promise<boolean>;
  /** Kept in the persisted outbox until an authenticated socket takes it; `key` keeps only the newest. */
  sendDurable(frame: Frame, key?: string): void;
  /** A request to the server with the device token (fetch semantics; path and query, e.g. `/api/...`). */
  serverFetch(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  /** Server clock minus ours in ms, from the last answer that carried a Date header; null before one. */
  serverClockOffset(): number | null;
  overlay?: OverlayControl;
  domainPolicies?: DomainPolicies;
  /** The browsers' managed policy files; `setSettings` rewrites them (throws when it cannot). */
  browserPolicies?: { setSettings(settings: BrowserSettings): void };
  /** The device policies' browser rules merged over the accounts (read by the browser part at start). */
  deviceBrowserSettings?: () => BrowserSettings;
  /** Each account's device policy as last applied (status and GET_STATUS). */
  devicePolicies?: { summary(username?: string): Record<string, DevicePolicySummary> };
}

export interface DevicePolicySummary {
  version: number;
  applied_at: string;
  rules: Record<string, { status: string; reason?: string }>;
}

/** One part of the daemon. Started in order after the context exists, stopped in reverse. */
export interface AgentModule {
  name: string;
  start(ctx: AgentContext): void | Promise<void>;
  stop?(): void | Promise<void>;
}
