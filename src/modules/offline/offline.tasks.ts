/**
 * The offline-download tasks.
 *
 * - `offline_download` (tool jobs; the seeds module runs its own seed-file jobs under the same type):
 *   `SimpleHttp` streams an http(s) URL through Ferry's SSRF-safe fetcher straight into the target folder;
 *   a BitTorrent tool (aria2, Transmission, qBittorrent) gets the URL, magnet or torrent with its own folder `<data dir>/offline/<task id>`, Ferry polls it
 *   (the runner heartbeats meanwhile) and, once done, queues an `offline_download_transfer`. Cancel or failure
 *   removes the download from the tool and deletes its folder: nothing lands.
 * - `offline_download_transfer`: each downloaded file goes through the normal write path (all or nothing per
 *   file, hash index, sidecars per the storage's policy), then `delete_policy` decides about the tool's copy.
 *
 * Both are restartable from their payload and re-check the creator's rights whenever they are claimed.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type, type Static } from 'typebox';
import { assertSafeName, cleanPath, stripBasePath } from '../../lib/path-safety.js';
import { baseName, isWithin, joinPath } from '../../lib/paths.js';
import { byteCounter } from '../../lib/streams.js';
import { defineTask, taskKind, type TaskDefinition } from '../tasks/task-definition.js';
import { followUpTaskId, type TaskRunContext } from '../tasks/tasks.service.js';
import { Perm, can, type User } from '../users/user.model.js';
import { fetchSource } from '../seeds/operations/fetcher.js';
import { sourceContextFor } from '../seeds/operations/source-rules.js';
import { decodeTorrent } from '../seeds/formats/index.js';
import { SourceSchema } from './inputs.js';
import type { OfflineDeps } from './offline.deps.js';
import { PieceMismatch, checkTorrentPieces } from './torrent-check.js';
import { BT_TOOLS, TOOL_SETTINGS, checkToolInput, droppedNote, readStoredTorrent, toolOf, type BtToolName } from './tool-access.js';
import { ToolAuthError, ToolError, magnetInfoHash, type DownloadTool, type ToolInput } from './tools/tool.js';

const HashesSchema = Type.Object({ md5: Type.Optional(Type.String()), sha1: Type.Optional(Type.String()), sha256: Type.Optional(Type.String()) });
const HandedFileSchema = Type.Object({ rel: Type.String(), to: Type.String(), size: Type.Integer({ minimum: 0 }), expected: HashesSchema });

export const ToolJobSchema = Type.Object({
  user_id: Type.Integer(),
  /** Origin of the request (the site, for the SSRF rules, when nothing else names one). */
  origin: Type.String(),
  tool: Type.Union([Type.Literal('SimpleHttp'), Type.Literal('aria2'), Type.Literal('Transmission'), Type.Literal('qBittorrent')]),
  source: SourceSchema,
  /** Full virtual path of the destination folder. */
  target: Type.String(),
  delete_policy: Type.String(),
  /** Seed operations: only these files land, each at its own path with the digests it must have. */
  select: Type.Optional(Type.Array(HandedFileSchema)),
  /** Replace existing files (default true). */
  overwrite: Type.Optional(Type.Boolean()),
});
export type ToolJob = Static<typeof ToolJobSchema>;

export const TransferJobSchema = Type.Object({
  user_id: Type.Integer(),
  tool: Type.String(),
  /** The tool's download id (to stop seeding before its files are deleted). */
  gid: Type.Optional(Type.String()),
  /** Host folder the tool downloaded into. */
  work: Type.String(),
  /** Files below `work`, `/`-separated; `to` (full path) and `expected` digests when a seed operation chose them. */
  files: Type.Array(Type.Object({ rel: Type.String(), size: Type.Integer({ minimum: 0 }), to: Type.Optional(Type.String()), expected: Type.Optional(HashesSchema) })),
  target: Type.String(),
  delete_policy: Type.String(),
  overwrite: Type.Optional(Type.Boolean()),
});
export type TransferJob = Static<typeof TransferJobSchema>;

export const OFFLINE_TOOL_TASK = taskKind('offline_download', ToolJobSchema);
export const OFFLINE_TRANSFER_TASK = taskKind('offline_download_transfer', TransferJobSchema);

type Run = Pick<TaskRunContext, 'signal' | 'progress' | 'status' | 'taskId'>;

