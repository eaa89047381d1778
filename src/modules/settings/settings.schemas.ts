/** Wire shapes of the settings API (contract §9). */
import { Type, type Static } from 'typebox';

export const SettingSchema = Type.Object({
  key: Type.String(),
  value: Type.String(),
  type: Type.String(),
  group: Type.String(),
  public: Type.Boolean(),
  options: Type.Array(Type.String()),
  help: Type.String(),
});

export type SettingView = Static<typeof SettingSchema>;

/** Public settings: every setting marked public, plus `version`. */
export const PublicSettingsSchema = Type.Record(Type.String(), Type.String());
