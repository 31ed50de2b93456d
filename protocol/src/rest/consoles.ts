import { type Static, Type } from '@sinclair/typebox';
import { Id, Nullable, strict } from './common.js';

// DESIGN §6 and §13: linking a household's console account, importing consoles, their sync state.

export const CONSOLE_PROVIDERS = ['xbox', 'nintendo'] as const;
export type ConsoleProviderName = (typeof CONSOLE_PROVIDERS)[number];
/** Console details older than this show as stale (SPEC "Console sync behaviour" 4). */
export const CONSOLE_STALE_MS = 30 * 60 * 1000;
/** How often the worker syncs each linked household. */
export const CONSOLE_SYNC_MS = 5 * 60 * 1000;

export const ConsoleLoginUrlView = Type.Object({ url: Type.String(), state: Type.String() });
export type ConsoleLoginUrlView = Static<typeof ConsoleLoginUrlView>;

export const ConsoleAuthenticateBody = Type.Object(
  {
    redirect_url: Type.String({ minLength: 1, maxLength: 4096 }),
    /** The `state` login-url answered (the vendor's redirect carries it too where it has one). */
    state: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  strict,
);
export type ConsoleAuthenticateBody = Static<typeof ConsoleAuthenticateBody>;

export const ConsoleAuthenticateView = Type.Object({
  linked: Type.Boolean(),
  account_name: Nullable(Type.String()),
});
export type ConsoleAuthenticateView = Static<typeof ConsoleAuthenticateView>;

export const ConsoleDevicesView = Type.Object({
  consoles: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      /** The Hearth device this console was imported as, or null. */
      imported_system_id: Nullable(Type.String()),
    }),
  ),
  players: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      /** Nintendo: the console the profile is on; Xbox: null (a child plays on any Xbox). */
      console_id: Nullable(Type.String()),
      /** The child the player is mapped to through an imported console, or null. */
      managed_user_id: Nullable(Type.String()),
    }),
  ),
});
export type ConsoleDevicesView = Static<typeof ConsoleDevicesView>;

export const ConsoleView = Type.Object({
  system_id: Type.String(),
  console_id: Type.String(),
  name: Type.String(),
  player_id: Type.String(),
  player_name: Type.String(),
  managed_user_id: Id,
  last_sync_at: Nullable(Type.String()),
  stale: Type.Boolean(),
  error: Nullable(Type.String()),
  /** What the console could not hold of the child's week, in words. */
  notes: Type.Array(Type.String()),
});
export type ConsoleView = Static<typeof ConsoleView>;

export const ConsoleAccountStatusQuery = Type.Object({
  validate: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')]),
  ),
});
export type ConsoleAccountStatusQuery = Static<typeof ConsoleAccountStatusQuery>;

export const ConsoleAccountStatusView = Type.Object({
  linked: Type.Boolean(),
  /** Only with validate=true on a linked account: whether the stored credentials still work. */
  valid: Type.Optional(Type.Boolean()),
  last_sync_at: Nullable(Type.String()),
  account_name: Nullable(Type.String()),
  /** ok, expired (link again), failing (the vendor fails; Hearth retries later); null when not linked. */
  status: Nullable(Type.Union([Type.Literal('ok'), Type.Literal('expired'), Type.Literal('failing')])),
  error: Nullable(Type.String()),
  stale: Type.Boolean(),
  consoles: Type.Array(ConsoleView),
});
export type ConsoleAccountStatusView = Static<typeof ConsoleAccountStatusView>;

export const ConsoleImportBody = Type.Object(
  {
    console_id: Type.String({ minLength: 1, maxLength: 200 }),
    label: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    player_id: Type.String({ minLength: 1, maxLength: 200 }),
    managed_user_id: Type.String({ minLength: 1, maxLength: 64 }),
  },
  strict,
);
export type ConsoleImportBody = Static<typeof ConsoleImportBody>;

export const ConsoleUnlinkView = Type.Object({ linked: Type.Boolean() });
export type ConsoleUnlinkView = Static<typeof ConsoleUnlinkView>;

export const ConsoleSyncView = Type.Object({
  /** Consoles synced without an error in this run. */
  synced: Type.Integer(),
  /** What failed, in words for the parent. */
  errors: Type.Array(Type.String()),
});
export type ConsoleSyncView = Static<typeof ConsoleSyncView>;
