// Messages between the main thread and the hashing workers, and the ring layout.
import type { FileLaneOutput, LaneSpec, PieceDigests } from './lanes.js';

/** Int32 slots at the start of every ring SharedArrayBuffer. */
export const CTL_ABORTED = 0;
export const RING_HEADER_BYTES = 64;

/**
 * How much nicer than the process the hashing workers run: not at all (issue #17). They drain a ring the
 * event loop fills and waits on, so an upload moves at the pace of its slowest lane. At nice +10 (the other
 * workers' WORKER_NICE_OFFSET) a lane gets a sliver of a core whenever the loop and the client are both
 * running: the ring fills, the loop stops reading, and the work runs by turns instead of side by side (on a
 * quiet 2-core box the `.oss` upload went from 1.58× to 1.80× nginx's PUT and the SFTP put from 1.21× to
 * 1.44× OpenSSH after the workers were made nicer; on a busy box any process at nice 0 starves uploads).
 * The loop still answers promptly: while it waits on the ring it is idle, and when it wakes the scheduler
 * serves it within a time slice.
 */
export const HASH_WORKER_NICE_OFFSET = 0;

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

