/** Background tasks (contract §9): states and the public TaskInfo shape. */
import type { Selectable } from 'kysely';
import type { TasksTable } from '../../db/schema.js';
import { isoTime } from '../../lib/time.js';

export const TaskState = {
  PENDING: 0,
  RUNNING: 1,
  SUCCEEDED: 2,
  CANCELING: 3,
  CANCELED: 4,
  ERRORED: 5,
  FAILED: 7,
} as const;

export const DONE_STATES: readonly number[] = [TaskState.SUCCEEDED, TaskState.CANCELED, TaskState.FAILED];
export const TASK_TYPES = ['upload', 'copy', 'move', 'seed_generate', 'offline_download'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

export type TaskRow = Selectable<TasksTable>;

export function presentTask(r: TaskRow, creator: string) {
  return {
    id: r.id,
    type: r.type,
    name: r.name,
    creator,
    creator_id: Number(r.creator_id),
    state: r.state,
    status: r.status,
    progress: Math.round(Number(r.progress) * 100) / 100,
    start_time: r.start_time ? isoTime(Number(r.start_time)) : null,
    end_time: r.end_time ? isoTime(Number(r.end_time)) : null,
    total_bytes: Number(r.total_bytes),
    error: r.error,
  };
}
