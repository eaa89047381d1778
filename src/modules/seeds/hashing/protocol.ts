// Messages between the main thread and the hashing workers, and the ring layout.
import type { FileLaneOutput, LaneSpec, PieceDigests } from './lanes.js';

/** Int32 slots at the start of every ring SharedArrayBuffer. */
export const CTL_ABORTED = 0;
export const RING_HEADER_BYTES = 64;

export type ToWorker =
  | { t: 'open'; job: number; sab: SharedArrayBuffer; lanes: LaneSpec[] }
  /** Hash ring bytes [off, off+len); `b`: a file begins before them, `e`: the file ends after them. */
  | { t: 'seg'; job: number; off: number; len: number; b?: 1; e?: 1 }
  | { t: 'close'; job: number }
  | { t: 'cancel'; job: number };

export type FromWorker =
  | { t: 'ack'; job: number; len: number; file?: FileLaneOutput }
  | { t: 'closed'; job: number; torrent?: PieceDigests }
  | { t: 'cancelled'; job: number }
  | { t: 'error'; job: number; message: string };

