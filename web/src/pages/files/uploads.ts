/**
 * Upload plumbing: one XHR `PUT /api/fs/put` per file (upload progress events give bytes and
 * speed), and the walk over dropped folders (DataTransfer items → `webkitGetAsEntry`).
 */
import { ApiError, authHeaders, unwrap } from '../../api.js';
import type { HashMatrix, SeedFormat } from '../../types.js';

export interface PickedFile {
  file: File;
  /** Path relative to the upload folder, `/`-separated (a folder upload keeps its tree). */
  relPath: string;
}

export interface SidecarRequest {
  formats: SeedFormat[];
  matrix: HashMatrix;
  pieceSize: number | null;
}

export interface UploadRequest {
  file: File;
  /** Full target path inside the user's tree. */
  target: string;
  overwrite: boolean;
  sidecars: SidecarRequest | null;
  onProgress: (loaded: number, total: number) => void;
}

/** The headers of an upload (contract §8, §10.4). */
export function uploadHeaders(req: Pick<UploadRequest, 'file' | 'target' | 'overwrite' | 'sidecars'>): Record<string, string> {
  const h: Record<string, string> = {
    ...authHeaders(),
    'File-Path': encodeURIComponent(req.target),
    'Overwrite': String(req.overwrite),
    'Last-Modified': String(req.file.lastModified),
    'Content-Type': 'application/octet-stream',
  };
  if (req.sidecars && req.sidecars.formats.length > 0) {
    h['X-Seed-Sidecars'] = req.sidecars.formats.join(',');
    h['X-Seed-Hash-Matrix'] = encodeURIComponent(JSON.stringify(req.sidecars.matrix));
    if (req.sidecars.pieceSize) h['X-Seed-Piece-Size'] = String(req.sidecars.pieceSize);
  }
  return h;
}

/** Starts an upload; `abort()` cancels it (the server keeps nothing of an aborted upload). */
export function startUpload(req: UploadRequest): { done: Promise<void>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<void>((resolve, reject) => {
    xhr.open('PUT', '/api/fs/put');
    for (const [k, v] of Object.entries(uploadHeaders(req))) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => req.onProgress(e.loaded, e.lengthComputable ? e.total : req.file.size);
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      try {
        unwrap(xhr.status, body);
        req.onProgress(req.file.size, req.file.size);
        resolve();
      } catch (e) {
        reject(e);
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'Network error: the upload was interrupted.'));
    xhr.onabort = () => reject(new ApiError(0, 'Canceled'));
    xhr.send(req.file);
  });
  return { done, abort: () => xhr.abort() };
}

/** Files chosen with an <input type=file> (a `webkitdirectory` input gives relative paths). */
export function fromFileList(list: FileList): PickedFile[] {
  return Array.from(list).map((file) => ({ file, relPath: file.webkitRelativePath || file.name }));
}

/** Every file dropped, folders walked recursively (bounded so a huge drop cannot hang the page). */
export async function fromDataTransfer(dt: DataTransfer, limit = 10_000): Promise<PickedFile[]> {
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  for (const item of Array.from(dt.items)) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.();
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  const out: PickedFile[] = loose.map((file) => ({ file, relPath: file.name }));
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (out.length >= limit) return;
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) {
      const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
      out.push({ file, relPath: rel });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries returns batches; an empty batch means the end.
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const child of batch) await walk(child, rel);
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}
