/**
 * Server state shared by pages, through TanStack Query: the query keys live here, so a mutation
 * knows what to invalidate (`['fs', 'list', dir]` after a write into `dir`).
 */
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api, errorMessage } from '../api.js';
import type { FsGet, FsList } from '../types.js';

export const folderKey = (dir: string) => ['fs', 'list', dir] as const;

/** A folder's listing (`POST /api/fs/list`). */
export function useFolder(dir: string) {
  return useQuery({ queryKey: folderKey(dir), queryFn: ({ signal }) => api.post<FsList>('/api/fs/list', { path: dir }, { signal }) });
}

/** Marks a folder's listing stale; mounted pages showing it fetch it again. */
export function invalidateFolder(qc: QueryClient, dir: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: folderKey(dir) });
}

/** One file's details (`POST /api/fs/get`): its `content_type` is what its first bytes show. */
export function useFileInfo(path: string) {
  return useQuery({ queryKey: ['fs', 'get', path] as const, queryFn: ({ signal }) => api.post<FsGet>('/api/fs/get', { path }, { signal }) });
}

/** Keys of the admin and account pages' lists: a write invalidates the one it changed. */
export const queryKeys = {
  settings: ['admin', 'settings'] as const,
  users: ['admin', 'users'] as const,
  metas: ['admin', 'metas'] as const,
  storages: ['admin', 'storages'] as const,
  indexProgress: ['admin', 'index', 'progress'] as const,
  sshKeys: ['me', 'sshkeys'] as const,
  webdavPasswords: ['me', 'webdav-passwords'] as const,
};

/**
 * A page's server data under `key`: `data` (null until loaded), `error` (its message) and
 * `reload()`, which invalidates `key` so every mounted reader fetches again (call it after a write).
 */
export function useServerData<T>(key: readonly unknown[], fetch: () => Promise<T>, options: { refetchInterval?: (data: T | undefined) => number | false } = {}) {
  const qc = useQueryClient();
  const { refetchInterval } = options;
  const q = useQuery<T>({ queryKey: key, queryFn: fetch, refetchInterval: refetchInterval ? (query) => refetchInterval(query.state.data) : undefined });
  const reload = useCallback(() => qc.invalidateQueries({ queryKey: key }), [qc, key]);
  return { data: q.data ?? null, error: q.error ? errorMessage(q.error) : null, reload };
}
