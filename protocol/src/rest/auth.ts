import { type Static, Type } from '@sinclair/typebox';
import { Id, Name, Password, RoleSchema, strict, Username } from './common.js';

export const SignInBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  strict,
);
export type SignInBody = Static<typeof SignInBody>;

export const SetupBody = Type.Object(
  { username: Username, password: Password, household_name: Name },
  strict,
);
export type SetupBody = Static<typeof SetupBody>;

export const SessionView = Type.Object({
  parent: Type.Object({ id: Id, username: Type.String() }),
  /** `timezone`: the IANA zone the household's days are read in (DESIGN §10). */
  household: Type.Object({ id: Id, name: Type.String(), timezone: Type.String() }),
  role: RoleSchema,
  csrf_token: Type.String(),
});
export type SessionView = Static<typeof SessionView>;

export const SetupState = Type.Object({
  setup_required: Type.Boolean(),
  open_signup: Type.Boolean(),
  version: Type.String(),
});
