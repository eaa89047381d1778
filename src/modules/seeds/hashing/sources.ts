// Pull-style helpers: hash local files, streams (e.g. a storage driver's read stream) or
// buffers, one after another, in one job.
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Hasher } from './hasher.js';
import type { HasherTuning } from './hasher.js';
import type { HashOptions, HashResult } from './types.js';

/**
 * One file's content: a local path (read straight into the workers' shared ring), bytes in
 * memory, any (async) iterable of byte chunks such as a `Readable`, or a function returning
 * one of those, called just before the file's turn (so only one stream is open at a time).
 */
export type HashInput =
  | string
  | URL
  | Uint8Array
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array>
  | (() => HashInput | Promise<HashInput>);

const PULL_RING = 32 * 1024 * 1024;
const PULL_SEGMENT = 4 * 1024 * 1024;

async function feed(hasher: Hasher, input: HashInput): Promise<void> {
  if (typeof input === 'function') return feed(hasher, await input());
  await hasher.startFile();
  if (typeof input === 'string' || input instanceof URL) {
    const fh = await open(input instanceof URL ? fileURLToPath(input) : input, 'r');
    try {
      let pos = 0;
      for (;;) {
        const n = await hasher.fill(async (buf) => (await fh.read(buf, 0, buf.length, pos)).bytesRead);
        if (n === 0) break;
        pos += n;
      }
    } finally {
      await fh.close();
    }
  } else if (input instanceof Uint8Array) {
    await hasher.update(input);
  } else if (Symbol.asyncIterator in input) {
    for await (const chunk of input) await hasher.update(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  } else {
    for (const chunk of input) await hasher.update(chunk);
  }
  await hasher.endFile();
}

/**
 * Hashes a sequence of files in one pass each: `result.files[i]` belongs to the i-th input;
 * `torrentPieces` (when asked for) runs over all of them concatenated.
 */
export async function hashFiles(
  inputs: Iterable<HashInput> | AsyncIterable<HashInput>,
  opts: HashOptions & HasherTuning = {},
): Promise<HashResult> {
  // A pull job reads as fast as the source allows: a deeper ring rides out scheduling hiccups
  // on a busy machine and bigger segments cost less per byte (bench/hashing.ts).
  const hasher = new Hasher({ ringBytes: PULL_RING, segmentBytes: PULL_SEGMENT, ...opts });
  try {
    for await (const input of inputs) await feed(hasher, input);
    return await hasher.finish();
  } catch (err) {
    hasher.abort(err);
    throw err;
  }
}

/** Hashes a single file, stream or buffer. */
export function hashInput(input: HashInput, opts: HashOptions & HasherTuning = {}): Promise<HashResult> {
  return hashFiles([input], opts);
}
