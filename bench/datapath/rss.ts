// Peak resident memory of the Ferry process while a row runs.
//
// Two sources, the larger wins: VmRSS sampled every 50 ms, and VmHWM (the kernel's own peak,
// exact between samples). VmHWM covers the process's whole life, so at the start of a row we
// reset it by writing 5 to /proc/<pid>/clear_refs (Linux ≥ 4.0, same user or root); if that
// write fails, only the samples count. The PID is re-read each tick: rows may restart Ferry.
import { readFile, writeFile } from 'node:fs/promises';

async function status(pid: number): Promise<{ rss: number; hwm: number } | null> {
  try {
    const s = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)\\s+kB`).exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null; // the process is gone (restart in progress)
  }
}

async function resetHwm(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface RssWatch {
  /** VmRSS in bytes when the watch started (memory kept from earlier work). */
  start: number;
  /** Stops sampling; the peak in bytes since `watchRss` (0 when nothing could be read). */
  stop(): Promise<number>;
}

/** Starts sampling the process `pid()` names (re-read at every tick). */
export async function watchRss(pid: () => number | undefined): Promise<RssWatch> {
  let peak = 0;
  // The process running now has a VmHWM from before this row: count it only once reset. A
  // process started later (a restart within the row) has its whole life inside the row.
  const first = pid();
  const untrusted = first !== undefined && !(await resetHwm(first)) ? first : undefined;
  const tick = async () => {
    const p = pid();
    if (!p) return;
    const s = await status(p);
    if (!s) return;
    peak = Math.max(peak, s.rss, p === untrusted ? 0 : s.hwm);
  };
  await tick();
  const start = peak;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void tick().finally(() => (busy = false));
  }, 50);
  return {
    start,
    async stop() {
      clearInterval(timer);
      await tick();
      return peak;
    },
  };
}