/** The creator may still download into `target` (checked at every claim and retry), a folder not hidden from them. */
export async function checkOfflineUser(deps: Pick<OfflineDeps, 'folderAccess'>, user: User, target: string): Promise<void> {
  if (!can(user, Perm.OFFLINE_DOWNLOAD)) throw new Error('offline download permission is required');
  if (!can(user, Perm.WRITE)) throw new Error('the write permission is required');
  if (!isWithin(cleanPath(user.basePath), target)) throw new Error("the destination is outside the user's base path");
  await deps.folderAccess.requireChange(user, null, [target]);
}

async function creator(deps: Pick<OfflineDeps, 'users' | 'folderAccess'>, id: number, target: string): Promise<User> {
  const user = await deps.users.byId(id);
  if (!user || user.disabled) throw new Error('the user who queued this download no longer exists or is disabled');
  await checkOfflineUser(deps, user, target);
  return user;
}

/** A file name for what an URL answered: Content-Disposition's, else the URL's last segment. */
function nameFor(url: string, disposition: string | undefined): string {
  const star = disposition && /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  const plain = disposition && /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  let name = '';
  try {
    name = star ? decodeURIComponent(star[1]!.trim()) : plain ? plain[1]!.trim() : decodeURIComponent(baseName(new URL(url).pathname));
  } catch {
    name = '';
  }
  name = name.replace(/[/\\\u0000]/g, '_').trim();
  return name === '' || name === '.' || name === '..' ? 'index.html' : name;
}

async function runSimpleHttp(deps: OfflineDeps, job: ToolJob, run: Run, user: User): Promise<unknown> {
  const url = new URL(job.source.url ?? '');
  run.status(`downloading from ${url.host}`);
  const sctx = await sourceContextFor(deps, job.origin);
  const got = await fetchSource(url, { sctx, anyHost: true, signal: run.signal, userAgent: `Ferry/${deps.version}` });
  const name = nameFor(got.url, got.headers['content-disposition'] as string | undefined);
  assertSafeName(name);
  const full = joinPath(job.target, name);
  if (!(await deps.folderAccess.isVisible(user, full, user.basePath))) {
    got.body.destroy();
    throw new Error(`${name}: permission denied (a folder rule hides this name)`);
  }
  const cl = got.headers['content-length'];
  const size = cl !== undefined && /^\d+$/.test(cl) ? Number(cl) : undefined;
  let done = 0;
  const body = counted(got.body, (n) => run.progress((done += n), size));
  const onAbort = () => got.body.destroy(new Error('canceled'));
  run.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await deps.uploads.store({ full, overwrite: true, asTask: false, size, expectedHashes: {} }, body);
  } finally {
    run.signal.removeEventListener('abort', onAbort);
  }
  run.signal.throwIfAborted();
  return { files: [name], target: full };
}

/** `src` through a byte counter; an error of `src` reaches the reader (pipe() alone would leave it waiting). */
function counted(src: Readable, onBytes: (n: number) => void): Readable {
  const out = src.pipe(byteCounter(onBytes));
  src.once('error', (e) => out.destroy(e));
  return out;
}

const POLL_MS = 500;

/** Whether a download has made no progress (bytes or size) for `seconds` (0: never stalls). */
function stallWatch(seconds: number, now: () => number = Date.now) {
  let last = '';
  let since = now();
  return {
    seconds,
    moved: () => void (since = now()),
    stalled(done: number, total: number): boolean {
      const mark = `${done}/${total}`;
      if (mark !== last) {
        last = mark;
        since = now();
        return false;
      }
      return seconds > 0 && now() - since > seconds * 1000;
    },
  };
}

/** The metainfo a tool fetched for a magnet, when it can hand it over and its info hash is the magnet's. */
async function magnetMetainfo(tool: DownloadTool, id: string, magnet: string): Promise<Buffer | null> {
  const bytes = await tool.metainfo?.(id).catch(() => null);
  if (!bytes) return null;
  try {
    return decodeTorrent(bytes).info_hash === magnetInfoHash(magnet) ? bytes : null;
  } catch {
    return null;
  }
}

/**
 * checkTorrentPieces, tried again a few times on a mismatch: a tool may report a piece complete (hashed from
 * memory) a moment before its bytes reach the file, so only a mismatch that stays fails the download.
 */
async function settledPieceCheck(work: string, torrent: Uint8Array, signal: AbortSignal): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await checkTorrentPieces(work, torrent, signal);
    } catch (e) {
      if (!(e instanceof PieceMismatch) || attempt >= PIECE_CHECK_TRIES) throw e;
      await sleep(PIECE_CHECK_PAUSE_MS, undefined, { signal });
    }
  }
}

const PIECE_CHECK_TRIES = 5;
const PIECE_CHECK_PAUSE_MS = 1000;

