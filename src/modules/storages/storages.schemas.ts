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
};

export const IdQuery = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export type StorageView = Static<typeof StorageSchema>;

const DriverOptionSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'string, number, bool or select' }),
  default: Type.String(),
  options: Type.String({ description: 'select: the choices, comma-joined' }),
  required: Type.Boolean(),
  help: Type.String(),
});

export const DriverInfoSchema = Type.Object({
  config: Type.Object({ name: Type.String(), display_name: Type.String(), only_proxy: Type.Boolean(), default_proxy: Type.Boolean() }),
  additional: Type.Array(DriverOptionSchema),
});
export type DriverInfo = Static<typeof DriverInfoSchema>;
