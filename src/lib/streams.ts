import { Transform } from 'node:stream';

/**
 * A pass-through that reports the bytes flowing through it. Use it inside a pipeline:
 * listening to `data` on a source instead would start the flow before the pipe exists.
 */
export function byteCounter(onBytes: (chunkBytes: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      onBytes(chunk.length);
      cb(null, chunk);
    },
  });
}