async function runTool(deps: OfflineDeps, job: ToolJob, run: Run): Promise<unknown> {
  const user = await creator(deps, job.user_id, job.target);
  const { tool, seedMinutes } = await toolOf(deps, job.tool as BtToolName);
  const work = join(deps.workDir, run.taskId);
  // a run cut off after it queued the transfer (its instance died): the transfer owns the files now
  const transferId = followUpTaskId(run.taskId, 'transfer');
  const queued = await deps.tasks.find(transferId);
  if (queued) return { transfer_task: queued.id };
  const ids: string[] = [];
  let say = (text: string) => run.status(text);
  try {
    say(`handing the download to ${tool.name}`);
    let input: ToolInput;
    if (job.source.kind === 'torrent' && job.source.data !== undefined) input = { kind: 'torrent', bytes: Buffer.from(job.source.data, 'base64'), infoHash: job.source.info_hash ?? '' };
    else if (job.source.kind === 'torrent') input = { kind: 'torrent', ...(await readStoredTorrent(deps, user, job.source.path ?? '')) };
    else input = { kind: job.source.kind, url: job.source.url ?? '' };
    // again at every run: a retry after the admin removed a trusted host is refused before the tool sees it; the
    // tool gets the magnet or torrent without the trackers and web seeds whose hosts do not resolve (now)
    const checked = await checkToolInput(deps, job.origin, input, job.source.kind === 'url' ? 'url' : job.source.kind);
    input = checked.input;
    const note = droppedNote(checked.dropped);
    say = (text) => run.status(note ? `${text}; ${note}` : text);
    // a task taken over (its instance died) or retried starts again: drop what the earlier attempt left
    await tool.clear(work, input.kind === 'torrent' ? input.infoHash || null : input.kind === 'magnet' ? magnetInfoHash(input.url) : null);
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { recursive: true });
    say(`handing the download to ${tool.name}`);
    let id = await tool.add(input, work, seedMinutes);
    ids.push(id);
    const stall = stallWatch(Math.max(0, await deps.settings.getNumber('offline_stall_timeout')));
    for (;;) {
      await sleep(POLL_MS, undefined, { signal: run.signal });
      const st = await tool.status(id, work);
      if (st.next) {
        id = st.next; // the download goes on under another id (aria2: a magnet's files after its metadata)
        ids.push(id);
        stall.moved();
        continue;
      }
      if (st.totalBytes > 0) run.progress(st.doneBytes, st.totalBytes);
      if (st.state === 'error') throw new ToolError(st.error ?? `${tool.name}: download failed`);
      if (st.state === 'active') {
        if (stall.stalled(st.doneBytes, st.totalBytes)) {
          const gap = await tool.missingPiece?.(id, work).catch(() => null);
          const where = gap ? `; piece ${gap.index} of ${gap.count}${gap.files.length ? ` (in ${gap.files.join(', ')})` : ''} never arrived intact` : '';
          throw new ToolError(`${tool.name}: no progress for ${stall.seconds} s (${st.text}${where}; no peers, or the source stalled; offline_stall_timeout); the download was dropped, nothing landed${note ? `; ${note}` : ''}`);
        }
        say(`downloading (${st.text})`);
        continue;
      }
      const got = st.files ?? [];
      if (got.length === 0 || got.some((f) => f.rel === '' || f.rel.startsWith('/') || f.rel.split('/').includes('..'))) throw new ToolError(`${tool.name} reported no files, or files outside its download folder`);
      const files = job.select ?? got;
      for (const f of job.select ?? []) if (!got.some((g) => g.rel === f.rel && g.size === f.size)) throw new ToolError(`${tool.name} did not download ${f.rel} (${f.size} bytes)`);
      const torrent = input.kind === 'torrent' ? input.bytes : input.kind === 'magnet' ? await magnetMetainfo(tool, id, input.url) : null;
      if (torrent) {
        say(`checking every piece of ${tool.name}'s copy against the torrent`);
        await settledPieceCheck(work, torrent, run.signal);
      }
      const seeding = Boolean(st.seeding) && seedMinutes > 0;
      // not seeding: the tool lets go of it (its files stay for the transfer)
      if (!seeding) for (const i of ids) await tool.forget(i, false);
      const t = await deps.tasks.create(OFFLINE_TRANSFER_TASK, {
        id: transferId,
        name: `transfer [](${files.length === 1 ? files[0]!.rel : files[0]!.rel.split('/')[0]}) to [](${stripBasePath(user.basePath, job.target)})`,
        creatorId: user.id,
        payload: { user_id: user.id, tool: job.tool, gid: seeding ? id : undefined, work, files, target: job.target, delete_policy: job.delete_policy, overwrite: job.overwrite },
        totalBytes: files.reduce((n, f) => n + f.size, 0),
      });
      say('offline download completed, maybe transferring');
      return { transfer_task: t.id, files: files.map((f) => f.rel), ...(checked.dropped.length ? { dropped: checked.dropped } : {}) };
    }
  } catch (e) {
    // canceled or failed: the tool forgets it and nothing it wrote stays (with credentials it now refuses, the
    // tool keeps its download: the next attempt's clear() removes it)
    for (const i of ids) await tool.forget(i, true);
    await rm(work, { recursive: true, force: true });
    if (e instanceof ToolAuthError) {
      const route = TOOL_SETTINGS[job.tool as BtToolName].route;
      throw new ToolAuthError(`${e.message}: the ${tool.name} credentials saved with ${route} no longer work; nothing landed. Fix them (POST /api/admin/setting/${route}), then retry the task`);
    }
    throw e;
  }
}

