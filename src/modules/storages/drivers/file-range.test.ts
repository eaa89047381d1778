import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { CHUNK_BYTES, FileRangeStream, isDirectSendable, type RangeHooks } from './file-range.js';

/** A destination that takes its time: each write's callback runs a little later (a slow socket). */
function slowSink(opts: { closeAfter?: number } = {}): Writable & { got: Buffer[]; bytes: number } {
  const got: Buffer[] = [];
  let bytes = 0;
  const w = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, cb) {
      // copy what was handed over *now*: a buffer reused before the callback would show up as wrong bytes later
      got.push(Buffer.from(chunk));
      bytes += chunk.length;
      setTimeout(() => {
        if (opts.closeAfter !== undefined && bytes >= opts.closeAfter) w.destroy();
        cb();
      }, 2);
    },
  }) as Writable & { got: Buffer[]; bytes: number };
  Object.defineProperty(w, 'got', { get: () => got });
  Object.defineProperty(w, 'bytes', { get: () => bytes });
  return w;
}

/** Sends `s` to `sink` and ends the sink once it has taken everything. */
async function sendAll(s: FileRangeStream, sink: Writable): Promise<void> {
  await s.sendTo(sink);
  await new Promise<void>((resolve, reject) => sink.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Hooks that record what they saw. */
function recorder() {
  const seen = { chunks: 0, bytes: 0, ends: [] as boolean[] };
  const hooks: RangeHooks = {
    chunk: async (b) => {
      seen.chunks++;
      seen.bytes += b.length;
    },
    end: async (complete) => void seen.ends.push(complete),
  };
  return { seen, hooks };
}

describe('FileRangeStream', () => {
  let dir: string;
  let file: string;
  const data = randomBytes(CHUNK_BYTES * 9 + 12345);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ferry-range-'));
    file = join(dir, 'f.bin');
    await writeFile(file, data);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  const openRange = async (start: number, last: number, hooks?: RangeHooks) => new FileRangeStream(await open(file, 'r'), start, last, hooks);

  it('sendTo: every byte, in order, although its few buffers are reused while a slow destination holds earlier ones', async () => {
    const { seen, hooks } = recorder();
    const s = await openRange(0, data.length - 1, hooks);
    assert.ok(isDirectSendable(s));
    const sink = slowSink();
    await sendAll(s, sink);
    assert.ok(Buffer.concat(sink.got).equals(data), 'same bytes');
    assert.ok(sink.got.every((c) => c.length <= CHUNK_BYTES));
    assert.deepEqual(seen, { chunks: 10, bytes: data.length, ends: [true] });
    assert.ok(s.destroyed, 'the file is closed at the end');
  });

  it('sendTo: a range across chunk boundaries sends exactly those bytes', async () => {
    for (const [a, b] of [
      [CHUNK_BYTES - 1, CHUNK_BYTES],
      [1000, CHUNK_BYTES * 5 + 17],
      [data.length - 1, data.length - 1],
    ] as const) {
      const sink = slowSink();
      await sendAll(await openRange(a, b), sink);
      assert.ok(Buffer.concat(sink.got).equals(data.subarray(a, b + 1)), `${a}-${b}`);
    }
  });

  it('sendTo: a destination closed early rejects, stops reading and tells the hooks the read is incomplete', async () => {
    const { seen, hooks } = recorder();
    const s = await openRange(0, data.length - 1, hooks);
    const sink = slowSink({ closeAfter: CHUNK_BYTES * 2 });
    await assert.rejects(s.sendTo(sink), /closed before the last byte|destroyed/);
    assert.ok(seen.bytes < data.length, 'stopped reading');
    assert.deepEqual(seen.ends, [false]);
    assert.ok(s.destroyed);
  });

  it('sendTo: a file shorter than the range rejects instead of sending a short body silently', async () => {
    const s = await openRange(0, data.length + CHUNK_BYTES);
    await assert.rejects(s.sendTo(slowSink()), /ended before the range did/);
  });

  it('as a Readable: the same bytes and hooks; once read that way it cannot also be sent', async () => {
    const { seen, hooks } = recorder();
    const s = await openRange(5, data.length - 1, hooks);
    const parts: Buffer[] = [];
    for await (const c of s) parts.push(c as Buffer);
    assert.ok(Buffer.concat(parts).equals(data.subarray(5)));
    assert.deepEqual(seen.ends, [true]);
    assert.equal(seen.bytes, data.length - 5);
    await assert.rejects(s.sendTo(slowSink()), /already being read/);
  });

  it('as a Readable destroyed early: hooks told incomplete, file closed', async () => {
    const { seen, hooks } = recorder();
    const s = await openRange(0, data.length - 1, hooks);
    for await (const _ of s) break;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen.ends, [false]);
    assert.ok(s.destroyed);
  });
});
