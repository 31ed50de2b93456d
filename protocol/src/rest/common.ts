import { type TSchema, Type } from '@sinclair/typebox';
import { AGE_TIERS, LIMITS, PARENT_ROLES, PLATFORMS } from '../constants.js';

export const strict = { additionalProperties: false } as const;

export const Id = Type.String({ minLength: 1, maxLength: 64 });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const AgeTierSchema = Type.Union(AGE_TIERS.map((t) => Type.Literal(t)));
export const RoleSchema = Type.Union(PARENT_ROLES.map((r) => Type.Literal(r)));
export const PlatformSchema = Type.Union(PLATFORMS.map((p) => Type.Literal(p)));

export const Username = Type.String({
  minLength: 1,
  maxLength: LIMITS.usernameMaxLength,
  pattern: '^\\S(.*\\S)?$',
});
export const Password = Type.String({
  minLength: LIMITS.passwordMinLength,
  maxLength: LIMITS.passwordMaxLength,
});
export const Name = Type.String({ minLength: 1, maxLength: LIMITS.nameMaxLength, pattern: '\\S' });
export const LinuxUsername = Type.String({
  minLength: 1,
  maxLength: LIMITS.linuxUsernameMaxLength,
  pattern: '^\\S+$',
});
export const ParentNote = Type.String({ maxLength: LIMITS.parentNoteMaxLength });

export const Items = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item) });
