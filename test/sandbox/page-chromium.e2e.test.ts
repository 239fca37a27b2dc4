/**
 * The sandbox's overview page in a real browser: the headless Chromium the n8n editor suite
 * uses (test/support/chromium.ts). Read with JavaScript off, as the page must need none;
 * hostile values are loaded with it on, to see that nothing runs. Then a page on another site,
 * and a DNS-rebound name, try to drive the sandbox: nothing they send is done. Part of
 * `npm test`, not of `test:unit` (it starts a browser). The screenshot goes to
 * .tmp/sandbox-page.png, and with UPDATE_SCREENSHOTS=1 to shared/sandbox/docs/page.png, which the
 * sandbox's README shows.
 */
import * as fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createSandbox, DEMO_API_KEY, type Sandbox } from '@certificate-service/sandbox';
import { launchChromium } from '../support/chromium';
import { HOSTILE, hostileBatch, largeBatch, readable, weldingWorld, type World } from './page-world';

const ROOT = path.join(__dirname, '..', '..');
const SCREENSHOT = path.join(ROOT, '.tmp', 'sandbox-page.png');
const DOCS_SCREENSHOT = path.join(ROOT, 'shared', 'sandbox', 'docs', 'page.png');
/** A name the browser resolves to 127.0.0.1, as a DNS-rebinding attacker's name does. */
const REBOUND = 'rebound.test';

jest.setTimeout(60_000);

let browser: Browser;
let sb: Sandbox;
let world: World;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // First: unpacking the browser blocks this process for a while (execFileSync), which would
  // stretch the durations of deliveries in flight.
  browser = await launchChromium({ args: [`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`], webSecurity: true });
  // 20 delivery attempts at a time: 3,000 at once next to a browser on a small machine time out.
  sb = await createSandbox({ rateLimit: false, timeScale: 0.001, mailDelayMs: 5, deliveryConcurrency: 20 });
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
/** A page with JavaScript on, and the messages its console shows. */
async function scriptedPage(): Promise<{ page: Page; console: string[]; close(): Promise<void> }> {
  const scripted = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  scripted.setDefaultTimeout(20_000);
  const p = await scripted.newPage();
  const console: string[] = [];
  p.on('console', (message) => void console.push(message.text()));
  return { page: p, console, close: () => scripted.close() };
}

