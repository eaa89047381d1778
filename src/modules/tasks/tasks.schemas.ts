/** Wire shapes of the task API (contract §9, fs-api.md §6.4). */
import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/envelope.js';

export const TaskInfoSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  name: Type.String(),
  creator: Type.String(),
  creator_id: Type.Integer(),
  /** -1 when unknown. */
  creator_role: Type.Integer(),
  /** 0 pending, 1 running, 2 succeeded, 3 canceling, 4 canceled, 5 errored, 7 failed. */
  state: Type.Integer(),
  status: Type.String(),
  /** 0–100. */
  progress: Type.Number(),
  start_time: Nullable(Type.String()),
  end_time: Nullable(Type.String()),
  total_bytes: Type.Number(),
  done_bytes: Type.Number(),
  attempts: Type.Integer(),
  error: Type.String(),
});
export type TaskInfo = Static<typeof TaskInfoSchema>;
