/**
 * The sandbox's overview page in a real browser: the headless Chromium the n8n editor suite
 * uses (test/support/chromium.ts). Read with JavaScript off, as the page must need none;
 * hostile values are loaded with it on, to see that nothing runs. Part of `npm test`, not of
 * `test:unit` (it starts a browser). The screenshot goes to .tmp/sandbox-page.png, and with
 * UPDATE_SCREENSHOTS=1 to shared/sandbox/docs/page.png, which the sandbox's README shows.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { launchChromium } from '../support/chromium';
import { HOSTILE, hostileBatch, largeBatch, weldingWorld, type World } from './page-world';

const ROOT = path.join(__dirname, '..', '..');
const SCREENSHOT = path.join(ROOT, '.tmp', 'sandbox-page.png');
const DOCS_SCREENSHOT = path.join(ROOT, 'shared', 'sandbox', 'docs', 'page.png');

jest.setTimeout(60_000);

let browser: Browser;
let sb: Sandbox;
let world: World;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // First: unpacking the browser blocks this process for a while (execFileSync), which would
  // stretch the durations of deliveries in flight.
  browser = await launchChromium();
  sb = await createSandbox({ rateLimit: false, timeScale: 0.001, mailDelayMs: 5 });
  world = await weldingWorld(sb);
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, colorScheme: 'light', locale: 'en-US', javaScriptEnabled: false });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await world?.close();
  await sb?.close();
});

/** The browser's, inside evaluate (this project's types have no DOM). */
declare const getComputedStyle: (element: unknown) => { backgroundColor: string };

const cells = (row: ReturnType<Page['locator']>) => row.locator('td').allInnerTexts();
const badgeColour = (batch: ReturnType<Page['locator']>, row: string) =>
  batch.locator('tr', { hasText: row }).locator('.status').evaluate((el) => getComputedStyle(el).backgroundColor);

test('a batch with its certificates, variables and email states; subscriptions; deliveries with every attempt', async () => {
  const response = await page.goto(`${sb.url}/`);
  expect(response?.status()).toBe(200);
  await expect(page.locator('h1').innerText()).resolves.toBe('Certificate Service sandbox');

  const batch = page.locator('section.batch', { hasText: 'Advanced Welding, Spring 2026' });
  await expect(batch.locator('h3').innerText()).resolves.toBe('Advanced Welding, Spring 2026 active');
  const ada = sb.controls.certificates(world.batchId).find((c) => c.name === 'Ada Lovelace')!;
  const adaRow = batch.locator('tr', { hasText: 'Ada Lovelace' });
  const adaCells = await cells(adaRow);
  expect(adaCells.slice(0, 3)).toEqual(['Ada Lovelace', 'ada@example.com', ada.certificateId]);
  await expect(adaRow.locator('dt').allInnerTexts()).resolves.toEqual(['course', 'score']);
  await expect(adaRow.locator('dd').allInnerTexts()).resolves.toEqual(['Advanced Welding', '97']);
  expect(adaCells[4]).toBe('sent');
  await expect(cells(batch.locator('tr', { hasText: 'Grace Hopper' }))).resolves.toContain('failed');
  await expect(cells(batch.locator('tr', { hasText: 'Alan Turing' }))).resolves.toContain('not sent');
  // Status colours: sent, failed and not sent each look different.
  const colours = await Promise.all(['Ada Lovelace', 'Grace Hopper', 'Alan Turing'].map((name) => badgeColour(batch, name)));
  expect(new Set(colours).size).toBe(3);

  const subscriptions = page.locator('h2#subscriptions + table tbody tr');
  await expect(subscriptions.count()).resolves.toBe(2);

  const failed = page.locator('tr', { hasText: 'certificate.failed' });
  const attempts = await failed.locator('ol.attempts li').allInnerTexts();
  expect(attempts.length).toBeGreaterThanOrEqual(3);
  for (const attempt of attempts) expect(attempt).toMatch(/^503 · .* ms · <h1>Service Unavailable<\/h1>$/);
  await expect(failed.locator('.status').innerText()).resolves.toBe('retrying');
  const delivered = page.locator('tr', { hasText: 'certificate.sent' });
  await expect(delivered.locator('ol.attempts li').allInnerTexts()).resolves.toEqual([expect.stringMatching(/^200 · /)]);
  await expect(delivered.locator('.status').innerText()).resolves.toBe('succeeded');

  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  expect(fs.statSync(SCREENSHOT).size).toBeLessThan(300_000);
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    fs.mkdirSync(path.dirname(DOCS_SCREENSHOT), { recursive: true });
    fs.copyFileSync(SCREENSHOT, DOCS_SCREENSHOT);
  }
});

