/** Wire shapes of the users API (contract §5): the server's types and the OpenAPI document come from these. */
import { Type, type Static } from 'typebox';

export const UserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  password: Type.String(),
  base_path: Type.String(),
  role: Type.Integer(),
  disabled: Type.Boolean(),
  permission: Type.Integer(),
  sso_id: Type.String(),
  otp: Type.Boolean(),
});

export const UserInput = {
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  base_path: Type.Optional(Type.String({ maxLength: 4096 })),
  role: Type.Optional(Type.Integer()),
  permission: Type.Optional(Type.Integer()),
  disabled: Type.Optional(Type.Boolean()),
  sso_id: Type.Optional(Type.String({ maxLength: 256 })),
};

export const IdQuery = Type.Object({ id: Type.Integer() });

export type UserView = Static<typeof UserSchema>;
