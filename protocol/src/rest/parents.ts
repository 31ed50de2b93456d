import { type Static, Type } from '@sinclair/typebox';
import { Id, Password, RoleSchema, strict, Timestamp, Username } from './common.js';

export const ChildPermission = Type.Object(
  { managed_user_id: Id, can_view: Type.Boolean(), can_manage_policies: Type.Boolean() },
  strict,
);
export type ChildPermission = Static<typeof ChildPermission>;

export const ParentView = Type.Object({
  id: Id,
  username: Type.String(),
  role: RoleSchema,
  children: Type.Array(ChildPermission),
  created_at: Timestamp,
});
export type ParentView = Static<typeof ParentView>;

export const CreateParentBody = Type.Object(
  {
    username: Username,
    password: Password,
    role: RoleSchema,
    children: Type.Optional(Type.Array(ChildPermission, { maxItems: 1000 })),
  },
  strict,
);
export type CreateParentBody = Static<typeof CreateParentBody>;

export const UpdateParentBody = Type.Object(
  {
    /** A new sign-in name (unique regardless of case); their sessions stay signed in. */
    username: Type.Optional(Username),
    role: Type.Optional(RoleSchema),
    children: Type.Optional(Type.Array(ChildPermission, { maxItems: 1000 })),
    password: Type.Optional(Password),
  },
  strict,
);
export type UpdateParentBody = Static<typeof UpdateParentBody>;
