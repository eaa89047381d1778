// Worker-thread side of the hashing pool. Each job owns a SharedArrayBuffer ring the main
// thread fills; segment messages say which bytes to hash, acks give the space back.
// A worker serves several jobs at once (messages are handled in order per job).
import { parentPort } from 'node:worker_threads';
import { lowerWorkerPriority } from '../../../lib/worker-pool.js';
import { LaneSet } from './lanes.js';
import type { FileLaneOutput, PieceDigests } from './lanes.js';
import { CTL_ABORTED, HASH_WORKER_NICE_OFFSET, RING_HEADER_BYTES } from './protocol.js';
import type { FromWorker, ToWorker } from './protocol.js';

interface JobState {
  lanes: LaneSet;
  bytes: Buffer;
  ctl: Int32Array;
}

function transferables(out: FileLaneOutput | PieceDigests | undefined): ArrayBuffer[] {
  if (!out) return [];
  const list: ArrayBuffer[] = [];
  const add = (d: PieceDigests) => list.push(d.idx.buffer as ArrayBuffer, d.dig.buffer as ArrayBuffer);
  if ('idx' in out) add(out);
  else for (const d of Object.values(out.pieces)) if (d) add(d);
  return list;
}

if (parentPort) {
  lowerWorkerPriority(HASH_WORKER_NICE_OFFSET);
  const port = parentPort;
  const jobs = new Map<number, JobState>();
  const send = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

  port.on('message', (m: ToWorker) => {
    try {
      switch (m.t) {
        case 'open':
          jobs.set(m.job, {
            lanes: new LaneSet(m.lanes),
            bytes: Buffer.from(m.sab, RING_HEADER_BYTES),
            ctl: new Int32Array(m.sab, 0, RING_HEADER_BYTES / 4),
          });
          return;
        case 'seg': {
          const job = jobs.get(m.job);
          // Unknown job: cancelled meanwhile; the ack is not needed any more.
          if (!job) return;
          if (Atomics.load(job.ctl, CTL_ABORTED) !== 0) {
            send({ t: 'ack', job: m.job, len: m.len });
            return;
          }
          if (m.b) job.lanes.beginFile();
          job.lanes.update(job.bytes.subarray(m.off, m.off + m.len));
          const file = m.e ? job.lanes.endFile() : undefined;
          send(file ? { t: 'ack', job: m.job, len: m.len, file } : { t: 'ack', job: m.job, len: m.len }, transferables(file));
          return;
        }
        case 'close': {
          const job = jobs.get(m.job);
          jobs.delete(m.job);
          const torrent = job?.lanes.finish();
          send(torrent ? { t: 'closed', job: m.job, torrent } : { t: 'closed', job: m.job }, transferables(torrent));
          return;
        }
        case 'cancel':
          jobs.delete(m.job);
          send({ t: 'cancelled', job: m.job });
          return;
      }
    } catch (err) {
      jobs.delete(m.job);
      send({ t: 'error', job: m.job, message: err instanceof Error ? err.message : String(err) });
    }
  });
}
