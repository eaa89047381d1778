/**
 * Thumbnails: images through sharp, video frames through Debian's ffmpeg, made on first request and
 * cached under `<data>/thumbs/` keyed by storage, path, size and modification time (a changed file gets
 * a new key). At most `concurrency` are made at once, and two requests for the same thumbnail share one
 * job; `thumbnails` tasks (thumbs.task.ts) make a whole folder's ahead of time under the same bound.
 * A missing ffmpeg turns video thumbnails off with a log line.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Sharp, SharpOptions } from 'sharp';
import { extensionOf } from '../../lib/paths.js';
import type { Located, ThumbnailPort } from '../fs/fs.ports.js';
import type { Entry, StorageDriver } from '../storages/drivers/index.js';

export type ThumbKind = 'image' | 'video';

const IMAGE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'tif', 'tiff', 'bmp', 'heic', 'heif']);
const VIDEO = new Set(['mp4', 'm4v', 'mkv', 'webm', 'mov', 'avi', 'wmv', 'flv', 'ts', 'ogv']);
/** Longest edge of a thumbnail, in pixels. */
export const THUMB_EDGE = 256;
/** Larger images are not decoded (decompression bombs): 100 megapixels. */
const MAX_PIXELS = 100_000_000;
const FFMPEG_TIMEOUT_MS = 30_000;
type SharpFactory = (input?: string | Buffer | SharpOptions, options?: SharpOptions) => Sharp;
let sharpLoaded: Promise<SharpFactory> | undefined;

/**
 * sharp, loaded on the first thumbnail: libvips costs the process ~25 MB of RSS from the moment it is loaded, and
 * most servers serve few or no thumbnails.
 */
function loadSharp(): Promise<SharpFactory> {
  sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    // Every image is decoded once (the result is cached on disk): libvips' operation cache would only hold memory.
    // One libvips thread per thumbnail: `concurrency` thumbnails already run at once, and fewer threads mean fewer
    // malloc arenas (peak RSS) and less contention (npm run bench -- thumbnails: faster, not slower). Ferry is the
    // only user of sharp in its process.
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp as SharpFactory;
  });
  return sharpLoaded;
}

export interface ThumbnailsOptions {
  cacheDir: string;
  logger: Logger;
  concurrency?: number;
  /** The ffmpeg binary; null turns video thumbnails off. Default: `ffmpeg` when it runs. */
  ffmpeg?: string | null;
}

export class ThumbnailError extends Error {}

export class Thumbnails implements ThumbnailPort {
  private readonly cacheDir: string;
  private readonly ffmpeg: string | null;
  private readonly limit: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly jobs = new Map<string, Promise<string>>();

  constructor(private readonly o: ThumbnailsOptions) {
    this.cacheDir = o.cacheDir;
    mkdirSync(this.cacheDir, { recursive: true });
    this.limit = Math.max(1, o.concurrency ?? 2);
    this.ffmpeg = o.ffmpeg === undefined ? findFfmpeg() : o.ffmpeg;
    if (!this.ffmpeg) o.logger.info('ffmpeg not found: video thumbnails are off (install Debian ffmpeg to turn them on)');
  }

  /** How many thumbnails are made at once (requests and folder tasks together). */
  get concurrency(): number {
    return this.limit;
  }

  has(name: string): boolean {
    return this.kindOf(name) !== null;
  }

  /** What kind of thumbnail a file name gets, or null (SVG is shown as itself). */
  kindOf(name: string): ThumbKind | null {
    const ext = extensionOf(name);
    if (IMAGE.has(ext)) return 'image';
    if (VIDEO.has(ext) && this.ffmpeg) return 'video';
    return null;
  }

  /** The cache key's version part of a thumbnail URL: changes whenever the file does. */
  version(size: number, modifiedMs: number): string {
    return `${size.toString(36)}-${modifiedMs.toString(36)}`;
  }

  async file(loc: Located, e: Pick<Entry, 'name' | 'size' | 'modified' | 'isDir'>): Promise<string | null> {
    try {
      return await this.cached(loc.storage.record.id, loc.driver, loc.inner, e);
    } catch (err) {
      this.o.logger.debug({ err, path: loc.inner }, 'no thumbnail');
      return null;
    }
  }

  /**
   * Makes a file's thumbnail unless it is cached (the folder task): `cached`, `made`, or `failed` (not an image or
   * video it can decode). Shares the bounded concurrency and the in-flight jobs with requests.
   */
  async ensure(loc: Located, e: Pick<Entry, 'name' | 'size' | 'modified' | 'isDir'>): Promise<'cached' | 'made' | 'failed'> {
    if (!this.kindOf(e.name) || e.isDir) return 'failed';
    if (await exists(this.target(loc.storage.record.id, loc.inner, e))) return 'cached';
    return (await this.file(loc, e)) ? 'made' : 'failed';
  }

