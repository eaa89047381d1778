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
/** Every task type Ferry runs: each must have a definition registered at start-up (tasks.requireDefinitions). */
export const TASK_TYPES = ['upload', 'copy', 'move', 'seed_generate', 'offline_download', 'offline_download_transfer', 'thumbnails'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

export type TaskRow = Selectable<TasksTable>;

/** A new pending task row; the fields a caller names, the rest at their starting values. */
export function pendingTaskRow(f: Pick<TaskRow, 'id' | 'type' | 'name' | 'creator_id' | 'payload'> & Partial<TaskRow>): TaskRow {
  return {
    state: TaskState.PENDING,
    status: 'pending',
    progress: 0,
    total_bytes: 0,
    done_bytes: 0,
    error: '',
    result: 'null',
    runner: null,
    heartbeat_at: null,
    attempts: 0,
    created_at: Date.now(),
    start_time: null,
    end_time: null,
    ...f,
  };
}

/** Rows with numbers normalised (PostgreSQL may hand back REAL/BIGINT in other JS types). */
export function normaliseTask(r: TaskRow): TaskRow {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    ...r,
    creator_id: Number(r.creator_id),
    state: Number(r.state),
    progress: Number(r.progress),
    total_bytes: Number(r.total_bytes),
    done_bytes: Number(r.done_bytes),
    attempts: Number(r.attempts),
    created_at: Number(r.created_at),
    heartbeat_at: n(r.heartbeat_at),
    start_time: n(r.start_time),
    end_time: n(r.end_time),
  };
}

