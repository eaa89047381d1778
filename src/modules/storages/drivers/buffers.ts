/** Small helpers over any driver: existence, whole-buffer writes and reads (sidecars, journal backups). */
import { Readable } from 'node:stream';
import { isDriverError, type StorageDriver, type WriteOptions } from './types.js';

/** Writes `data` to `path` (replacing it) through the two-phase write; nothing is left on failure. */
export async function writeBuffer(driver: StorageDriver, path: string, data: Buffer, opts: WriteOptions = {}): Promise<void> {
  const p = await driver.beginWrite(path, { overwrite: true, ...opts, size: data.length });
  try {
    await p.pipeFrom(Readable.from([data]));
    await p.commit();
  } catch (e) {
    await p.abort(e);
    throw e;
  }
}

/** The whole content of a (small) file. */
export async function readBuffer(driver: StorageDriver, path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await driver.read(path)) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** Whether anything (file or folder) is at `path`; other errors propagate. */
export async function pathExists(driver: StorageDriver, path: string): Promise<boolean> {
  try {
    await driver.stat(path);
    return true;
  } catch (e) {
    if (isDriverError(e, 'not_found')) return false;
    throw e;
  }
}
