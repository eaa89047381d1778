/** Helpers of the WebDAV suites: requests with Basic auth through the harness, multistatus parsing, real clients. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ADMIN_PASSWORD, type Harness } from '../support/harness.js';

export const WEBDAV_READ = 1 << 8;
export const WEBDAV_MANAGE = 1 << 9;
/** write, rename, move, copy, remove */
export const FS_WRITE_BITS = (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7);

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export interface DavReply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
}

export async function dav(h: Harness, method: string, url: string, o: { auth?: string | null; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<DavReply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.auth !== null && o.auth !== undefined) headers.authorization = o.auth;
  const res = await h.app.inject({ method: method as 'GET', url, headers, remoteAddress: '127.0.0.1', ...(o.body !== undefined ? { payload: o.body } : {}) });
  return { status: res.statusCode, body: res.body, headers: res.headers };
}

/** The hrefs of a multistatus body, decoded. */
export function hrefs(xml: string): string[] {
  return [...xml.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => decodeURIComponent(m[1]!));
}

/** The text of the first `<D:name>` (or any prefix) element in `xml`, or null. */
export function propText(xml: string, name: string): string | null {
  const m = new RegExp(`<(?:\\w+:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:\\w+:)?${name}>`).exec(xml);
  return m ? m[1]! : null;
}

export const PROPFIND_ALL = '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>';

export const propfindProps = (props: string) => `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:" xmlns:oc="http://owncloud.org/ns"><D:prop>${props}</D:prop></D:propfind>`;

export const LOCK_EXCLUSIVE =
  '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>test</D:owner></D:lockinfo>';
export const LOCK_SHARED =
  '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>test</D:owner></D:lockinfo>';

/**
 * Runs a client and collects its output (stdout and stderr). Asynchronous: the Ferry under test lives in this
 * process, so a synchronous spawn would stop it from answering. Killed after `timeout` ms (default 240 s).
 */
export function runClient(cmd: string, args: string[], o: { cwd?: string; env?: Record<string, string>; input?: string | Buffer; timeout?: number } = {}): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: o.cwd, env: { ...process.env, ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeout ?? 240_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.input ?? '');
  });
}

/** The environment that makes rclone's remote `d:` the webdav backend at `url` as admin, with `vendor`. */
export async function rcloneEnv(url: string, vendor: string, configDir: string): Promise<Record<string, string>> {
  return {
    RCLONE_CONFIG_D_TYPE: 'webdav',
    RCLONE_CONFIG_D_URL: url,
    RCLONE_CONFIG_D_VENDOR: vendor,
    RCLONE_CONFIG_D_USER: 'admin',
    RCLONE_CONFIG_D_PASS: (await runClient('rclone', ['obscure', ADMIN_PASSWORD])).out.trim(),
    RCLONE_CONFIG: join(configDir, 'rclone.conf'),
    AWS_CA_BUNDLE: '',
  };
}
