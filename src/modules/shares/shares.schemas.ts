/** Wire shapes of the shares API (contract §8). */
import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/envelope.js';

export const ShareSchema = Type.Object({
  id: Type.String(),
  files: Type.Array(Type.String()),
  expires: Nullable(Type.String()),
  pwd: Type.String(),
  accessed: Type.Integer(),
  max_accessed: Type.Integer(),
  disabled: Type.Boolean(),
  remark: Type.String(),
  creator: Type.String(),
  creator_role: Type.Integer(),
  url: Type.String(),
});

export const Fields = {
  files: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 1000, description: 'paths relative to your base path; each must exist' }),
  expires: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'RFC 3339 time, or null for never' })),
  pwd: Type.Optional(Type.String({ maxLength: 256 })),
  max_accessed: Type.Optional(Type.Integer({ minimum: 0, description: 'download limit; 0 = unlimited' })),
  accessed: Type.Optional(Type.Integer({ minimum: 0 })),
  disabled: Type.Optional(Type.Boolean()),
  remark: Type.Optional(Type.String({ maxLength: 4096 })),
  creator: Type.Optional(Type.String({ maxLength: 256, description: 'admin only: the owning username' })),
};

export const CreateBody = Type.Object({ ...Fields, id: Type.Optional(Type.String({ maxLength: 1024, description: 'custom id (bit 15)' })) });

export const UpdateBody = Type.Object({
  ...Fields,
  files: Type.Optional(Fields.files),
  id: Type.String({ minLength: 1, maxLength: 1024 }),
  new_id: Type.Optional(Type.String({ maxLength: 1024, description: 'rename (bit 15)' })),
});

export const IdQuery = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1024 }) });

export const ListQuery = Type.Object({ page: Type.Optional(Type.Integer()), per_page: Type.Optional(Type.Integer()) });

export type ShareView = Static<typeof ShareSchema>;

export const PublicListBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 1024 }),
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'inside the share, as after /sd/<id>' })),
  pwd: Type.Optional(Type.String({ maxLength: 256 })),
});

export const PublicListSchema = Type.Object({
  /** false: `path` named a file, and `content` holds just that file. */
  is_dir: Type.Boolean(),
  content: Type.Array(Type.Object({ name: Type.String(), size: Type.Integer(), is_dir: Type.Boolean(), modified: Type.String() })),
});
