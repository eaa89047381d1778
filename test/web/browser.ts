/**
 * Browser end-to-end support: Debian's Chromium driven by playwright-core against the BUILT
 * server as a real process (`npm run build` first). Console errors and uncaught page errors
 * are collected and fail the run in `close()`; screenshots go to `test-results/`.
 *
 *   const app = await openApp();            // server + browser + page (1280×800)
 *   await login(app.page, 'admin', app.adminPassword);
 *   await screenshot(app.page, 'files');
 *   await app.close();                      // throws if the page logged errors
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { api, ROOT, startServer, type ServerProcess } from '../support/process.js';

export const CHROMIUM = '/usr/bin/chromium';
export const RESULTS_DIR = join(ROOT, 'test-results');
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;
const ADMIN_PASSWORD = 'admin-pass-for-web-tests';

export interface App {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  server: ServerProcess;
  url: string;
  dataDir: string;
  adminPassword: string;
  /** Console errors and page errors seen so far, in every page of this app. */
  errors: string[];
  /** A logged-in admin API token (for setting things up over HTTP). */
  adminToken(): Promise<string>;
  /** Another page (own context, so its own localStorage) at the given viewport. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Records console errors and uncaught exceptions. HTTP 4xx answers of `/api/` calls are the API working, not errors. */
export function watchErrors(page: Page, errors: string[]): void {
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    const url = msg.location().url ?? '';
    if (/status of 4\d\d/.test(text) && /\/api\//.test(url)) return;
    errors.push(`console: ${text} (${url})`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
}

export async function openApp(opts: { env?: Record<string, string>; viewport?: { width: number; height: number } } = {}): Promise<App> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-web-'));
  let server: ServerProcess | null = null;
  let browser: Browser | null = null;
  try {
    server = await startServer({ FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: ADMIN_PASSWORD, FERRY_LOG_LEVEL: 'info', ...opts.env });
    browser = await launchBrowser();
  } catch (e) {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const b = browser;
  const srv = server;
  const newPage = async (viewport: { width: number; height: number } = opts.viewport ?? DESKTOP) => {
    const ctx = await b.newContext({ viewport, baseURL: srv.url, acceptDownloads: true });
    contexts.push(ctx);
    const p = await ctx.newPage();
    p.setDefaultTimeout(20_000);
    watchErrors(p, errors);
    return p;
  };
  const page = await newPage();
  let token: string | null = null;
  return {
    browser: b,
    context: contexts[0]!,
    page,
    server: srv,
    url: srv.url,
    dataDir,
    adminPassword: ADMIN_PASSWORD,
    errors,
    newPage,
    async adminToken() {
      if (token) return token;
      const r = await api(srv.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
      if (r.status !== 200) throw new Error(`admin login failed: ${JSON.stringify(r.body)}`);
      return (token = r.body.data.token as string);
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await b.close().catch(() => {});
      await srv.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (errors.length) throw new Error(`the page logged errors:\n${errors.join('\n')}`);
    },
  };
}

/** Signs in through the login page; `totp` (a code, or a function giving one) answers the 2FA step. */
export async function login(page: Page, username: string, password: string, totp?: string | (() => string)): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (totp !== undefined) {
    const field = page.getByLabel('One-time code');
    await field.waitFor();
    await field.fill(typeof totp === 'function' ? totp() : totp);
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
  }
  await page.locator('main#main').waitFor();
}

/** Saves a full-page PNG as `test-results/<name>.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * What sticks out sideways on the current page: elements whose right edge passes the content
 * box of the card, table or dialog holding them (or the viewport), and the page scrolling sideways.
 * Tables (`.table-wrap`) must fit without scrolling sideways; other scrolling or clipping boxes
 * (the tab strip) are their own business.
 * Returns at most 10 descriptions, `[]` when everything fits.
 */
export async function overflowReport(page: Page): Promise<string[]> {
  // A string, not a function: tsx would wrap a function's inner helpers in a `__name` the page lacks.
  return page.evaluate(OVERFLOW_SCRIPT) as Promise<string[]>;
}

const OVERFLOW_SCRIPT = `(() => {
  const vw = document.documentElement.clientWidth;
  const found = [];
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  const describe = (el) => {
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
    const cls = typeof el.className === 'string' && el.className ? ' class="' + el.className + '"' : '';
    return '<' + el.tagName.toLowerCase() + cls + '> “' + text + '”';
  };
  if (document.documentElement.scrollWidth > vw + 1) found.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + 'px > ' + vw + 'px');
  for (const t of document.querySelectorAll('.table-wrap')) {
    if (t.scrollWidth > t.clientWidth + 1) found.push(describe(t.querySelector('thead') || t) + ' is a table wider than its box: ' + t.scrollWidth + 'px > ' + t.clientWidth + 'px');
  }
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || el.closest('.sr-only')) continue;
    const box = el.parentElement && el.parentElement.closest('.card, .table-wrap, dialog');
    let limit = vw;
    if (box) {
      const cs = getComputedStyle(box);
      limit = box.getBoundingClientRect().right - parseFloat(cs.paddingRight) - parseFloat(cs.borderRightWidth);
    }
    if (r.right > limit + 1 && !clipped(el)) found.push(describe(el) + ' ends at ' + Math.round(r.right) + 'px, past ' + Math.round(limit) + 'px');
    if (found.length >= 10) break;
  }
  return found;
})()`;

/** Presses Tab (Shift+Tab with `back`) until `target` has the focus; fails after `max` presses. */
export async function tabTo(page: Page, target: Locator, opts: { back?: boolean; max?: number } = {}): Promise<void> {
  const max = opts.max ?? 60;
  const key = opts.back ? 'Shift+Tab' : 'Tab';
  for (let i = 0; i <= max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`${target.toString()} did not get the focus in ${max} presses of ${key}`);
}

/** Whether `target` is the focused element. */
export function isFocused(target: Locator): Promise<boolean> {
  return target.evaluate((el) => el === el.ownerDocument.activeElement);
}

/** A short description of the focused element (for assertion messages). */
export function focusedName(page: Page): Promise<string> {
  return page.evaluate(
    '(() => { const e = document.activeElement; return e ? e.tagName.toLowerCase() + " " + (e.getAttribute("aria-label") || e.textContent || "").trim().slice(0, 40) : "none"; })()',
  ) as Promise<string>;
}

/** Fails, listing them, when things stick out sideways on the page (see `overflowReport`). */
export async function assertFits(page: Page, what: string): Promise<void> {
  const found = await overflowReport(page);
  if (found.length > 0) throw new Error(`${what}: content sticks out sideways:\n${found.join('\n')}`);
}