test('the overview: batches with their counts, subscriptions, deliveries with every attempt; readable dates', async () => {
  const response = await page.goto(`${sb.url}/`);
  expect(response?.status()).toBe(200);
  await expect(page.locator('h1').innerText()).resolves.toBe('Certificate Service sandbox');

  const row = page.locator('table.batches tbody tr', { hasText: 'Advanced Welding, Spring 2026' });
  const [batch, design, status, count, emails, created] = await cells(row);
  expect([batch.split('\n')[0], design, status, count, emails]).toEqual(['Advanced Welding, Spring 2026', 'Classic', 'active', '3', '1 not sent · 1 sent · 1 failed']);
  const createdIso = await row.locator('time').getAttribute('datetime');
  expect(created).toBe(readable(createdIso!));
  await expect(row.locator('time').getAttribute('title')).resolves.toBe(createdIso);

  const subscriptions = page.locator('h2#subscriptions + table tbody tr');
  await expect(subscriptions.count()).resolves.toBe(2);

  const failed = page.locator('tr', { hasText: 'certificate.failed' });
  const attempts = await failed.locator('ol.attempts li').allInnerTexts();
  expect(attempts.length).toBeGreaterThanOrEqual(3);
  for (const attempt of attempts) expect(attempt).toMatch(/^503 · \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC · \d+ ms · <h1>Service Unavailable<\/h1>$/);
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

test("a batch's page, by its link: its certificates with their variables and email states, styled under the page's policy", async () => {
  await page.goto(`${sb.url}/`);
  await page.getByRole('link', { name: 'Advanced Welding, Spring 2026' }).click();
  await page.waitForURL(/\/\?batch=batch_\w+$/);
  const batch = page.locator('section.batch');
  await expect(batch.locator('h2').innerText()).resolves.toBe('Advanced Welding, Spring 2026 active');
  const ada = sb.controls.certificates(world.batchId).find((c) => c.name === 'Ada Lovelace')!;
  const adaRow = batch.locator('tr', { hasText: 'Ada Lovelace' });
  const adaCells = await cells(adaRow);
  expect(adaCells.slice(0, 3)).toEqual(['Ada Lovelace', 'ada@example.com', ada.certificateId]);
  await expect(adaRow.locator('dt').allInnerTexts()).resolves.toEqual(['course', 'score']);
  await expect(adaRow.locator('dd').allInnerTexts()).resolves.toEqual(['Advanced Welding', '97']);
  expect(adaCells[4]).toBe('sent');
  expect(adaCells[5]).toBe(readable(ada.createdAt));
  await expect(cells(batch.locator('tr', { hasText: 'Grace Hopper' }))).resolves.toContain('failed');
  await expect(cells(batch.locator('tr', { hasText: 'Alan Turing' }))).resolves.toContain('not sent');
  // Status colours: sent, failed and not sent each look different (the stylesheet is allowed by its hash).
  const colours = await Promise.all(['Ada Lovelace', 'Grace Hopper', 'Alan Turing'].map((name) => badgeColour(batch, name)));
  expect(new Set(colours).size).toBe(3);

  // With JavaScript on, the browser reports nothing its policy blocked.
  const scripted = await scriptedPage();
  try {
    await scripted.page.goto(page.url());
    await expect(badgeColour(scripted.page.locator('section.batch'), 'Grace Hopper')).resolves.toBe(colours[1]);
    expect(scripted.console.filter((m) => /Content Security Policy/i.test(m))).toEqual([]);
  } finally {
    await scripted.close();
  }
});

test("a certificate's link opens its page, which shows its variables", async () => {
  await page.goto(`${sb.url}/?batch=${world.batchId}`);
  await page.locator('tr', { hasText: 'Ada Lovelace' }).getByRole('link').first().click();
  await page.waitForURL(/\/v\//);
  const rows = await page.locator('tr').allInnerTexts();
  expect(rows.slice(0, 2).map((r) => r.replace(/\s+/g, ' '))).toEqual(['Course Advanced Welding', 'Score 97']);
});

test('after a 3,000-certificate batch every batch is still on the first page; the batch pages its certificates by links', async () => {
  await largeBatch(world.api, 'Onboarding, autumn cohort', 3000);
  await sb.controls.waitForDeliveries((log) => log.filter((a) => a.url === world.okUrl && a.outcome === 'succeeded').length === 3004, 60_000);

  await page.goto(`${sb.url}/`);
  const titles = await page.locator('table.batches tbody tr td:first-child a').allInnerTexts();
  expect(titles).toEqual(['Onboarding, autumn cohort', 'Advanced Welding, Spring 2026']); // newest first, one page
  await expect(cells(page.locator('table.batches tbody tr').first())).resolves.toEqual(
    expect.arrayContaining(['Minimal', 'active', '3,000', '3,000 not sent']),
  );
  await expect(page.locator('nav.pager a[href$="#batches"]').count()).resolves.toBe(0); // one page of batches

  await page.getByRole('link', { name: 'Onboarding, autumn cohort' }).click();
  await page.waitForURL(/\?batch=batch_\w+$/);
  const certificates = page.locator('section.batch tbody tr');
  await expect(certificates.count()).resolves.toBe(200);
  await expect(page.locator('h3#certificates').innerText()).resolves.toBe('Certificates newest first, certificates 1–200 of 3,000, page 1 of 15');
  await expect(certificates.first().locator('td').first().innerText()).resolves.toBe('Learner 3000');

  await page.getByRole('link', { name: 'Oldest »' }).click();
  await page.waitForURL(/&page=15#certificates$/);
  await expect(certificates.count()).resolves.toBe(200);
  await expect(certificates.last().locator('td').first().innerText()).resolves.toBe('Learner 1');
  await expect(page.locator('nav.pager').innerText()).resolves.toBe('« Newest · ← Newer · page 15 of 15');
  await page.getByRole('link', { name: '← Newer' }).click();
  await page.waitForURL(/&page=14#certificates$/);
  await expect(page.locator('h3#certificates').innerText()).resolves.toContain('certificates 2,601–2,800 of 3,000, page 14 of 15');

  // 3,005 deliveries (3,004 to the receiver that answers, Grace's certificate.failed to the other): 16 pages.
  await page.goto(`${sb.url}/`);
  const deliveriesPager = page.locator('h2#deliveries ~ nav.pager');
  await expect(deliveriesPager.innerText()).resolves.toBe('page 1 of 16 · Older → · Oldest »');
  await deliveriesPager.getByRole('link', { name: 'Older →' }).click();
  await page.waitForURL(/\?deliveriesPage=2#deliveries$/);
  await expect(page.locator('h2#deliveries ~ nav.pager').innerText()).resolves.toBe('← Newer · page 2 of 16 · Older → · Oldest »');
}, 120_000);

test('hostile names and variables show as text, and nothing in them runs (JavaScript on)', async () => {
  const batchId = await hostileBatch(world.api);
  const scripted = await scriptedPage();
  const p = scripted.page;
  try {
    const dialogs: string[] = [];
    p.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await p.goto(`${sb.url}/`);
    await expect(p.locator('table.batches tbody tr', { hasText: 'Q&A' }).locator('a').innerText()).resolves.toBe(HOSTILE.title);
    await expect(p.locator('script, img').count()).resolves.toBe(0);

    await p.goto(`${sb.url}/?batch=${batchId}`);
    const batch = p.locator('section.batch');
    await expect(batch.locator('h2').innerText()).resolves.toBe(`${HOSTILE.title} active`);
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

/** What a page must not be able to change: the welding batch, the faults, the batches the demo key sees. */
async function untouched(): Promise<void> {
  expect(sb.controls.certificates(world.batchId)).toHaveLength(3);
  expect(sb.controls.faults()).toEqual([]);
  const titles = ((await world.api.get('/batches?limit=100')).body.data as Array<{ title: string }>).map((b) => b.title);
  expect(titles).not.toContain('Planted');
}

test('a page on another site cannot drive it: a fetch, a form POST, the API with the demo key; a link to the page still opens it', async () => {
  const target = sb.url;
  const attacker = http.createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><body>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="${target}/__sandbox/reset" target="sink"></form>
<a id="open" href="${target}/">the sandbox</a>
<script>
window.results = (async () => {
  const results = {};
  const attempt = async (name, send) => {
    try {
      const res = await send();
      results[name] = res.type === 'opaque' ? 'opaque' : res.status;
    } catch (error) {
      results[name] = 'blocked';
    }
  };
  await attempt('reset', () => fetch('${target}/__sandbox/reset', { method: 'POST', mode: 'no-cors' }));
  await attempt('fault', () => fetch('${target}/__sandbox/faults', { method: 'POST', mode: 'no-cors', body: JSON.stringify({ kind: '500', match: { path: '/' } }) }));
  await attempt('readLog', () => fetch('${target}/__sandbox/deliveries'));
  await attempt('api', () => fetch('${target}/api/v1/batches', { method: 'POST', headers: { Authorization: 'Bearer ${DEMO_API_KEY}', 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Planted', designId: 'design_modern' }) }));
  await attempt('apiSimple', () => fetch('${target}/api/v1/batches', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ title: 'Planted', designId: 'design_modern' }) }));
  // The frame loads the answer (a 204 loads nothing: 5 s at most).
  await new Promise((resolve) => {
    document.querySelector('iframe').onload = resolve;
    setTimeout(resolve, 5000);
    document.getElementById('form').submit();
  });
  return results;
})();
</script></body>`),
  );
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another site in the browser's eyes (a site ignores the port).
  const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
  const scripted = await scriptedPage();
  const statuses: Array<[string, number]> = [];
  scripted.page.on('response', (response) => {
    if (response.url().startsWith(target)) statuses.push([`${response.request().method()} ${new URL(response.url()).pathname}`, response.status()]);
  });
  try {
    await scripted.page.goto(attackerUrl);
    const results = await scripted.page.evaluate('window.results');
    // The browser sent what it may (no-cors POSTs, a form) and read nothing; the preflight stopped the keyed call.
    expect(results).toEqual({ reset: 'opaque', fault: 'opaque', readLog: 'blocked', api: 'blocked', apiSimple: 'opaque' });
    // The sandbox refused each request the page could send (the form's too); the browser reports
    // no answer for the two it stopped (the CORS read, the keyed call's preflight).
    expect(statuses).toEqual([
      ['POST /__sandbox/reset', 403],
      ['POST /__sandbox/faults', 403],
      ['POST /api/v1/batches', 403],
      ['POST /__sandbox/reset', 403],
    ]);
    await untouched();

    // A link the user follows to the page is a top-level navigation: it opens.
    await scripted.page.click('#open');
    await scripted.page.waitForURL(`${target}/`);
    await expect(scripted.page.locator('h1').innerText()).resolves.toBe('Certificate Service sandbox');
  } finally {
    await scripted.close();
    await new Promise((resolve) => attacker.close(resolve));
  }
});

test('a DNS-rebound name reaches nothing: not the page, not the controls, not the API, even same-origin', async () => {
  const rebound = sb.url.replace('127.0.0.1', REBOUND);
  const scripted = await scriptedPage();
  try {
    const response = await scripted.page.goto(`${rebound}/`);
    expect(response?.status()).toBe(403);
    await expect(scripted.page.locator('body').innerText()).resolves.toMatch(new RegExp(`^{"error":"FORBIDDEN","message":"Host \\\\"${REBOUND}:`));
    // From the rebound origin, the sandbox is same-origin to the browser: it would read every answer.
    const answers = await scripted.page.evaluate(`Promise.all([
      fetch('/__sandbox/reset', { method: 'POST' }).then((r) => r.status),
      fetch('/__sandbox/deliveries').then((r) => r.status),
      fetch('/api/v1/batches', { method: 'POST', headers: { Authorization: 'Bearer ${DEMO_API_KEY}', 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Planted', designId: 'design_modern' }) }).then((r) => r.status),
    ])`);
    expect(answers).toEqual([403, 403, 403]);
    await untouched();
  } finally {
    await scripted.close();
  }
});
