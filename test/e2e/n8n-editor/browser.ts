/**
 * Headless Chromium for the editor suite: the binary that ships inside the npm package
 * @sparticuz/chromium (so `npm ci` brings it), driven by playwright-core.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { chromium, selectors, type Browser, type BrowserContext } from 'playwright-core';

/** Without these Chromium tries to reach Google's servers (no internet here) and stalls or fails. */
export const OFFLINE_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const VIEWPORT = { width: 1440, height: 900 };

interface ChromiumFiles {
  executablePath: string;
  args: string[];
  libDir: string;
  fontDir: string;
}

export async function launchChromium(): Promise<Browser> {
  // @sparticuz/chromium is an ES module, which jest's CommonJS runtime cannot load: a
  // child Node unpacks the browser (once per machine, into the temp folder) and says where.
  const files: ChromiumFiles = JSON.parse(
    execFileSync(process.execPath, [path.join(__dirname, 'chromium-files.mjs')], { encoding: 'utf8', timeout: 120_000 }),
  );
  // n8n's editor marks its elements with data-test-id (Playwright's default is data-testid).
  selectors.setTestIdAttribute('data-test-id');
  return await chromium.launch({
    executablePath: files.executablePath,
    // Not --single-process (a Lambda setting): with it, closing a browser context kills the browser.
    args: [...files.args.filter((arg) => arg !== '--single-process'), ...OFFLINE_FLAGS],
    // The package's own NSS libraries and fonts, so nothing from the system's chromium is needed.
    env: { ...process.env, LD_LIBRARY_PATH: files.libDir, FONTCONFIG_PATH: files.fontDir },
    timeout: 120_000,
  });
}

/** A fresh browser context logged in as n8n's owner (the harness's session cookie). */
export async function editorContext(browser: Browser, n8nBaseUrl: string, sessionCookie: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light', locale: 'en-US' });
  const [name, ...value] = sessionCookie.split('=');
  await context.addCookies([{ name, value: value.join('='), url: n8nBaseUrl }]);
  context.setDefaultTimeout(30_000); // one UI step on a busy 2-core machine
  return context;
}