async function runTransfer(deps: OfflineDeps, job: TransferJob, run: Run): Promise<unknown> {
  const user = await creator(deps, job.user_id, job.target);
  const total = job.files.reduce((n, f) => n + f.size, 0);
  let done = 0;
  const landed: string[] = [];
  /** Files whose names a folder rule hides from the creator: not written (they could not see or change them). */
  const hidden: string[] = [];
  let ok = false;
  try {
    for (const f of job.files) {
      run.signal.throwIfAborted();
      const full = cleanPath(f.to ?? joinPath(job.target, f.rel));
      if (!isWithin(job.target, full) || full === job.target) throw new Error(`${f.rel}: outside the destination`);
      if (!(await deps.folderAccess.isVisible(user, full, user.basePath))) {
        hidden.push(f.rel);
        done += f.size;
        continue;
      }
      const src = join(job.work, ...f.rel.split('/'));
      let st = await stat(src).catch(() => null);
      // some tools never create a torrent's empty files
      if (!st && f.size === 0) st = await writeFile(src, '').then(() => stat(src)).catch(() => null);
      if (!st || !st.isFile()) throw new Error(`${f.rel}: the downloaded file is gone from the tool's folder`);
      if (st.size !== f.size) throw new Error(`${f.rel}: the tool's copy has ${st.size} bytes, ${f.size} were downloaded`);
      run.status(`transferring ${f.rel}`);
      const body = createReadStream(src);
      const onAbort = () => body.destroy(new Error('canceled'));
      run.signal.addEventListener('abort', onAbort, { once: true });
      try {
        await deps.uploads.store({ full, overwrite: job.overwrite ?? true, asTask: false, size: f.size, expectedHashes: f.expected ?? {} }, counted(body, (n) => run.progress((done += n), total)));
      } finally {
        run.signal.removeEventListener('abort', onAbort);
      }
      run.signal.throwIfAborted();
      landed.push(f.rel);
    }
    ok = true;
  } finally {
    const drop = job.delete_policy === 'delete_always' || (ok ? job.delete_policy === 'delete_on_upload_succeed' : job.delete_policy === 'delete_on_upload_failed');
    if (drop && !run.signal.aborted) await dropWork(deps, job);
  }
  if (hidden.length) run.status(`${hidden.length} file(s) not written: their names are hidden by a folder rule`);
  return { files: landed, target: job.target, ...(hidden.length ? { hidden } : {}) };
}

/** The tool's copy goes: seeding stops first, then its folder is deleted. */
async function dropWork(deps: OfflineDeps, job: TransferJob): Promise<void> {
  if (job.gid && (BT_TOOLS as readonly string[]).includes(job.tool)) await (await toolOf(deps, job.tool as BtToolName).catch(() => null))?.tool.forget(job.gid, false);
  if (isWithin(deps.workDir, job.work) && job.work !== deps.workDir) await rm(job.work, { recursive: true, force: true });
}

export function offlineTasks(deps: OfflineDeps): TaskDefinition[] {
  const download = defineTask(OFFLINE_TOOL_TASK, async (job, run) => {
    const user = await creator(deps, job.user_id, job.target);
    return job.tool === 'SimpleHttp' ? runSimpleHttp(deps, job, run, user) : runTool(deps, job, run);
  }, { authorize: (job, user) => checkOfflineUser(deps, user, job.target) });
  const transfer = defineTask(OFFLINE_TRANSFER_TASK, (job, run) => runTransfer(deps, job, run), { authorize: (job, user) => checkOfflineUser(deps, user, job.target) });
  return [download, transfer] as TaskDefinition[];
}
