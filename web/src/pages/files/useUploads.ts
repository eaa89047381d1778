/**
 * The upload queue: two files at a time, per-file bytes, speed and status.
 * `enqueue(files, folder, options)`; `cancel(id)`; `clear()` drops finished rows.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api.js';
import { joinPath } from '../../lib/format.js';
import { startUpload, type PickedFile, type SidecarRequest } from './uploads.js';

export type UploadStatus = 'queued' | 'uploading' | 'done' | 'failed' | 'canceled';

export interface UploadItem {
  id: number;
  name: string;
  target: string;
  size: number;
  loaded: number;
  /** Bytes per second, smoothed. */
  speed: number;
  status: UploadStatus;
  error: string | null;
}

interface Job {
  id: number;
  file: File;
  target: string;
  overwrite: boolean;
  sidecars: SidecarRequest | null;
}

const CONCURRENCY = 2;

export function useUploads(onFinished: (target: string) => void) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const queue = useRef<Job[]>([]);
  const running = useRef(new Map<number, () => void>());
  const nextId = useRef(1);
  const finished = useRef(onFinished);
  finished.current = onFinished;

  const patch = useCallback((id: number, p: Partial<UploadItem>) => setItems((xs) => xs.map((x) => (x.id === id ? { ...x, ...p } : x))), []);

  const pump = useCallback(() => {
    while (running.current.size < CONCURRENCY && queue.current.length > 0) {
      const job = queue.current.shift()!;
      let last = { t: performance.now(), loaded: 0 };
      let speed = 0;
      const started = performance.now();
      patch(job.id, { status: 'uploading' });
      const up = startUpload({
        file: job.file,
        target: job.target,
        overwrite: job.overwrite,
        sidecars: job.sidecars,
        onProgress: (loaded) => {
          const now = performance.now();
          const dt = (now - last.t) / 1000;
          if (dt >= 0.2 || loaded === job.file.size) {
            const inst = dt > 0 ? (loaded - last.loaded) / dt : 0;
            speed = speed === 0 ? inst : speed * 0.6 + inst * 0.4;
            last = { t: now, loaded };
            const avg = loaded / Math.max(0.001, (now - started) / 1000);
            patch(job.id, { loaded, speed: loaded === job.file.size ? avg : speed });
          }
        },
      });
      running.current.set(job.id, up.abort);
      up.done
        .then(() => {
          patch(job.id, { status: 'done', loaded: job.file.size });
          finished.current(job.target);
        })
        .catch((e: unknown) => {
          const canceled = errorMessage(e) === 'Canceled';
          patch(job.id, { status: canceled ? 'canceled' : 'failed', error: canceled ? null : errorMessage(e) });
        })
        .finally(() => {
          running.current.delete(job.id);
          pump();
        });
    }
  }, [patch]);

  const enqueue = useCallback(
    (files: PickedFile[], folder: string, opts: { overwrite: boolean; sidecars: SidecarRequest | null }) => {
      const jobs: Job[] = files.map((f) => ({ id: nextId.current++, file: f.file, target: joinPath(folder, f.relPath), ...opts }));
      setItems((xs) => [
        ...xs,
        ...jobs.map((j, i) => ({ id: j.id, name: files[i]!.relPath, target: j.target, size: j.file.size, loaded: 0, speed: 0, status: 'queued' as const, error: null })),
      ]);
      queue.current.push(...jobs);
      pump();
    },
    [pump],
  );

  const cancel = useCallback(
    (id: number) => {
      const abort = running.current.get(id);
      if (abort) return abort();
      queue.current = queue.current.filter((j) => j.id !== id);
      patch(id, { status: 'canceled' });
    },
    [patch],
  );

  const clear = useCallback(() => setItems((xs) => xs.filter((x) => x.status === 'queued' || x.status === 'uploading')), []);

  // Leaving the page aborts what is still running (the server keeps nothing partial).
  useEffect(
    () => () => {
      queue.current = [];
      for (const abort of running.current.values()) abort();
    },
    [],
  );

  return { items, enqueue, cancel, clear };
}
