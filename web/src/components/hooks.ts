/**
 * Small state hooks shared by pages and dialogs:
 *  - `useSubmit()` → `{ busy, error, setError, run }`: `run(fn, onError?)` marks busy, clears the
 *    error, awaits `fn` and shows a failure as the inline `error`.
 *  - `useLoader(fetch)` → `{ data, error, reload }`: loads on mount; `reload()` fetches again.
 *  - `useToastAction(after)` → `act(fn, done)`: runs `fn`, toasts `done` and awaits `after()`,
 *    or toasts the error.
 *  - `useEditing<T>(after)` → `{ editing, setEditing, saved }`: what a dialog edits (an item,
 *    'new', or null when closed); `saved(msg)` closes it, toasts `msg` and calls `after()`.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../api.js';
import { useToast } from './Toast.js';

export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>, onError?: (e: unknown) => void): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(errorMessage(e));
      onError?.(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

export function useLoader<T>(fetch: () => Promise<T>) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fetchRef = useRef(fetch);
  fetchRef.current = fetch;
  const reload = useCallback(async () => {
    try {
      setData(await fetchRef.current());
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => void reload(), [reload]);
  return { data, error, reload };
}

export function useToastAction(after: () => unknown) {
  const toast = useToast();
  return async (fn: () => Promise<unknown>, done: string): Promise<void> => {
    try {
      await fn();
      toast.success(done);
      await after();
    } catch (e) {
      toast.error(e);
    }
  };
}

export function useEditing<T>(after: () => unknown) {
  const toast = useToast();
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const saved = (msg: string) => {
    setEditing(null);
    toast.success(msg);
    void after();
  };
  return { editing, setEditing, saved };
}
