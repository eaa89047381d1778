/**
 * Polls `probe` until `done` accepts its value, for at most `ms` (default 5 s), every 25 ms; returns the
 * last value either way, so the caller's assertion shows what was seen. For effects the server finishes
 * after the response (e.g. the hash index learning from a whole download).
 */
export async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}
