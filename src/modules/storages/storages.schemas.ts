/** Wire shapes of the storage admin API (contract §7). */
import { Type, type Static } from 'typebox';

export const StorageSchema = Type.Object({
  id: Type.Integer(),
  mount_path: Type.String(),
  driver: Type.String(),
  order: Type.Integer(),
  remark: Type.String(),
  disabled: Type.Boolean(),
  seed_policy: Type.String(),
  proxy: Type.Boolean(),
  addition: Type.String({ description: 'driver options as a JSON string' }),
  disable_index: Type.Boolean({ description: 'left out of the search index' }),
  status: Type.String({ description: '`work`, `disabled`, or the initialisation error' }),
  modified: Type.String(),
});

export const StorageInput = {
  mount_path: Type.String({ minLength: 1, maxLength: 1024 }),
  driver: Type.String({ minLength: 1 }),
  order: Type.Optional(Type.Integer()),
  remark: Type.Optional(Type.String({ maxLength: 4096 })),
  disabled: Type.Optional(Type.Boolean()),
  seed_policy: Type.Optional(Type.Union([Type.Literal('inherit'), Type.Literal('on'), Type.Literal('off')])),
  proxy: Type.Optional(Type.Boolean()),
  addition: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })])),
  disable_index: Type.Optional(Type.Boolean()),
};

export const IdQuery = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export type StorageView = Static<typeof StorageSchema>;

const DriverOptionSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'string, text, number, bool or select' }),
  default: Type.String(),
  options: Type.String({ description: 'select: the choices, comma-joined' }),
  required: Type.Boolean(),
  help: Type.String(),
});

/** OpenList's driver `Info`: the storage's own fields, the driver's options, and its config. */
export const DriverInfoSchema = Type.Object({
  common: Type.Array(DriverOptionSchema),
  additional: Type.Array(DriverOptionSchema),
  config: Type.Object({
    name: Type.String(),
    display_name: Type.String(),
    local_sort: Type.Boolean(),
    only_local: Type.Boolean(),
    only_proxy: Type.Boolean(),
    no_cache: Type.Boolean(),
    no_upload: Type.Boolean(),
    need_ms: Type.Boolean(),
    default_root: Type.String(),
    alert: Type.String(),
    default_proxy: Type.Boolean(),
  }),
});
export type DriverInfo = Static<typeof DriverInfoSchema>;
