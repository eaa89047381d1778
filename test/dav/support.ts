/** Helpers of the WebDAV suites: requests with Basic auth through the harness, and multistatus parsing. */
import type { Harness } from '../support/harness.js';

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
