/**
 * Driving the official OpenList frontend's own widgets (test/openlist/frontend-*.ts): the right-hand toolbar's icons
 * (found by their tooltips, as a person hovering them would), the listing's context menu, and its dialogs.
 */
import type { Locator, Page } from 'playwright-core';

/** Waits (bounded) until the page has no requests in flight. */
const idle = (page: Page) => page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);

/** Clicks the right-hand toolbar icon whose tooltip reads `tip` (opening the toolbar first when it is folded). */
export async function rightTool(page: Page, tip: string | RegExp): Promise<void> {
  const want = typeof tip === 'string' ? new RegExp(`^${tip}$`, 'i') : tip;
  let seen: string[] = [];
  // the toolbar shows its folder icons only once the listing has loaded: a refresh under way hides them for a moment
  for (let round = 0; round < 4; round++) {
    await idle(page);
    const toggle = page.locator('.toolbar-toggle');
    if (await toggle.isVisible()) await toggle.click();
    const icons = page.locator('.left-toolbar-in svg');
    await icons.first().waitFor({ timeout: 10_000 });
    seen = [];
    const n = await icons.count();
    for (let i = 0; i < n; i++) {
      await icons.nth(i).hover();
      const label = page.locator('[role=tooltip]').last();
      await label.waitFor({ timeout: 2_000 }).catch(() => undefined);
      const text = ((await label.textContent().catch(() => '')) ?? '').trim();
      seen.push(text);
      if (want.test(text)) {
        await icons.nth(i).click();
        await page.mouse.move(0, 0);
        return;
      }
    }
    await page.mouse.move(0, 0);
    await page.waitForTimeout(500);
  }
  throw new Error(`no toolbar icon "${tip}" (saw ${seen.join(', ')})`);
}

/** Right-clicks the row of `name` and picks `item` from the frontend's context menu. */
export async function contextMenu(page: Page, name: string, item: string | RegExp): Promise<void> {
  await idle(page); // a listing still being refreshed would drop the selection the right-click makes
  await page.getByText(name, { exact: true }).first().click({ button: 'right' });
  const menu = page.locator('.solid-contextmenu').last();
  await menu.waitFor({ timeout: 5_000 });
  await menu.getByText(item).first().click();
}

/** The open modal dialog. */
export const dialog = (page: Page): Locator => page.locator('section[role=dialog]').last();

/** Picks `path` (e.g. `/docs/made`) in the open folder chooser, unfolding each parent, then presses OK. */
export async function chooseFolder(page: Page, path: string): Promise<void> {
  const d = dialog(page);
  const parts = path.split('/').filter(Boolean);
  for (const [i, part] of parts.entries()) {
    const label = d.getByText(part, { exact: true }).last();
    await label.waitFor({ timeout: 10_000 });
    if (i < parts.length - 1) {
      const child = d.getByText(parts[i + 1]!, { exact: true });
      if (!(await child.isVisible())) await label.locator('xpath=..').locator('svg').first().click();
    } else await label.click();
  }
  await d.getByRole('button', { name: 'OK' }).click();
}
