/** Partial reads of a file link. */

/** Reads bytes [start, end) of a file with a range request (a server without ranges sends the whole file: cut it). */
export async function readRange(url: string, start: number, end: number): Promise<Uint8Array> {
  if (end <= start) return new Uint8Array(0);
  const res = await fetch(url, { headers: { Range: `bytes=${start}-${end - 1}` }, cache: 'no-store' });
  if (!res.ok) throw new Error(`reading the file failed (HTTP ${res.status})`);
  const buf = new Uint8Array(await res.arrayBuffer());
  return res.status === 206 ? buf : buf.subarray(start, end);
}
