/**
 * Takes the README screenshots of n8n-nodes-certificate-service in a real n8n 2.41.1:
 *
 *   npx tsx test/e2e/n8n/screenshot.ts
 *
 * Starts the sandbox and n8n with our package (through the e2e harness), creates the
 * credential, an "issue a certificate" workflow (Manual Trigger → Certificate Service) and a
 * trigger workflow, then opens the editor in headless Chromium (playwright-core), runs the
 * node once from its parameter panel and saves:
 *
 *   n8n/docs/screenshot-node.png      the node's parameter panel, with its output
 *   n8n/docs/screenshot-workflow.png  the issue workflow on the canvas
 *
 * Not part of `npm test`. Env: CHROMIUM (default /usr/bin/chromium), SCREENSHOT_DIR (default
 * n8n/docs), SCREENSHOT_DEBUG=1 (also writes full-page captures of each stage to the temp dir).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createClient } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '../../sandbox';
import { ensureN8nInstalled, startN8n, type N8nInstance } from './harness';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from './package-setup';

const OUT_DIR = process.env.SCREENSHOT_DIR ?? path.join(PACKAGE_DIR, 'docs');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const DEBUG = process.env.SCREENSHOT_DEBUG === '1';
const VIEWPORT = { width: 1440, height: 900 };
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const log = (msg: string) => console.log(`[screenshot] ${msg}`);

async function main() {
  let sb: Sandbox | undefined;
  let n8n: N8nInstance | undefined;
  let extDir: string | undefined;
  let browser: Browser | undefined;
  const debugDir = DEBUG ? fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-screenshot-')) : undefined;
  const t0 = Date.now();
  try {
    ensureN8nInstalled();
    ensurePackageBuilt();
    extDir = copyPackageToExtensionsDir(PACKAGE_DIR);
    sb = await createSandbox({ rateLimit: false, mailDelayMs: 5 });
    n8n = await startN8n({ customExtensionsDir: extDir });
    log(`n8n ${n8n.baseUrl} and sandbox ${sb.url} up after ${Date.now() - t0} ms`);

    // Data: a batch to pick from the list, and the credential.
    const core = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey });
    const batch = await core.createBatch({ title: 'Advanced Welding, Spring 2026', designId: 'design_classic' });
    await core.createBatch({ title: 'First Aid Refresher', designId: 'design_modern' });
    const cred = await n8n.createCredential('certificateServiceApi', 'Certificate Service account', {
      apiKey: sb.apiKey,
      baseUrl: sb.baseUrl,
    });
    const credentials = { certificateServiceApi: { id: cred.id, name: 'Certificate Service account' } };
    const pickedBatch = { __rl: true, mode: 'list', value: batch.id, cachedResultName: batch.title };

    const manual = {
      id: randomUUID(),
      name: 'When clicking ‘Execute workflow’',
      type: 'n8n-nodes-base.manualTrigger',
      typeVersion: 1,
      position: [0, 0],
      parameters: {},
    };
    const issue = {
      id: randomUUID(),
      name: 'Issue a certificate',
      type: 'CUSTOM.certificateService',
      typeVersion: 1,
      position: [260, 0],
      credentials,
      parameters: {
        resource: 'certificate',
        operation: 'issue',
        batch: pickedBatch,
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        specifyData: 'fields',
        dataFields: {
          field: [
            { name: 'course', value: 'Advanced Welding' },
            { name: 'hours', value: '12' },
          ],
        },
        send: true,
        options: {},
      },
    };
    const issueWf = await n8n.createWorkflow({
      name: 'Issue certificates',
      nodes: [manual, issue],
      connections: { [manual.name]: { main: [[{ node: issue.name, type: 'main', index: 0 }]] } },
    });

    const trigger = {
      id: randomUUID(),
      name: 'Certificate Service Trigger',
      type: 'CUSTOM.certificateServiceTrigger',
      typeVersion: 1,
      position: [0, 0],
      webhookId: randomUUID(),
      credentials,
      parameters: { events: ['certificate.issued', 'certificate.sent'], batch: pickedBatch },
    };
    const noop = { id: randomUUID(), name: 'Do something', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [260, 0], parameters: {} };
    const triggerWf = await n8n.createWorkflow({
      name: 'On certificate events',
      nodes: [trigger, noop],
      connections: { [trigger.name]: { main: [[{ node: noop.name, type: 'main', index: 0 }]] } },
    });
    await n8n.publish(triggerWf.id);

    // The browser, logged in with the owner's session cookie from the harness.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light', locale: 'en-US' });
    const [cookieName, ...rest] = n8n.sessionCookie().split('=');
    await context.addCookies([{ name: cookieName, value: rest.join('='), url: n8n.baseUrl }]);
    const page = await context.newPage();
    page.on('pageerror', (e) => log(`page error: ${e.message}`));
    const snap = async (name: string) => {
      if (debugDir) await page.screenshot({ path: path.join(debugDir, `${name}.png`) });
    };

    fs.mkdirSync(OUT_DIR, { recursive: true });

    // 1. The issue workflow's canvas.
    await openWorkflow(page, n8n.baseUrl, issueWf.id);
    await snap('01-canvas');
    await page.screenshot({ path: path.join(OUT_DIR, 'screenshot-workflow.png'), clip: await nodesClip(page) });
    log('saved screenshot-workflow.png');

    // 2. The node's parameter panel: double-click the node, run it once ("Execute step").
    await page.locator('[data-test-id="canvas-node"]', { hasText: 'Issue a certificate' }).first().dblclick();
    const ndv = page.locator('[data-test-id="ndv"]');
    await ndv.waitFor({ state: 'visible', timeout: 15_000 });
    await page.getByText('Recipient Email', { exact: true }).first().waitFor({ timeout: 15_000 });
    await snap('02-ndv');
    await page.locator('[data-test-id="node-execute-button"]').first().click();
    // The output panel shows the issued certificate once the run is done.
    await page.locator('[data-test-id="output-panel"]').getByText(/CERT-\d{4}-/).first().waitFor({ timeout: 30_000 });
    // JSON shows every field of the certificate (the table is cut off at the right).
    await page.locator('[data-test-id="output-panel"]').getByText('JSON', { exact: true }).first().click();
    await page.locator('[data-test-id="output-panel"]').getByText(/"certificateId"/).first().waitFor({ timeout: 10_000 });
    // Close the "Node executed successfully" toast, and no hover tooltips.
    const closeToast = page.locator('.el-notification__closeBtn');
    if (await closeToast.count()) await closeToast.first().click().catch(() => undefined);
    await page.locator('.el-notification').first().waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
    await page.mouse.move(VIEWPORT.width / 2, 5);
    await page.waitForTimeout(500);
    await snap('03-ndv-run');
    await page.screenshot({ path: path.join(OUT_DIR, 'screenshot-node.png') });
    log('saved screenshot-node.png');
    for (const file of ['screenshot-node.png', 'screenshot-workflow.png']) {
      const kb = Math.round(fs.statSync(path.join(OUT_DIR, file)).size / 1024);
      log(`${file}: ${kb} KB${kb > 300 ? ' (over the 300 KB budget for the README!)' : ''}`);
    }
    await n8n.unpublish(triggerWf.id);
  } catch (error) {
    if (n8n) log(`n8n log tail:\n${n8n.logs().split('\n').slice(-40).join('\n')}`);
    throw error;
  } finally {
    await browser?.close().catch(() => undefined);
    await n8n?.stop();
    await sb?.close();
    if (extDir) fs.rmSync(extDir, { recursive: true, force: true });
    if (debugDir) log(`debug captures in ${debugDir}`);
    log(`done in ${Date.now() - t0} ms`);
  }
}

async function openWorkflow(page: Page, baseUrl: string, workflowId: string) {
  await page.goto(`${baseUrl}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
  await page.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible', timeout: 60_000 });
  // Let the canvas fit the view and the icons load.
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await page.waitForTimeout(800);
}

/** The part of the viewport around the canvas nodes, with a margin (clipped to the viewport). */
async function nodesClip(page: Page) {
  const boxes = (await Promise.all((await page.locator('[data-test-id="canvas-node"]').all()).map((n) => n.boundingBox()))).filter(
    (b): b is NonNullable<typeof b> => b !== null,
  );
  const marginX = 160;
  const marginY = 110;
  const left = Math.max(0, Math.min(...boxes.map((b) => b.x)) - marginX);
  const top = Math.max(0, Math.min(...boxes.map((b) => b.y)) - marginY);
  const right = Math.min(VIEWPORT.width, Math.max(...boxes.map((b) => b.x + b.width)) + marginX);
  const bottom = Math.min(VIEWPORT.height, Math.max(...boxes.map((b) => b.y + b.height)) + marginY + 40); // + labels
  return { x: left, y: top, width: right - left, height: bottom - top };
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