  private target(storageId: number, inner: string, e: Pick<Entry, 'size' | 'modified'>): string {
    const key = createHash('sha256').update(`${storageId}\0${inner}\0${e.size}\0${e.modified.getTime()}`).digest('hex');
    return join(this.cacheDir, key.slice(0, 2), `${key}.webp`);
  }

  /** The cached WebP for a file, made now if needed. Throws ThumbnailError when none can be made. */
  private async cached(storageId: number, driver: StorageDriver, inner: string, e: Pick<Entry, 'name' | 'size' | 'modified' | 'isDir'>): Promise<string> {
    const kind = this.kindOf(e.name);
    if (!kind || e.isDir) throw new ThumbnailError('this file has no thumbnail');
    const target = this.target(storageId, inner, e);
    if (await exists(target)) return target;
    const key = target;
    let job = this.jobs.get(key);
    if (!job) {
      job = this.limited(() => this.make(kind, driver, inner, target)).finally(() => this.jobs.delete(key));
      this.jobs.set(key, job);
    }
    return job;
  }

  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    while (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private async make(kind: ThumbKind, driver: StorageDriver, inner: string, target: string): Promise<string> {
    mkdirSync(join(target, '..'), { recursive: true });
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    try {
      const sharp = await loadSharp();
      const options = { limitInputPixels: MAX_PIXELS, failOn: 'error', animated: false } as const;
      const shrink = (input?: Buffer) =>
        (input ? sharp(input, options) : sharp(options))
          .rotate()
          .resize(THUMB_EDGE, THUMB_EDGE, { fit: 'inside', withoutEnlargement: true })
          .webp({ quality: 70 });
      const host = driver.localFile?.(inner);
      if (kind === 'image' && host) {
        // from the file itself: libvips reads only what it decodes (no copy of the whole file in memory)
        await sharp(host, options).rotate().resize(THUMB_EDGE, THUMB_EDGE, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 70 }).toFile(tmp);
      } else if (kind === 'image') {
        const img = shrink();
        const done = img.toFile(tmp);
        await Promise.all([pipeline(await driver.read(inner), img), done]);
      } else {
        await shrink(await this.videoFrame(driver, inner)).toFile(tmp);
      }
      await rename(tmp, target);
      return target;
    } catch (err) {
      await rm(tmp, { force: true });
      if (err instanceof ThumbnailError) throw err;
      throw new ThumbnailError(`no thumbnail: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  /** One PNG frame (1 s in, or the first) of a video: from its host file when the storage has one, else piped. */
  private videoFrame(driver: StorageDriver, inner: string): Promise<Buffer> {
    const ffmpeg = this.ffmpeg;
    if (!ffmpeg) return Promise.reject(new ThumbnailError('video thumbnails are off (no ffmpeg)'));
    const input = driver.localFile?.(inner);
    return new Promise<Buffer>((resolve, reject) => {
      const args = ['-hide_banner', '-loglevel', 'error', '-nostdin'];
      if (input) args.push('-ss', '1');
      args.push('-i', input ? `file:${input}` : 'pipe:0', '-frames:v', '1', '-vf', `scale=${THUMB_EDGE * 2}:-2`, '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1');
      const child = spawn(ffmpeg, args, { stdio: [input ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      let err = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), FFMPEG_TIMEOUT_MS);
      child.stdout!.on('data', (c: Buffer) => chunks.push(c));
      child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-500)));
      child.on('error', (e) => reject(e));
      child.on('close', (code) => {
        clearTimeout(timer);
        const png = Buffer.concat(chunks);
        if (png.length > 0) resolve(png);
        else reject(new ThumbnailError(`ffmpeg made no frame (exit ${code}): ${err.trim().split('\n')[0] ?? ''}`));
      });
      if (!input) {
        // ffmpeg stops reading once it has its frame: an early close of stdin is expected
        child.stdin!.on('error', () => {});
        driver.read(inner).then(
          (src) => {
            src.on('error', () => child.stdin!.destroy());
            src.pipe(child.stdin!);
            child.on('close', () => src.destroy());
          },
          (e) => {
            child.kill('SIGKILL');
            reject(e);
          },
        );
      }
    });
  }
}

const exists = (p: string): Promise<boolean> => stat(p).then(() => true, () => false);

let ffmpegFound: string | null | undefined;

/** `ffmpeg` when it runs here (looked up once per process). */
function findFfmpeg(): string | null {
  if (ffmpegFound === undefined) ffmpegFound = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0 ? 'ffmpeg' : null;
  return ffmpegFound;
}
