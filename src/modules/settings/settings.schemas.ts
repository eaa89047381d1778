/**
 * Wire shapes of the settings API (contract §9). A listed setting is OpenList's `SettingItem` (what its web UI
 * renders: `options` comma-joined, numeric `group`, `flag`, its input types) plus Ferry's own `section`,
 * `kind` and `public`, which Ferry's web UI reads.
 */
import { Type, type Static } from 'typebox';

export const SettingSchema = Type.Object({
  key: Type.String(),
  value: Type.String(),
  help: Type.String(),
  /** OpenList input type: string, text, bool, number, select. */
  type: Type.String(),
  /** Select choices, comma-joined ('' for other types). */
  options: Type.String(),
  /** OpenList group number (0 single, 1 site, 2 style, 3 preview, 4 global, 6 index, 10 FTP/SFTP, 12 seeds). */
  group: Type.Integer(),
  /** OpenList flag: 0 public, 1 private. */
  flag: Type.Integer(),
  index: Type.Integer(),
  /** Ferry's section of the settings page: site, security, sftp, seed, display. */
  section: Type.String(),
  /** Ferry's value type: string, text, bool, number, select, json. */
  kind: Type.String(),
  public: Type.Boolean(),
});

export type SettingView = Static<typeof SettingSchema>;

/** Public settings: every setting marked public, plus `version`. */
export const PublicSettingsSchema = Type.Record(Type.String(), Type.String());

/** `?group=1` or `?groups=5,0` (OpenList's pages); neither = every setting. */
export const SettingListQuery = Type.Object({ group: Type.Optional(Type.String()), groups: Type.Optional(Type.String()) });

/**
 * What `save` reads of each item: `key` and `value`. Clients post back whole listed items (OpenList's web UI
 * does), so every other property is accepted and ignored; a number or bool value is taken as its text.
 */
export const SettingSaveBody = Type.Array(
  Type.Object({ key: Type.String({ minLength: 1 }), value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }, { additionalProperties: true }),
  { maxItems: 1000 },
);
