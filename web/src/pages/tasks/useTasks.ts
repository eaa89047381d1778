/**
 * Live task lists while a panel is open, through TanStack Query: unfinished tasks every second
 * (`refetchInterval`), finished ones when the unfinished set changes (a task just ended) and
 * every few seconds otherwise. Polling pauses while the tab is hidden (TanStack's default) and
 * stops when the panel unmounts.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo } from 'react';
import { ApiError, errorMessage } from '../../api.js';
import { isDone, listTasks, taskInfo, type Task, type TaskType } from './taskApi.js';

export const POLL_MS = 1000;
const DONE_EVERY = 5;

/** `['tasks', types, 'done' | 'undone']`; `['tasks']` covers every task query. */
const listKey = (types: string, done: boolean) => ['tasks', types, done ? 'done' : 'undone'] as const;

export interface TaskLists {
  undone: Task[];
  done: Task[];
  loaded: boolean;
  error: string | null;
  /** Reload both lists now (after an action). */
  refresh: () => void;
}

const byNewest = (a: Task, b: Task) => (b.start_time ?? '').localeCompare(a.start_time ?? '') || b.id.localeCompare(a.id);

async function collect(types: readonly TaskType[], done: boolean): Promise<Task[]> {
  const lists = await Promise.all(types.map((t) => listTasks(t, done)));
  return lists.flat().sort(byNewest);
}

export function useTaskLists(types: readonly TaskType[]): TaskLists {
  const qc = useQueryClient();
  const key = types.join(',');
  const live = { staleTime: 0, refetchOnMount: 'always' as const };
  const undone = useQuery({ queryKey: listKey(key, false), queryFn: () => collect(types, false), refetchInterval: POLL_MS, ...live });
  const done = useQuery({ queryKey: listKey(key, true), queryFn: () => collect(types, true), refetchInterval: POLL_MS * DONE_EVERY, ...live });
  // A task left the unfinished list: the finished list changed too.
  const ids = useMemo(() => undone.data?.map((t) => t.id).join(','), [undone.data]);
  useEffect(() => {
    if (ids !== undefined) void qc.invalidateQueries({ queryKey: listKey(key, true) });
  }, [ids, key, qc]);
  const refresh = useCallback(() => void qc.invalidateQueries({ queryKey: ['tasks', key] }), [qc, key]);
  const failed = undone.error ?? done.error;
  return {
    undone: undone.data ?? [],
    done: done.data ?? [],
    loaded: undone.data !== undefined && done.data !== undefined,
    error: failed ? errorMessage(failed) : null,
    refresh,
  };
}

/** One task, polled every second until it has finished (or is gone). */
export function useTask(initial: Task): { task: Task; refresh: () => void } {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['task', initial.type, initial.id],
    queryFn: () => taskInfo(initial.type, initial.id),
    initialData: initial,
    initialDataUpdatedAt: Date.now(),
    staleTime: POLL_MS,
    gcTime: 0,
    // a 404 (removed meanwhile) ends polling; another failure keeps the last known state and tries again
    retry: false,
    refetchInterval: (query) =>
      isDone(query.state.data?.state ?? 0) || (query.state.error instanceof ApiError && query.state.error.code === 404) ? false : POLL_MS,
  });
  const refresh = useCallback(() => void qc.invalidateQueries({ queryKey: ['task', initial.type, initial.id] }), [qc, initial.type, initial.id]);
  return { task: q.data, refresh };
}
