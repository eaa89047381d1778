/** Wire shapes of the SSH key API (contract §6). */
import { Type, type Static } from 'typebox';

export const KeySchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  fingerprint: Type.String(),
  added_time: Type.String(),
  last_used_time: Type.String(),
});

export type KeyView = Static<typeof KeySchema>;
