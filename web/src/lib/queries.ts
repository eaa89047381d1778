/**
 * Server state shared by pages, through TanStack Query: the query keys live here, so a mutation
 * knows what to invalidate (`['fs', 'list', dir]` after a write into `dir`).
 */
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { api } from '../api.js';
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
