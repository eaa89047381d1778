/**
 * What the file module asks of others, defined here and implemented elsewhere (seeds), so dependencies run
 * one way: seeds → fs, never back.
 */
import type { Readable } from 'node:stream';
import type { Hashes } from '../../lib/hashes.js';
import type { StorageRecord } from '../storages/storage.model.js';
import type { Located } from './fs.service.js';
export type { Located };

/** Files that travel with a file (e.g. `movie.mp4.oss` beside `movie.mp4`). */
export interface CompanionFiles {
  /** The names a file's companions would have, in its folder. */
  namesOf(fileName: string): string[];
  /** Whether companions follow their file through rename, move, copy and remove right now. */
  followEnabled(): Promise<boolean>;
}

/** No companions at all. */
export const NO_COMPANIONS: CompanionFiles = { namesOf: () => [], followEnabled: async () => false };

/** The file an upload writes, as the companion writer sees it. */
export interface UploadTarget {
  /** Full virtual path. */
  full: string;
  /** Where it lands (the parent folder exists). */
  main: Located;
  overwrite: boolean;
  /** Declared size, when known. */
  size?: number;
  mtime?: Date;
  /** Declared digests (a mismatch fails the upload). */
  expectedHashes: Hashes;
}

/** Writes an upload together with its companions: one read of the body, all or nothing. */
export interface CompanionWriter {
  store(target: UploadTarget, body: Readable | AsyncIterable<Uint8Array>): Promise<void>;
}

/** The upload hook: which companions an upload writes. */
export interface UploadCompanions {
  /**
   * The writer for an upload into `storage` with these request headers (lower-case names; `{}` for SFTP and
   * tasks), or null for a plain upload. A malformed header is a 400 before any byte is read.
   */
  forUpload(headers: Readonly<Record<string, string>>, storage: StorageRecord): Promise<CompanionWriter | null>;
}

export const NO_UPLOAD_COMPANIONS: UploadCompanions = { forUpload: async () => null };

/**
 * A change Ferry made to the virtual tree, reported after it happened (full virtual paths). A move or copy of a
 * folder covers everything below it; `written` is a file created or replaced (upload, write set, copy).
 */
export type TreeChange =
  | { kind: 'written'; full: string }
  | { kind: 'mkdir'; full: string }
  | { kind: 'moved'; from: string; to: string }
  | { kind: 'copied'; from: string; to: string }
  | { kind: 'removed'; full: string };

/**
 * Told of every change Ferry makes to the tree, after it happened (search index, WebDAV dead properties).
 * Observers handle their own failures: an observer that throws is ignored, the change stands. A crash between a
 * change and its notification leaves the observer stale; observers say how they heal (e.g. a reconciling walk).
 */
export interface TreeObserver {
  treeChanged(change: TreeChange): Promise<void>;
}

/** Thumbnails of images and videos (implemented by the thumbs module). */
export interface ThumbnailPort {
  /** Whether a file of this name gets a thumbnail. */
  has(name: string): boolean;
  /** The part of a thumbnail URL that changes whenever the file does (so the URL can be cached for good). */
  version(size: number, modifiedMs: number): string;
  /** The cached thumbnail (a WebP file on the host), made now if needed; null when none can be made. */
  file(loc: Located, e: { name: string; size: number; modified: Date; isDir: boolean }): Promise<string | null>;
}

/**
 * A folder's rules (OpenList "meta"): password, write bypass, hidden names, readme and header, each of which
 * applies to the folder itself and, with its `*Sub` flag, to every folder below it. Paths are full virtual paths.
 */
export interface FolderMeta {
  path: string;
  password: string;
  pSub: boolean;
  write: boolean;
  wSub: boolean;
  /** Compiled hidden-name patterns (RE2): a name any of them matches is hidden. */
  hide: readonly { test(name: string): boolean }[];
  hSub: boolean;
  readme: string;
  rSub: boolean;
  header: string;
  headerSub: boolean;
}

/** Where folder rules come from (the metas module). */
export interface FolderRules {
  /** The meta of `full` itself or of its nearest ancestor that has one (only that one applies, as in OpenList). */
  nearest(full: string): Promise<FolderMeta | null>;
  /** Every folder's meta (search filters whole subtrees with them). */
  all(): Promise<readonly FolderMeta[]>;
}

export const NO_FOLDER_RULES: FolderRules = { nearest: async () => null, all: async () => [] };

/** Counts wrong folder passwords (the login lockout): null = refused, too many guesses. */
export interface GuessLimiter {
  reserve(keys: string[]): Promise<{ settle(outcome: 'success' | 'failure'): Promise<void> } | null>;
}
