/** Background tasks (`/api/task/<type>/…`, src/modules/tasks/tasks.routes.ts): types, states, calls. */
import { api } from '../../api.js';
import type { TaskInfo } from '../../types.js';

export const TASK_TYPES = [
  { id: 'seed_generate', label: 'Seed generation' },
  { id: 'upload', label: 'Uploads' },
  { id: 'copy', label: 'Copies' },
  { id: 'move', label: 'Moves' },
  { id: 'offline_download', label: 'Offline downloads' },
  { id: 'offline_download_transfer', label: 'Download transfers' },
] as const;
export type TaskType = (typeof TASK_TYPES)[number]['id'];

export type Task = TaskInfo;

export const TaskState = { PENDING: 0, RUNNING: 1, SUCCEEDED: 2, CANCELING: 3, CANCELED: 4, ERRORED: 5, FAILED: 7 } as const;

const STATE_TEXT: Record<number, string> = {
  0: 'Queued',
  1: 'Running',
  2: 'Done',
  3: 'Canceling',
  4: 'Canceled',
  5: 'Retrying',
  7: 'Failed',
};
export const stateText = (s: number) => STATE_TEXT[s] ?? `State ${s}`;
export const stateTone = (s: number): 'ok' | 'warn' | 'bad' | 'neutral' =>
  s === TaskState.SUCCEEDED ? 'ok' : s === TaskState.FAILED ? 'bad' : s === TaskState.CANCELED || s === TaskState.CANCELING || s === TaskState.ERRORED ? 'warn' : 'neutral';

export const isDone = (s: number) => s === TaskState.SUCCEEDED || s === TaskState.CANCELED || s === TaskState.FAILED;
export const canCancel = (s: number) => s === TaskState.PENDING || s === TaskState.RUNNING || s === TaskState.ERRORED;
export const canRetry = (s: number) => s === TaskState.FAILED || s === TaskState.CANCELED;

export const listTasks = (type: string, done: boolean) => api.get<Task[] | null>(`/api/task/${type}/${done ? 'done' : 'undone'}`).then((l) => l ?? []);
export const taskInfo = (type: string, tid: string) => api.get<Task>(`/api/task/${type}/info`, { tid });
export const taskAction = (type: string, verb: 'cancel' | 'retry' | 'delete', tid: string) => api.post<null>(`/api/task/${type}/${verb}`, undefined, { query: { tid } });
export const clearDone = (type: string) => api.post<null>(`/api/task/${type}/clear_done`);
