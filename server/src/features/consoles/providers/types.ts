import type { Weekday, WeeklyDays } from '@hearth/protocol';

// The one small interface every console vendor's client implements (docs/consoles.md). The
// service above it stores, schedules and maps errors; a client only speaks its vendor's protocol.

export type ProviderName = 'xbox' | 'nintendo';

export interface ProviderConfig {
  authBase: string;
  apiBase: string;
  /** Nintendo: the app version its headers carry (HEARTH_NINTENDO_APP_VERSION). */
  appVersion?: string;
  /** Per HTTP call; a call that takes longer fails as `transient`. Default 15 s. */
  timeoutMs?: number;
}

/** What Hearth keeps (encrypted) for a linked account. */
export interface LinkSecrets {
  /** Xbox: the rotating refresh token. Nintendo: the session token. */
  refresh_token: string;
  /** The vendor's id of the signed-in parent account. */
  account_id: string;
  account_name: string | null;
}

/** A short-lived bearer token with the moment it stops being usable (ms since the epoch). */
export interface BearerToken {
  value: string;
  usableUntil: number;
}

/** What a code exchange gives: the secrets to store, and the bearer token it already holds (memory only). */
export interface Exchanged {
  secrets: LinkSecrets;
  /** Handed to the first `session`, which then needs no token call of its own. */
  warm?: BearerToken;
}

export interface LoginStart {
  /** The vendor's sign-in address for the parent to open. */
  url: string;
  /** Hearth's own random state (sent to the vendor where it carries one). */
  state: string;
  /** The PKCE verifier to keep until the paste, or null where the vendor uses none. */
  verifier: string | null;
}

export type ProviderErrorKind =
  /** The pasted address is not the vendor's redirect, or carries no code (or an error). */
  | 'bad_redirect'
  /** The code was refused (used, unknown, wrong verifier): sign in again. */
  | 'code_refused'
  /** The stored refresh/session token no longer works: the parent must link again. */
  | 'link_expired'
  | 'denied'
  | 'not_found'
  | 'rate_limited'
  /** A 5xx, a timeout, a connection failure: try again later. */
  | 'transient'
  /** Nintendo refuses the configured app version. */
  | 'update_required'
  /** The vendor refused the limits written to it. */
  | 'invalid_limits'
  /** An answer that does not have the documented shape. */
  | 'bad_response';

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ProviderError';
  }
}

/** A console as the vendor lists it. */
export interface ProviderConsole {
  id: string;
  name: string;
}

/** A player (Xbox: a child of the family; Nintendo: a profile on a console). */
export interface ProviderPlayer {
  id: string;
  name: string;
  /** Nintendo: the console the profile is on; Xbox: null (a child plays on any Xbox). */
  console_id: string | null;
}

export interface ConsoleListing {
  consoles: ProviderConsole[];
  players: ProviderPlayer[];
}

/** One imported console and the player mapped to the child. */
export interface ConsoleRef {
  console_id: string;
  player_id: string;
}

export interface DayPlaytime {
  /** YYYY-MM-DD in the household's zone. */
  date: string;
  seconds: number;
}

/** The child's week as the service hands it to `planLimits`. */
export interface LimitsInput {
  days: WeeklyDays;
  /** Today's weekday in the household's zone, and today's adjustment in minutes (may be negative). */
  today: Weekday;
  today_extra_minutes: number;
}

/** The vendor's form of a week: what to write (compared between cycles) and what had to change. */
export interface LimitsPlan {
  /** JSON-serialisable body part the client writes; equal plans need no call. */
  payload: unknown;
  /** Each thing the vendor cannot hold, in words for the parent ("Saturday: 8 h is more than …"). */
  notes: string[];
}

export interface ProviderSession {
  listConsoles(): Promise<ConsoleListing>;
  /** The console's playtime of the player for each of `dates` (YYYY-MM-DD, household zone); days without play may be absent. */
  playtime(ref: ConsoleRef, dates: readonly string[]): Promise<DayPlaytime[]>;
  /** Writes a plan made by the provider's `planLimits`. */
  pushLimits(ref: ConsoleRef, plan: LimitsPlan): Promise<void>;
  /** Proves the stored credentials still work (refreshes if needed and makes one cheap call). */
  validate(): Promise<void>;
}

export interface ConsoleProvider {
  readonly name: ProviderName;
  /** Starts a sign-in: the address to open, a fresh state and (PKCE) verifier. */
  startLogin(): LoginStart;
  /** Reads the pasted redirect address; throws `bad_redirect`. `state` is null where the vendor sends none. */
  readRedirect(redirectUrl: string): { code: string; state: string | null };
  /** Exchanges the code (with the PKCE verifier) for the secrets to store; throws `code_refused`. */
  exchange(code: string, verifier: string | null): Promise<Exchanged>;
  /**
   * A session over stored secrets, in the household's zone. When the vendor hands out a new refresh
   * token, `rotated` is awaited with the new secrets before anything else is done with them.
   */
  session(
    secrets: LinkSecrets,
    rotated: (secrets: LinkSecrets) => Promise<void>,
    timezone: string,
    /** A bearer token `exchange` just got for these secrets, used until it runs out. */
    warm?: BearerToken,
  ): ProviderSession;
  /** The vendor's form of the week (pure, no call). */
  planLimits(input: LimitsInput): LimitsPlan;
}
