/**
 * Headless Chromium for the editor suite: launched by test/support/chromium.ts (shared with
 * the sandbox's page test); here, what is n8n's own: its test-id attribute and a logged-in context.
 */
import { selectors, type Browser, type BrowserContext } from 'playwright-core';
import { launchChromium as launchBrowser } from '../../support/chromium';

export const VIEWPORT = { width: 1440, height: 900 };

export async function launchChromium(): Promise<Browser> {
  const browser = await launchBrowser();
  // n8n's editor marks its elements with data-test-id (Playwright's default is data-testid).
  selectors.setTestIdAttribute('data-test-id');
  return browser;
}

/** A fresh browser context logged in as n8n's owner (the harness's session cookie). */
export async function editorContext(browser: Browser, n8nBaseUrl: string, sessionCookie: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light', locale: 'en-US' });
  const [name, ...value] = sessionCookie.split('=');
  await context.addCookies([{ name, value: value.join('='), url: n8nBaseUrl }]);
  context.setDefaultTimeout(30_000); // one UI step on a busy 2-core machine
  return context;
}
