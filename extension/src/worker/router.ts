// Who may ask the worker what (the security half of DESIGN §15). Three kinds of senders reach
// chrome.runtime.onMessage, all of this extension (no externally_connectable, no onMessageExternal):
// - content scripts in web pages: CHECK_REGISTRATION (a sign-up matched) and LOGIN_DETECTED. The domain is
//   the sender frame's, never one the script names; pages themselves cannot reach us at all.
// - the overlay page, top frame of a tab the worker itself sent there: CHECK_REGISTRATION,
//   REQUEST_REGISTRATION and ACCESS_REQUEST, for the domain and URL the worker recorded for that tab.
// - the popup: HEARTH_STATUS.
// Anything else is refused with `{ok:false, error:"forbidden"}` and reaches nobody.
import type { ExtensionStatus } from '../messages.ts';
import { isHttpUrl, type Sender, senderDomain } from './rules.ts';

/** What the worker keeps about a tab it redirected to the overlay (in chrome.storage.session). */
export interface BlockRecord {
  reason: 'signup' | 'filtered';
  domain: string;
  /** Sign-up: the top page to go back to. */
  url: string | null;
  at: number;
}

export type Reply = Record<string, unknown>;

export interface RouterDeps {
  extensionId: string;
  /** chrome.runtime.getURL */
  pageUrl(path: string): string;
  blockedIn(tabId: number): Promise<BlockRecord | null>;
  /** A content script's sign-up match (by `layer`) in `tabId`'s frame `frameId` for `domain`. */
  signupDetected(
    tabId: number,
    frameId: number,
    domain: string,
    frameUrl: string,
    layer: string,
  ): Promise<Reply>;
  loginDetected(domain: string, username: string): Promise<Reply>;
  /** A top frame was shown without a navigation (prerendered, or restored from the back/forward cache). */
  pageShown(tabId: number, domain: string): Promise<Reply>;
  /** The overlay page's registration check, for a tab the worker blocked. */
  checkRegistration(domain: string): Promise<Reply>;
  requestRegistration(domain: string, url: string | null): Promise<Reply>;
  /** `domain`: the site the worker recorded for the tab (never one the page names). */
  accessRequest(reason: string, message: string, domain: string): Promise<Reply>;
  status(): ExtensionStatus;
  version: string;
}

export const FORBIDDEN: Reply = { ok: false, error: 'forbidden' };
const INVALID: Reply = { ok: false, error: 'invalid' };
const USERNAME_MAX = 320;
const MESSAGE_MAX = 2000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

export function createRouter(deps: RouterDeps): (message: unknown, sender: Sender) => Promise<Reply> {
  const origin = deps.pageUrl('');
  const overlayPage = deps.pageUrl('blockedv2.html');
  const popupPage = deps.pageUrl('popup.html');
  const isPage = (url: string | undefined, page: string) =>
    !!url && (url === page || url.startsWith(`${page}?`) || url.startsWith(`${page}#`));

  async function fromContentScript(message: Record<string, unknown>, sender: Sender): Promise<Reply> {
    const tabId = sender.tab?.id;
    const domain = senderDomain(sender);
    if (tabId === undefined || tabId < 0 || !domain || !sender.url) return FORBIDDEN;
    switch (message.type) {
      case 'CHECK_REGISTRATION':
        return deps.signupDetected(
          tabId,
          sender.frameId ?? 0,
          domain,
          sender.url,
          typeof message.layer === 'string' ? message.layer.slice(0, 40) : '',
        );
      case 'LOGIN_DETECTED': {
        const username = typeof message.username === 'string' ? message.username.trim() : '';
        if (!username || username.length > USERNAME_MAX) return INVALID;
        return deps.loginDetected(domain, username);
      }
      case 'PAGE_SHOWN':
        return deps.pageShown(tabId, domain);
      default:
        return FORBIDDEN;
    }
  }

  async function fromOverlay(message: Record<string, unknown>, sender: Sender): Promise<Reply> {
    // Top frame of a real tab only: a page that frames our overlay is not the child's blocked tab.
    const tabId = sender.tab?.id;
    if (tabId === undefined || tabId < 0 || sender.frameId !== 0) return FORBIDDEN;
    const record = await deps.blockedIn(tabId);
    if (!record) return FORBIDDEN;
    switch (message.type) {
      case 'CHECK_REGISTRATION':
        if (record.reason !== 'signup' || message.domain !== record.domain) return FORBIDDEN;
        return deps.checkRegistration(record.domain);
      case 'REQUEST_REGISTRATION':
        if (record.reason !== 'signup' || message.domain !== record.domain) return FORBIDDEN;
        if (message.url !== undefined && message.url !== '' && message.url !== record.url) return FORBIDDEN;
        return deps.requestRegistration(record.domain, record.url);
      case 'ACCESS_REQUEST': {
        if (message.reason !== record.reason) return FORBIDDEN;
        const text = typeof message.message === 'string' ? message.message : '';
        if (!text.trim() || text.length > MESSAGE_MAX) return INVALID;
        return deps.accessRequest(record.reason, text, record.domain);
      }
      default:
        return FORBIDDEN;
    }
  }

  return async (message, sender) => {
    if (sender.id !== deps.extensionId || !isObject(message)) return FORBIDDEN;
    if (isPage(sender.url, overlayPage)) return fromOverlay(message, sender);
    if (isPage(sender.url, popupPage)) {
      return message.type === 'HEARTH_STATUS'
        ? { ok: true, version: deps.version, status: deps.status() }
        : FORBIDDEN;
    }
    // Our other pages (none today) ask for nothing; web pages speak through their content script only.
    if (sender.url?.startsWith(origin)) return FORBIDDEN;
    if (!isHttpUrl(sender.url) && !/^about:(blank|srcdoc)$/.test(sender.url ?? '')) return FORBIDDEN;
    return fromContentScript(message, sender);
  };
}