test("a certificate's link opens its page, which shows its variables", async () => {
  await page.goto(`${sb.url}/`);
  await page.locator('tr', { hasText: 'Ada Lovelace' }).getByRole('link').first().click();
  await page.waitForURL(/\/v\//);
  const rows = await page.locator('tr').allInnerTexts();
  expect(rows.slice(0, 2).map((r) => r.replace(/\s+/g, ' '))).toEqual(['Course Advanced Welding', 'Score 97']);
});

test('pages through 300 more certificates and their deliveries by links', async () => {
  await largeBatch(world.api, 'Onboarding, autumn cohort', 300);
  await sb.controls.waitForDeliveries((log) => log.filter((a) => a.url === world.okUrl && a.outcome === 'succeeded').length === 304, 20_000);

  await page.goto(`${sb.url}/`);
  const large = page.locator('section.batch', { hasText: 'Onboarding, autumn cohort' });
  await expect(large.locator('tbody tr').count()).resolves.toBe(200);
  await expect(large.locator('.meta').innerText()).resolves.toContain('certificates 1–200 of 300');
  await expect(page.locator('section.batch', { hasText: 'Advanced Welding' }).count()).resolves.toBe(0);

  await page.locator('h2#batches ~ nav.pager').first().getByRole('link', { name: 'Older →' }).click();
  await page.waitForURL(/\?page=2#batches$/);
  await expect(large.locator('tbody tr').count()).resolves.toBe(100);
  await expect(large.locator('.meta').innerText()).resolves.toContain('certificates 201–300 of 300');
  await expect(page.locator('section.batch', { hasText: 'Advanced Welding' }).locator('tbody tr').count()).resolves.toBe(3);

  // 305 deliveries (304 to the receiver that answers, Grace's certificate.failed to the other): two pages.
  const deliveriesPager = page.locator('h2#deliveries ~ nav.pager');
  await expect(deliveriesPager.innerText()).resolves.toBe('page 1 of 2 · Older →');
  await deliveriesPager.getByRole('link', { name: 'Older →' }).click();
  await page.waitForURL(/\?page=2&deliveriesPage=2#deliveries$/);
  await expect(page.locator('h2#deliveries ~ nav.pager').innerText()).resolves.toBe('← Newer · page 2 of 2');
  await expect(large.locator('tbody tr').count()).resolves.toBe(100); // the batches stay on their page 2
});

test('hostile names and variables show as text, and nothing in them runs (JavaScript on)', async () => {
  const batchId = await hostileBatch(world.api);
  const scripted = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const p = await scripted.newPage();
    const dialogs: string[] = [];
    p.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await p.goto(`${sb.url}/`);
    const batch = p.locator('section.batch', { hasText: 'Q&A' });
    await expect(batch.locator('h3').innerText()).resolves.toBe(`${HOSTILE.title} active`);
    const row = await cells(batch.locator('tbody tr'));
    expect(row[0]).toBe(HOSTILE.name);
    await expect(batch.locator('dt').allInnerTexts()).resolves.toEqual(['course', HOSTILE.variable]);
    await expect(batch.locator('dd').allInnerTexts()).resolves.toEqual([HOSTILE.value, HOSTILE.value]);
    await expect(p.locator('script, img').count()).resolves.toBe(0);

    const [mallory] = sb.controls.certificates(batchId);
    await p.goto(mallory.certUrl);
    await expect(p.locator('strong').innerText()).resolves.toBe(HOSTILE.name);
    await expect(p.locator('th').allInnerTexts()).resolves.toContain(HOSTILE.variable);
    await expect(p.locator('script, img').count()).resolves.toBe(0);
    expect(dialogs).toEqual([]);
  } finally {
    await scripted.close();
  }
});
