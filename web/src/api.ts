/**
 * The typed fetch client. Every reply is the envelope `{code, message, data}`; anything but
 * code 200 throws an `ApiError` (also when `api_errors_http_200` sends errors with HTTP 200).
 * The token lives in localStorage and goes out as the `Authorization` header; a 401 on an
 * authenticated call clears it and tells the session (→ back to the login page).
 */

const TOKEN_KEY = 'ferry.token';
export const UNAUTHORIZED_EVENT = 'ferry:unauthorized';

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/** Clears the token and tells the session that it is gone. */
export function dropSession(): void {
  setToken(null);
  window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
}

export interface RequestOptions {
  /** JSON body (POST). */
  body?: unknown;
  /** Query parameters. */
  query?: Record<string, string | number | boolean | undefined>;
  /** false: send no token and do not treat a 401 as a lost session (login). */
  auth?: boolean;
  signal?: AbortSignal;
}

/** Headers carrying the token, for requests made outside `request` (XHR uploads). */
export function authHeaders(): Record<string, string> {
  const t = getToken();
  return t ? { Authorization: t } : {};
}

/** Turns an envelope (already parsed) into data or an ApiError; handles 401. */
export function unwrap<T>(status: number, body: unknown, auth = true): T {
  const env = body as { code?: unknown; message?: unknown; data?: unknown } | null;
  if (!env || typeof env !== 'object' || typeof env.code !== 'number') {
    throw new ApiError(status >= 400 ? status : 500, `unexpected reply from the server (HTTP ${status})`);
  }
  if (env.code === 200) return env.data as T;
  const err = new ApiError(env.code, typeof env.message === 'string' ? env.message : `error ${env.code}`, env.data ?? null);
  if (err.code === 401 && auth && getToken()) dropSession();
  throw err;
}

export async function request<T>(method: 'GET' | 'POST', path: string, opts: RequestOptions = {}): Promise<T> {
  const qs = opts.query
    ? '?' +
      Object.entries(opts.query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
        .join('&')
    : '';
  const headers: Record<string, string> = opts.auth === false ? {} : authHeaders();
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  return send<T>(path + qs, { method, headers, body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined, signal: opts.signal }, opts.auth !== false);
}

/** One fetch whose reply is an envelope: data, or an ApiError (status 0 when the server cannot be reached). */
export async function send<T>(url: string, init: RequestInit, auth = true): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'The server cannot be reached. Check your connection and try again.');
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  return unwrap<T>(res.status, body, auth);
}

export const api = {
  get: <T>(path: string, query?: RequestOptions['query'], opts: Omit<RequestOptions, 'query'> = {}) => request<T>('GET', path, { ...opts, query }),
  post: <T>(path: string, body?: unknown, opts: RequestOptions = {}) => request<T>('POST', path, { ...opts, body }),
};

/** A message for any thrown value, for toasts and inline errors. */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
