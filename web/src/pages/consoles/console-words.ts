// What the consoles pages say about each vendor, and the checks a pasted address passes before the
// server (the judge) sees it.
import type { ConsoleAccountStatus, ConsoleProvider } from '../../api/consoles';
import { isStale } from '../../api/consoles';

export interface Vendor {
  /** The console family, as parents call it. */
  name: string;
  /** With its article: "an Xbox". */
  aName: string;
  /** The account a parent signs in with. */
  account: string;
  company: string;
  /** The vendor's app where a parent can see (and change) the limits Hearth writes. */
  app: string;
  /** What the sign-in button says. */
  signIn: string;
  color: string;
  /** Why a parent would link it, in a line. */
  pitch: string;
  /** After signing in: what to copy, step by step. */
  copySteps: string[];
  /** What a right paste looks like, as the field's placeholder. */
  placeholder: string;
  /** A player, as the vendor calls one. */
  player: string;
}

export const VENDORS: Record<ConsoleProvider, Vendor> = {
  xbox: {
    name: 'Xbox',
    aName: 'an Xbox',
    account: 'Microsoft account',
    company: 'Microsoft',
    app: 'Xbox Family Settings',
    signIn: 'Open Microsoft sign-in',
    color: 'green',
    pitch:
      'Hearth writes each child’s routine to their Xbox account and brings their playtime into their usage.',
    copySteps: [
      'Sign in with the Microsoft account that organises your family (the parent’s, not a child’s).',
      'You land on a blank page. Copy the whole address from the browser’s address bar.',
      'Come back to this tab and paste it below.',
    ],
    placeholder: 'https://login.live.com/oauth20_desktop.srf?code=…',
    player: 'Xbox profile',
  },
  nintendo: {
    name: 'Nintendo Switch',
    aName: 'a Nintendo Switch',
    account: 'Nintendo Account',
    company: 'Nintendo',
    app: 'Nintendo Switch Parental Controls',
    signIn: 'Open Nintendo sign-in',
    color: 'red',
    pitch: 'Hearth writes each child’s routine to their Switch and brings their playtime into their usage.',
    copySteps: [
      'Sign in with the Nintendo Account that manages your Switch’s parental controls.',
      'On the page that says “Linking an External Account”, right-click the red “Select this person” button and choose “Copy link address”. (On a phone, press and hold it.)',
      'Come back to this tab and paste it below.',
    ],
    placeholder: 'npf54789befb391a838://auth#session_state=…',
    player: 'Switch user',
  },
};

const XBOX_REDIRECT = 'https://login.live.com/oauth20_desktop.srf';
const NINTENDO_REDIRECT = 'npf54789befb391a838://auth#';

/**
 * Why a pasted address cannot be the one the vendor gave, or null when it may be: the server reads it
 * properly and has the last word.
 */
export function redirectProblem(provider: ConsoleProvider, pasted: string): string | null {
  const value = pasted.trim();
  if (!value) return 'Paste the address you copied after signing in.';
  if (provider === 'xbox') {
    if (value.startsWith(XBOX_REDIRECT) || value.includes('code=')) return null;
    return 'This is not the address Microsoft sends you to. After signing in, copy the whole address of the blank page (it starts with https://login.live.com/oauth20_desktop.srf).';
  }
  if (value.startsWith(NINTENDO_REDIRECT)) return null;
  if (/^https?:\/\//i.test(value))
    return 'This is the address of a web page. Copy the link of the “Select this person” button instead (right-click it, Copy link address); it starts with npf54789befb391a838://auth#.';
  return 'This is not the link of the “Select this person” button. It starts with npf54789befb391a838://auth#.';
}

export type LinkHealth = 'ok' | 'expired' | 'failing' | 'waiting';

/** The link's state for its badge: a token that failed its check counts as expired. */
export function linkHealth(status: ConsoleAccountStatus): LinkHealth {
  if (status.valid === false || status.status === 'expired') return 'expired';
  if (status.status === 'failing') return 'failing';
  if (status.status === 'ok') return 'ok';
  return 'waiting';
}

export const HEALTH_LABELS: Record<LinkHealth, string> = {
  ok: 'Working',
  expired: 'Link expired — link again',
  failing: 'Not syncing',
  waiting: 'Not synced yet',
};

export const HEALTH_COLORS: Record<LinkHealth, string> = {
  ok: 'teal',
  expired: 'red',
  failing: 'yellow',
  waiting: 'gray',
};

/** Whether the account's details are older than 30 minutes (or any console's are); never synced is not stale. */
export function statusStale(status: ConsoleAccountStatus): boolean {
  if (status.last_sync_at === null) return false;
  return (
    status.stale ||
    isStale(status.last_sync_at) ||
    status.consoles.some((c) => c.last_sync_at !== null && c.stale)
  );
}

/** "Synced 2 consoles", or what went wrong, after Sync now. */
export function syncResultText(synced: number): string {
  if (synced === 0) return 'Nothing to sync yet: add a console first.';
  return synced === 1 ? 'Synced 1 console.' : `Synced ${synced} consoles.`;
}
