import type { AgeTier, OverlayReason } from '@hearth/protocol';
import { de } from './de.ts';
import { en } from './en.ts';

/** A string that changes with the child's age tier. */
export type ByTier = Record<AgeTier, string>;

export type PresetTier = Exclude<AgeTier, 'teen'>;
export type PresetReason = Exclude<OverlayReason, 'signup'>;

export interface Content {
  headline: string;
  description: string;
}

export interface Catalogue {
  /** BCP 47 language tag for <html lang>. */
  lang: string;
  content: Record<OverlayReason, Record<AgeTier, Content>>;
  /** `locked` with `context=paused`: a parent paused the child; nothing was used up. */
  paused: Record<AgeTier, Content>;
  /** Quick requests for the younger tiers; sign-up has its own button instead. */
  presets: Record<PresetReason, Record<PresetTier, string[]>>;
  pausedPresets: Record<PresetTier, string[]>;
  ui: {
    deviceLabel: string;
    siteLabel: string;
    noteTitle: ByTier;
    breathingTitle: ByTier;
    breathingHint: ByTier;
    breathingHintStill: string;
    cues: Record<'in' | 'hold' | 'out' | 'rest', ByTier>;
    pause: string;
    resume: string;
    drawingTitle: ByTier;
    canvasLabel: string;
    colours: string;
    colourNames: [string, string, string, string, string, string];
    eraser: string;
    clear: string;
    talkTitle: ByTier;
    talkIntro: ByTier;
    messageLabel: string;
    messagePlaceholder: string;
    /** `{n}` characters used, `{max}` allowed. */
    counter: string;
    counterOver: string;
    send: string;
    sending: string;
    sent: ByTier;
    failed: ByTier;
    preview: string;
    empty: string;
    tooLong: string;
    sentMark: string;
    signupTitle: ByTier;
    signupIntro: ByTier;
    signupButton: string;
    signupRequesting: string;
    signupWaiting: ByTier;
    signupApproved: string;
    signupApprovedNoUrl: string;
    signupFailed: ByTier;
    signupUnavailable: string;
    /** The sign-up was held back because Hearth could not be asked (context=unreachable). */
    signupUnreachable: ByTier;
    /** The parent said no to this request; the child may ask again. */
    signupDeclined: ByTier;
  };
}

const catalogues: Record<string, Catalogue> = { en, de };

/** `lang` wins, then the browser's languages; the primary subtag decides, English is the fallback. */
export function pickCatalogue(lang: string | null, browser: readonly string[]): Catalogue {
  for (const tag of [lang, ...browser]) {
    const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
    if (primary && Object.hasOwn(catalogues, primary)) return catalogues[primary] as Catalogue;
  }
  return en;
}

export function format(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    Object.hasOwn(values, key) ? String(values[key]) : whole,
  );
}
