// The popup's words, in the child's language (the browser's), as Hearth Space keeps its own
// (overlay/src/locales). Calm and plain: what is connected, what that means, nothing to fix by hand.
import type { Connection } from '../messages.ts';

export interface PopupText {
  lang: string;
  title: string;
  headline: Record<Connection | 'serverAway', string>;
  detail: Record<Connection | 'serverAway', string>;
  /** Added while not connected and sign-ups are held back (fail closed). */
  signupsPaused: string;
  labels: {
    device: string;
    account: string;
    /** One row for both while the agent shares neither. */
    deviceAndAccount: string;
    signups: string;
    policy: string;
    lastCheck: string;
  };
  notShared: string;
  notKnown: string;
  signupsOn: string;
  signupsOff: string;
  policyLine: (version: number, count: number, formatted: string) => string;
  policyNone: string;
  checkOutcome: Record<'allowed' | 'blocked' | 'failed_closed' | 'failed_open', string>;
  noChecks: string;
  footer: (version: string) => string;
}

export const en: PopupText = {
  lang: 'en',
  title: 'Hearth',
  headline: {
    connected: 'Hearth is looking after this browser',
    serverAway: 'Hearth is waiting for your family’s server',
    connecting: 'Connecting to Hearth…',
    host_missing: 'Hearth isn’t set up on this computer',
    agent_unreachable: 'Hearth can’t reach its helper right now',
    host_failed: 'Hearth’s helper stopped answering',
  },
  detail: {
    connected: 'Connected to the Hearth agent on this computer.',
    serverAway:
      'Connected to the Hearth agent on this computer, but it can’t reach your family’s Hearth server at the moment.',
    connecting: 'Checking in with the Hearth agent on this computer.',
    host_missing:
      'The Hearth agent isn’t installed here, so this browser isn’t connected to your family’s Hearth.',
    agent_unreachable:
      'The Hearth agent on this computer isn’t answering. Hearth keeps trying by itself; nothing needs doing.',
    host_failed: 'The connection to the Hearth agent broke off. Hearth keeps trying by itself.',
  },
  signupsPaused: 'Signing up on new websites waits until Hearth is connected again.',
  labels: {
    device: 'Device',
    account: 'Account',
    deviceAndAccount: 'Device and account',
    signups: 'New accounts',
    policy: 'Blocked sites list',
    lastCheck: 'Last check',
  },
  notShared: 'Not shared by this Hearth agent',
  notKnown: 'Not known yet',
  signupsOn: 'Need a parent’s OK',
  signupsOff: 'No approval needed',
  policyLine: (version, count, n) => `Version ${version} · ${n} ${count === 1 ? 'site' : 'sites'}`,
  policyNone: 'Not loaded yet',
  checkOutcome: {
    allowed: 'allowed',
    blocked: 'asked a parent',
    failed_closed: 'waiting for Hearth',
    failed_open: 'not checked',
  },
  noChecks: 'No sign-up pages so far',
  footer: (version) => `Hearth extension ${version}`,
};

export const de: PopupText = {
  lang: 'de',
  title: 'Hearth',
  headline: {
    connected: 'Hearth passt auf diesen Browser auf',
    serverAway: 'Hearth wartet auf den Server deiner Familie',
    connecting: 'Verbindung zu Hearth …',
    host_missing: 'Hearth ist auf diesem Computer nicht eingerichtet',
    agent_unreachable: 'Hearth erreicht seinen Helfer gerade nicht',
    host_failed: 'Der Helfer von Hearth antwortet nicht mehr',
  },
  detail: {
    connected: 'Verbunden mit dem Hearth-Agenten auf diesem Computer.',
    serverAway:
      'Verbunden mit dem Hearth-Agenten auf diesem Computer, aber er erreicht den Hearth-Server deiner Familie gerade nicht.',
    connecting: 'Hearth meldet sich beim Hearth-Agenten auf diesem Computer.',
    host_missing:
      'Der Hearth-Agent ist hier nicht installiert, deshalb ist dieser Browser nicht mit dem Hearth deiner Familie verbunden.',
    agent_unreachable:
      'Der Hearth-Agent auf diesem Computer antwortet nicht. Hearth versucht es von selbst weiter; du musst nichts tun.',
    host_failed: 'Die Verbindung zum Hearth-Agenten ist abgebrochen. Hearth versucht es von selbst weiter.',
  },
  signupsPaused: 'Neue Anmeldungen auf Websites warten, bis Hearth wieder verbunden ist.',
  labels: {
    device: 'Gerät',
    account: 'Konto',
    deviceAndAccount: 'Gerät und Konto',
    signups: 'Neue Konten',
    policy: 'Liste gesperrter Seiten',
    lastCheck: 'Letzte Prüfung',
  },
  notShared: 'Teilt dieser Hearth-Agent nicht mit',
  notKnown: 'Noch nicht bekannt',
  signupsOn: 'Brauchen das OK deiner Eltern',
  signupsOff: 'Keine Freigabe nötig',
  policyLine: (version, count, n) => `Version ${version} · ${n} ${count === 1 ? 'Seite' : 'Seiten'}`,
  policyNone: 'Noch nicht geladen',
  checkOutcome: {
    allowed: 'erlaubt',
    blocked: 'Eltern gefragt',
    failed_closed: 'wartet auf Hearth',
    failed_open: 'nicht geprüft',
  },
  noChecks: 'Bisher keine Anmeldeseiten',
  footer: (version) => `Hearth-Erweiterung ${version}`,
};

/** The first of the browser's languages we have words for; English otherwise. */
export function pickText(languages: readonly string[]): PopupText {
  for (const tag of languages) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'de') return de;
    if (base === 'en') return en;
  }
  return en;
}
