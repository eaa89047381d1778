/**
 * Small state hooks shared by pages and dialogs:
 *  - `useSubmit()` → `{ busy, error, setError, run }`: `run(fn, onError?)` runs `fn` as a TanStack
 *    mutation (`busy` while it is pending), clears the error first and shows a failure as the inline `error`.
 *  - `useToastAction(after)` → `act(fn, done)`: runs `fn`, toasts `done` and awaits `after()`,
 *    or toasts the error.
 *  - `useEditing<T>(after)` → `{ editing, setEditing, saved }`: what a dialog edits (an item,
 *    'new', or null when closed); `saved(msg)` closes it, toasts `msg` and calls `after()`.
 */
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api.js';
import { useToast } from './Toast.js';

export function useSubmit() {
  const [error, setError] = useState<string | null>(null);
  // TanStack's mutation state is the busy flag; the error stays local (forms set their own too).
  const mutation = useMutation({ mutationFn: (fn: () => Promise<unknown>) => fn() });
  const run = async (fn: () => Promise<unknown>, onError?: (e: unknown) => void): Promise<void> => {
    setError(null);
    try {
      await mutation.mutateAsync(fn);
    } catch (e) {
      setError(errorMessage(e));
      onError?.(e);
    }
  };
  return { busy: mutation.isPending, error, setError, run };
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
