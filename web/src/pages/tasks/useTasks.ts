/**
 * Live task lists while a panel is open: unfinished tasks every second, finished ones when
 * the unfinished set changes (a task just ended) and every few seconds otherwise. Polling
 * pauses while the tab is hidden and stops when the panel unmounts.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../../api.js';
import { isDone, listTasks, taskInfo, type Task, type TaskType } from './taskApi.js';

export const POLL_MS = 1000;
const DONE_EVERY = 5;

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
  const [undone, setUndone] = useState<Task[]>([]);
  const [done, setDone] = useState<Task[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const key = types.join(',');
  const [nonce, setNonce] = useState(0);
  const refresh = useCallback(() => setNonce((n) => n + 1), []);

  useEffect(() => {
    const ts = key.split(',') as TaskType[];
    let live = true;
    let timer: number | undefined;
    let tick = 0;
    let lastIds = '';
    const run = async () => {
      if (!live) return;
      if (document.visibilityState !== 'hidden') {
        try {
          const u = await collect(ts, false);
          if (!live) return;
          const ids = u.map((t) => t.id).join(',');
          setUndone(u);
          if (tick % DONE_EVERY === 0 || ids !== lastIds) {
            const d = await collect(ts, true);
            if (!live) return;
            setDone(d);
          }
          lastIds = ids;
          tick++;
          setError(null);
          setLoaded(true);
        } catch (e) {
          if (live) setError(errorMessage(e));
        }
      }
      if (live) timer = window.setTimeout(() => void run(), POLL_MS);
    };
    void run();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [key, nonce]);

  return { undone, done, loaded, error, refresh };
}

/** One task, polled every second until it has finished. */
export function useTask(initial: Task): { task: Task; refresh: () => void } {
  const [task, setTask] = useState(initial);
  const [nonce, setNonce] = useState(0);
  const ref = useRef(task);
  ref.current = task;
  const refresh = useCallback(() => setNonce((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    let timer: number | undefined;
    const run = async () => {
      try {
        const t = await taskInfo(ref.current.type, ref.current.id);
        if (!live) return;
        setTask(t);
        if (isDone(t.state)) return;
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return; // removed meanwhile
        // otherwise keep the last known state and try again
      }
      if (live) timer = window.setTimeout(() => void run(), POLL_MS);
    };
    timer = window.setTimeout(() => void run(), nonce === 0 ? POLL_MS : 0);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [nonce]);
  return { task, refresh };
}
