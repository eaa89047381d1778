/** Wire shapes of the app-password API. */
import { Type, type Static } from 'typebox';

export const AppPasswordSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  created_time: Type.String(),
  /** The epoch (1970) when never used. */
  last_used_time: Type.String(),
});
export type AppPasswordView = Static<typeof AppPasswordSchema>;

/** What `create` answers: the record and, this once, the password itself. */
export const CreatedAppPasswordSchema = Type.Intersect([AppPasswordSchema, Type.Object({ password: Type.String() })]);
