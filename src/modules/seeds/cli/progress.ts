// A one-line progress meter on stderr, only when stderr is a terminal and the input is large.

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `1.5 GiB`, `312 B`. */
export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${Math.round(n)} B` : `${v.toFixed(v >= 100 ? 0 : 1)} ${units[u]}`;
}

/** Inputs smaller than this finish too fast for a meter to help. */
export const PROGRESS_MIN_BYTES = 64 * 1024 * 1024;

export interface Progress {
  update(done: number): void;
  done(): void;
}

const silent: Progress = { update: () => undefined, done: () => undefined };

/** A meter for `total` bytes labelled `label`; a no-op unless `stream` is a TTY and the input is large. */
export function progressMeter(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY || total < PROGRESS_MIN_BYTES) return silent;
  const t0 = Date.now();
  let last = 0;
  const draw = (done: number) => {
    const secs = Math.max((Date.now() - t0) / 1000, 1e-3);
    const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
    stream.write(`\r\x1b[K${label} ${formatBytes(done)} / ${formatBytes(total)} (${pct}%) ${formatBytes(done / secs)}/s`);
  };
  return {
    update(done) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      draw(done);
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}
