/** Wire shapes of the metas admin API: OpenList's `Meta` fields. */
import { Type, type Static } from 'typebox';

export const MetaSchema = Type.Object({
  id: Type.Integer(),
  path: Type.String(),
  password: Type.String(),
  p_sub: Type.Boolean(),
  write: Type.Boolean(),
  w_sub: Type.Boolean(),
  hide: Type.String({ description: 'hidden-name patterns (RE2 syntax), one per line' }),
  h_sub: Type.Boolean(),
  readme: Type.String(),
  r_sub: Type.Boolean(),
  header: Type.String(),
  header_sub: Type.Boolean(),
});
export type MetaView = Static<typeof MetaSchema>;

const TEXT = 64 * 1024;

/**
 * What create/update read; other properties (`id` on create, `*_users_sub`) are ignored. OpenList 4.2's per-user lists
 * (`read_users`, `write_users`) are refused unless empty: ignoring them would leave a folder open that its admin
 * meant to restrict.
 */
export const MetaInput = {
  path: Type.String({ minLength: 1, maxLength: 4096 }),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  p_sub: Type.Optional(Type.Boolean()),
  write: Type.Optional(Type.Boolean()),
  w_sub: Type.Optional(Type.Boolean()),
  hide: Type.Optional(Type.String({ maxLength: TEXT })),
  h_sub: Type.Optional(Type.Boolean()),
  readme: Type.Optional(Type.String({ maxLength: TEXT })),
  r_sub: Type.Optional(Type.Boolean()),
  header: Type.Optional(Type.String({ maxLength: TEXT })),
  header_sub: Type.Optional(Type.Boolean()),
  read_users: Type.Optional(Type.Array(Type.Integer(), { maxItems: 10_000, description: 'OpenList 4.2: user ids allowed to read; Ferry has no per-user lists, so only [] is accepted' })),
  write_users: Type.Optional(Type.Array(Type.Integer(), { maxItems: 10_000, description: 'OpenList 4.2: user ids allowed to write; only [] is accepted' })),
};
export const MetaCreateBody = Type.Object(MetaInput, { additionalProperties: true });
export const MetaUpdateBody = Type.Object({ id: Type.Integer({ minimum: 1 }), ...MetaInput }, { additionalProperties: true });
export type MetaInputValues = Static<typeof MetaCreateBody>;
