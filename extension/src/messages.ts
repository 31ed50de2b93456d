// The extension's internal runtime messages (SPEC "Extension-internal messages", DESIGN §7) and the
// popup's own. Who may send which is the worker's business (worker/router.ts): a content script never
// names a domain, the overlay page only the one the worker blocked in its tab.

/** From a content script: a sign-up form matched a layer of SPEC's detection; the worker asks the agent. */
export interface SignupDetected {
  type: 'CHECK_REGISTRATION';
  layer: string;
  reason: string;
}

/** From a content script: a login form was submitted. Only the username; the worker adds the domain. */
export interface LoginDetected {
  type: 'LOGIN_DETECTED';
  username: string;
}

/** From the popup: everything it shows. */
export interface StatusQuery {
  type: 'HEARTH_STATUS';
}

/** How the agent connection stands, in the words the popup turns into sentences. */
export type Connection =
  /** Not tried yet (the worker just started). */
  | 'connecting'
  /** The agent answered. */
  | 'connected'
  /** No native host is registered for this browser: not a Hearth device (or not installed yet). */
  | 'host_missing'
  /** The host runs but the agent daemon behind it does not answer. */
  | 'agent_unreachable'
  /** The host exited, answered nonsense, or did not answer in time. */
  | 'host_failed';

/** What the popup shows; kept by the worker in chrome.storage.local. */
export interface ExtensionStatus {
  connection: Connection;
  /** When `connection` last changed (ms since the epoch). */
  since: number;
  /** The last answer of any kind from the agent (ms), or null before one. */
  lastContactAt: number | null;
  /** Whether the agent could reach the family's server at its last answer that says so. */
  serverReachable: boolean | null;
  /** Whether sign-ups need approval for this browser's account: true, false, or null while unknown. */
  enforced: boolean | null;
  enforcedCheckedAt: number | null;
  /** The last registration check of a page, or null before one. */
  lastCheck: {
    at: number;
    domain: string;
    outcome: 'allowed' | 'blocked' | 'failed_closed' | 'failed_open';
    /** The detection layer that matched (SPEC's five), when a page's own form started the check. */
    layer?: string;
  } | null;
  policy: { version: number; blocked: number; allowed: number; loadedAt: number } | null;
  /** What the agent says about itself (GET_STATUS), when it offers that message; null otherwise. */
  agent: AgentInfo | null;
  /** The agent does not know GET_STATUS (an older agent): the popup says the details are not shared. */
  agentInfoUnsupported: boolean;
}

export interface AgentInfo {
  device_name: string | null;
  linux_username: string | null;
  child_name: string | null;
  age_tier: string | null;
  parent_note: string | null;
}

export function initialStatus(now: number): ExtensionStatus {
  return {
    connection: 'connecting',
    since: now,
    lastContactAt: null,
    serverReachable: null,
    enforced: null,
    enforcedCheckedAt: null,
    lastCheck: null,
    policy: null,
    agent: null,
    agentInfoUnsupported: false,
  };
}
