/**
 * Headless Chromium for the browser tests (n8n's editor, the sandbox's page): the binary that
 * ships inside the npm package @sparticuz/chromium (so `npm ci` brings it), driven by
 * playwright-core. Why this browser and these flags: test/e2e/n8n-editor/README.md.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

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

interface ChromiumFiles {
  executablePath: string;
  args: string[];
  libDir: string;
  fontDir: string;
}

export interface LaunchOptions {
  /** More switches, e.g. `--host-resolver-rules=MAP rebound.test 127.0.0.1` (a DNS-rebound name). */
  args?: string[];
  /**
   * The package's Lambda defaults include --disable-web-security (no CORS, no same-origin
   * policy). A test of what another site's page can do needs a browser that enforces them.
   */
  webSecurity?: boolean;
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  // @sparticuz/chromium is an ES module, which jest's CommonJS runtime cannot load: a
  // child Node unpacks the browser (once per machine, into the temp folder) and says where.
  const files: ChromiumFiles = JSON.parse(
    execFileSync(process.execPath, [path.join(__dirname, 'chromium-files.mjs')], { encoding: 'utf8', timeout: 120_000 }),
  );
  return await chromium.launch({
    executablePath: files.executablePath,
    // Not --single-process (a Lambda setting): with it, closing a browser context kills the browser.
    args: [...files.args.filter((arg) => arg !== '--single-process' && !(options.webSecurity && arg === '--disable-web-security')), ...OFFLINE_FLAGS, ...(options.args ?? [])],
    // The package's own NSS libraries and fonts, so nothing from the system's chromium is needed.
    env: { ...process.env, LD_LIBRARY_PATH: files.libDir, FONTCONFIG_PATH: files.fontDir },
    timeout: 120_000,
  });
}
