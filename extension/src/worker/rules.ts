// Small decisions of the worker, kept apart from the chrome.* wiring so that tests can hold them to their
// word: where a domain comes from, what the overlay is told, and when a failed check blocks.
import type { ExtensionStatus } from '../messages.ts';

/** The frame a runtime message came from, as Chromium describes it (chrome.runtime.MessageSender). */
export interface Sender {
  id?: string;
  url?: string;
  origin?: string;
  frameId?: number;
  tab?: { id?: number };
}

export const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

/** A hostname as the server stores domains: lower case, punycode (URL does both), no dot at the end. */
export function hostOf(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    const host = u.hostname.replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
    return host || null;
  } catch {
    return null;
  }
}

/**
 * The domain a content script speaks for: its frame's own URL, or for an about:blank / srcdoc frame the
 * origin Chromium gives it. Never anything the script wrote into its message.
 */
export function senderDomain(sender: Sender): string | null {
  if (sender.url) {
    const host = hostOf(sender.url);
    if (host) return host;
  }
  if (sender.url && !/^about:(blank|srcdoc)$/.test(sender.url)) return null;
  return sender.origin ? hostOf(sender.origin) : null;
}

export type OverlayContext = 'unreachable';

export interface OverlayQuery {
  reason: 'signup' | 'filtered';
  /** The domain (sign-up: the one the check was for; filtered: the host the child tried to open). */
  device: string;
  /** Sign-up: the page to go back to once approved. */
  url?: string;
  age?: string | null;
  note?: string | null;
  /** Why a check could not be made (fail closed); the page may say so. */
  context?: OverlayContext;
  lang?: string | null;
}

/** `<extension>/blockedv2.html?reason=…&device=…` with the parameters of DESIGN §7. */
export function overlayUrl(pageUrl: string, q: OverlayQuery): string {
  const params = new URLSearchParams({ reason: q.reason, device: q.device });
  if (q.url) params.set('url', q.url);
  if (q.age) params.set('age', q.age);
  if (q.note) params.set('note', q.note);
  if (q.context) params.set('context', q.context);
  if (q.lang) params.set('lang', q.lang);
  return `${pageUrl}?${params}`;
}

/**
 * A sign-up check that got no answer from the family's server blocks when this browser is known (or
 * must be assumed) to be a child's: DESIGN §15 "fails closed for sign-up checks on enforced devices".
 * - `enforced` true (the agent said so before): block.
 * - `enforced` false (an account sign-ups are not enforced for, say a parent's): let the page be.
 * - unknown: block when a native host is registered in this browser (so the Hearth agent is installed:
 *   a Hearth device), let the page be when none is (a browser that Hearth does not look after).
 */
export function failsClosed(status: Pick<ExtensionStatus, 'enforced' | 'connection'>): boolean {
  if (status.enforced !== null) return status.enforced;
  return status.connection !== 'host_missing';
}
