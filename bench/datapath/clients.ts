// The clients the datapath rows drive servers with: curl for transfers (a separate process, so
// the benchmark's own event loop stays free for latency probes), wrk for request rates, and a
// small keep-alive probe for latency samples.
import http from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool, timeIt } from '../lib.js';

const CURL_BASE = ['-sS', '--noproxy', '*', '-H', 'Expect:'];

/** `curl -T file url` with headers; throws unless the HTTP status is one of `ok`. Returns seconds. */
export async function curlUpload(url: string, file: string, headers: string[], ok: number[] = [200]): Promise<number> {
  let status = '';
  let err = '';
  const secs = await timeIt(async () => {
    const r = await runTool('curl', [...CURL_BASE, '-T', file, '-o', '/dev/null', '-w', '%{http_code}', ...headers.flatMap((h) => ['-H', h]), url]);
    status = r.stdout.trim();
    err = r.code !== 0 ? `curl exited ${r.code}: ${r.stderr}` : '';
  });
  if (err) throw new Error(`PUT ${url}: ${err}`);
  if (!ok.includes(Number(status))) throw new Error(`PUT ${url} answered HTTP ${status}`);
  return secs;
}

export interface Download {
  secs: number;
  status: number;
  bytes: number;
}

/** `curl url` into `out` (default /dev/null); returns time, status and bytes received. */
export async function curlDownload(url: string, headers: string[] = [], out = '/dev/null', extra: string[] = []): Promise<Download> {
  let res = { status: 0, bytes: 0 };
  let err = '';
  const secs = await timeIt(async () => {
    const r = await runTool('curl', [...CURL_BASE, '-o', out, '-w', '%{http_code} %{size_download}', ...extra, ...headers.flatMap((h) => ['-H', h]), url]);
    const [s, b] = r.stdout.trim().split(' ');
    res = { status: Number(s), bytes: Number(b) };
    err = r.code !== 0 ? `curl exited ${r.code}: ${r.stderr}` : '';
  });
  if (err) throw new Error(`GET ${url}: ${err}`);
  return { secs, ...res };
}

/** Downloads `url` and checks status 200 and exactly `size` bytes; returns seconds. */
export async function curlGetExact(url: string, size: number, headers: string[] = []): Promise<number> {
  const d = await curlDownload(url, headers);
  if (d.status !== 200 || d.bytes !== size) throw new Error(`GET ${url}: HTTP ${d.status}, ${d.bytes} bytes (expected 200 and ${size})`);
  return d.secs;
}

export interface WrkOptions {
  connections: number;
  threads: number;
  seconds: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * How long a wrk run should last: at least `base` seconds, and long enough for about 12 requests
 * as slow as the slowest single request timed beforehand (slow requests, e.g. a 10,000-entry
 * listing, would otherwise complete only a handful of times and the rate would move in coarse
 * steps); at most 60 s. Both sides of a row get the same duration.
 */
export function wrkSeconds(base: number, singleRequestSecs: number[]): number {
  return Math.min(60, Math.max(base, Math.ceil(12 * Math.max(0, ...singleRequestSecs))));
}

/**
 * Requests per second from `wrk` (a Lua script sets method, body and headers). Any non-2xx/3xx
 * answer or socket error fails the run: a rate of error pages measures nothing.
 */
export async function wrkRate(dir: string, url: string, o: WrkOptions): Promise<number> {
  const script = join(dir, `wrk-${process.pid}.lua`);
  const lua = [
    `wrk.method = ${JSON.stringify(o.method ?? 'GET')}`,
    ...(o.body !== undefined ? [`wrk.body = ${luaString(o.body)}`] : []),
    ...Object.entries(o.headers ?? {}).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`),
  ].join('\n');
  await writeFile(script, lua + '\n');
  const r = await runTool('wrk', [`-t${o.threads}`, `-c${o.connections}`, `-d${o.seconds}s`, '--timeout', '30s', '-s', script, url]);
  if (r.code !== 0) throw new Error(`wrk ${url} exited ${r.code}: ${r.stderr}${r.stdout}`);
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
  if (!rate) throw new Error(`wrk printed no rate:\n${r.stdout}`);
  const bad = /Non-2xx or 3xx responses:\s+(\d+)/.exec(r.stdout);
  if (bad) throw new Error(`wrk ${url}: ${bad[1]} non-2xx/3xx answers\n${r.stdout}`);
  const sock = /Socket errors:([^\n]+)/.exec(r.stdout);
  if (sock && /timeout [1-9]|connect [1-9]|read [1-9]|write [1-9]/.test(sock[1]!)) throw new Error(`wrk ${url}: socket errors:${sock[1]}`);
  return Number(rate[1]);
}

/** A Lua string literal (3-digit decimal escapes, so a following digit is never taken in, for anything outside printable ASCII, quotes, backslash). */
function luaString(s: string): string {
  return '"' + [...Buffer.from(s, 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('') + '"';
}

export interface ProbeOptions {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Pause between the end of one request and the start of the next. */
  everyMs: number;
  /** Stop once this returns false (checked before each request). */
  more: () => boolean;
  /** Hard bounds. */
  maxSamples: number;
  maxMs: number;
}

/**
 * Latency samples (ms) of one request repeated on a keep-alive connection until `more()` is
 * false. Every answer must be HTTP 200; its body is read in full before the clock stops.
 */
export async function probeLatency(url: string, o: ProbeOptions): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  const end = Date.now() + o.maxMs;
  try {
    while (o.more() && samples.length < o.maxSamples && Date.now() < end) {
      const t0 = process.hrtime.bigint();
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(url, { method: o.method ?? 'GET', agent, headers: { ...o.headers, ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}) } }, (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.setTimeout(60_000, () => req.destroy(new Error('probe request timed out after 60 s')));
        req.end(o.body);
      });
      if (status !== 200) throw new Error(`latency probe ${url} answered HTTP ${status}`);
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await new Promise((r) => setTimeout(r, o.everyMs));
    }
  } finally {
    agent.destroy();
  }
  return samples;
}
