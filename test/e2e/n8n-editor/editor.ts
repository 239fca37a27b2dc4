/**
 * What a user does in n8n 2.41's editor, as Playwright steps. Selectors are n8n's own
 * `data-test-id`s (the ones its Playwright page objects in packages/testing/playwright use),
 * roles and visible text; never n8n's CSS-module class names, which its build hashes (only
 * the plain `.parameter-input-list-wrapper` and Element Plus's `.el-notification`).
 */
import type { Locator, Page } from 'playwright-core';
import { until } from '../../support/until';

/** Opens an empty workflow on the canvas. */
export async function openNewWorkflow(page: Page, n8nBaseUrl: string): Promise<void> {
  await page.goto(`${n8nBaseUrl}/workflow/new`);
  await page.getByTestId('canvas-plus-button').waitFor();
}

/** Opens a saved workflow and its node's parameter panel (NDV) by double-clicking the node. */
export async function openNode(page: Page, n8nBaseUrl: string, workflowId: string, nodeName: string): Promise<void> {
  await page.goto(`${n8nBaseUrl}/workflow/${workflowId}`);
  await page.getByTestId('canvas-node').filter({ hasText: nodeName }).dblclick();
  await page.getByTestId('ndv').waitFor();
}

/**
 * Node creator: search, open the node whose name is `nodeName` and, when given, pick one of
 * its actions or trigger events (`item`). The creator re-renders while it filters, so the
 * item is matched by its exact name and clicked once the list has settled on it.
 */
export async function addNode(page: Page, search: string, nodeName: string, item?: string | RegExp): Promise<void> {
  // The canvas's "+" while it is empty, the node creator button once it has a node.
  const plus = page.getByTestId('canvas-plus-button').or(page.getByTestId('node-creator-plus-button'));
  await plus.filter({ visible: true }).first().click();
  await page.getByTestId('node-creator-search-bar').fill(search);
  await creatorItem(page, nodeName).click();
  if (item !== undefined) await creatorItem(page, item).click();
  // The creator slides out; a click meanwhile would land on it.
  await page.getByTestId('node-creator').waitFor({ state: 'hidden' });
}

function creatorItem(page: Page, name: string | RegExp): Locator {
  const exactName = page.getByTestId('node-creator-item-name').getByText(name, { exact: true });
  return page.getByTestId('node-creator').getByTestId('item-iterator-item').filter({ has: exactName });
}

/** Chooses an option of an `options` parameter by its display name. */
export async function chooseOption(page: Page, parameterName: string, optionName: string): Promise<void> {
  await page.getByTestId(`parameter-input-${parameterName}`).click();
  // The dropdown is attached to <body>; each option shows its name and its description.
  const option = page.getByRole('option').filter({ has: page.getByText(optionName, { exact: true }) });
  await option.first().click();
  await page.getByTestId(`parameter-input-${parameterName}`).locator('input').first().waitFor();
}

/** Fills a top-level text parameter of the open node. */
export async function fillParameter(page: Page, parameterName: string, value: string): Promise<void> {
  const input = page.getByTestId('node-parameters').getByTestId(`parameter-input-${parameterName}`).first().locator('input, textarea');
  await input.first().fill(value);
}

/**
 * The labels of the top-level parameters the open node shows, in order (not the credential
 * picker, not the fields inside collections).
 */
export async function visibleParameterLabels(page: Page): Promise<string[]> {
  return await page.getByTestId('node-parameters').evaluate((root) => {
    const top = root.querySelector('.parameter-input-list-wrapper');
    return [...root.querySelectorAll('[data-test-id="input-label"]')]
      .filter((label) => label.closest('.parameter-input-list-wrapper') === top)
      .map((label) => (label.querySelector('label span')?.textContent ?? '').replace(/\*\s*$/, '').trim());
  });
}

/** Polls `read` until it returns `want` (as JSON) or the time is up; returns the last value. */
export async function settle<T>(read: () => Promise<T>, want: T, timeoutMs = 15_000): Promise<T> {
  let last!: T;
  await until('the value wanted', async () => {
    last = await read();
    return JSON.stringify(last) === JSON.stringify(want);
  }, timeoutMs, 200).catch(() => undefined); // the caller's expect shows what it was
  return last;
}

/** Closes the toasts ("Node executed successfully") and moves the mouse off any tooltip. */
export async function tidyForScreenshot(page: Page): Promise<void> {
  for (const close of await page.locator('.el-notification__closeBtn').all()) await close.click().catch(() => undefined);
  await page.locator('.el-notification').first().waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
  await page.mouse.move(5, 5);
  await page.waitForTimeout(500); // tooltips fade out
}
