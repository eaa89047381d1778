/**
 * Raw TCP for hostile-input tests: the test decides every byte on the wire and when, and
 * sees the server's reply exactly as sent (header lines unparsed by any HTTP client).
 */
import { Buffer } from 'node:buffer';
import net from 'node:net';

export interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received(): Buffer;
  /** Resolves when the connection is closed (by either side), with the time it happened. */
  closed: Promise<{ at: number; error: Error | null }>;
  /** Writes and waits for the kernel to take the bytes; false when the connection is gone. */
  write(data: Buffer | string): Promise<boolean>;
  /** Resolves once the server's bytes contain `pattern` (or the connection closed). */
  waitFor(pattern: RegExp | string): Promise<boolean>;
}

export function connect(base: string): Promise<RawConnection> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) });
    const chunks: Buffer[] = [];
    let size = 0;
    let waiters: Array<() => void> = [];
    const wake = () => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    };
    let lastError: Error | null = null;
    socket.on('data', (d: Buffer) => {
      // Keep at most 1 MiB: replies here are small, a flood must not grow the test's memory.
      if (size < 1024 * 1024) {
        chunks.push(d);
        size += d.length;
      }
      wake();
    });
    socket.on('error', (e) => (lastError = e));
    const closed = new Promise<{ at: number; error: Error | null }>((res) =>
      socket.on('close', () => {
        wake();
        res({ at: Date.now(), error: lastError });
      }),
    );
    const received = () => Buffer.concat(chunks);
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    socket.once('connect', () =>
      resolve({
        socket,
        received,
        closed,
        write: (data) =>
          new Promise<boolean>((res) => {
            if (socket.destroyed || !socket.writable) return res(false);
            socket.write(data, (err) => res(!err));
          }),
        waitFor: (pattern) =>
          new Promise<boolean>((res) => {
            const check = () => {
              const text = received().toString('latin1');
              if (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) return res(true);
              if (isClosed || socket.destroyed) return res(false);
              waiters.push(check);
            };
            check();
          }),
      }),
    );
    socket.once('error', reject);
  });
}

export interface ParsedResponse {
  status: number;
  /** Header lines in order, names lower-cased, values as sent. */
  headers: Array<[string, string]>;
  body: Buffer;
}

/** Parses one HTTP/1.1 response head (the body is what follows the blank line). */
export function parseResponse(raw: Buffer): ParsedResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw.subarray(0, 500).toString('latin1'))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!m) throw new Error(`bad status line ${JSON.stringify(statusLine)}`);
  const headers = lines.map((l): [string, string] => {
    const i = l.indexOf(':');
    if (i <= 0) throw new Error(`malformed header line ${JSON.stringify(l)}`);
    return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()];
  });
  return { status: Number(m[1]), headers, body: raw.subarray(end + 4) };
}

export const header = (r: ParsedResponse, name: string): string[] => r.headers.filter(([n]) => n === name).map(([, v]) => v);

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves with `p`'s value, or rejects after `ms` (a bound on a test step, never a timing claim). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error(`${what}: nothing after ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}
