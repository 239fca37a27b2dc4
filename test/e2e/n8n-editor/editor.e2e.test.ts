/**
 * n8n's editor, driven in headless Chromium: what a user of n8n-nodes-certificate-service
 * touches, in a real n8n 2.41.1 (the e2e harness) against the sandbox. Every step below goes
 * through the UI; only the data around it (the owner, batches in the sandbox, a saved
 * workflow to open) is set up over APIs.
 *
 * One sandbox, one n8n and one browser for the file; each test has its own browser context.
 * A failing test leaves a screenshot in test/e2e/n8n-editor/artifacts/ (git-ignored).
 * Screenshots of the issue and trigger steps go there too, and into n8n/docs/ with
 * UPDATE_SCREENSHOTS=1. See README.md.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createClient, type Batch, type CertificateServiceClient } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ensureN8nInstalled, startN8n, type N8nInstance } from '../n8n/harness';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../n8n/package-setup';
import { editorContext, launchChromium } from './browser';
import { addNode, chooseOption, fillParameter, openNewWorkflow, openNode, settle, tidyForScreenshot, visibleParameterLabels } from './editor';
import { ACTION_TYPE, FieldsModel, loadDescription, shownOptions } from './fields';
import { noAnswerServers } from '../../support/tls';

const ARTIFACTS = path.join(__dirname, 'artifacts');
const DOCS = path.join(PACKAGE_DIR, 'docs');
const CREDENTIAL_TYPE_NAME = 'Certificate Service API';
const ISSUE_ROUTES = ['POST /batches/:id/recipients', 'POST /batches/:id/recipients/bulk'];
const CERTIFICATE_ID = /CERT-\d{4}-\d+-\d+/;

// n8n starts in 10-30 s on an idle machine and has taken 75 s on a busy 2-core one.
jest.setTimeout(180_000);

describe('the n8n editor with n8n-nodes-certificate-service (Chromium, n8n 2.41.1)', () => {
  let sb: Sandbox;
  let n8n: N8nInstance;
  let extDir: string | undefined;
  let browser: Browser | undefined;
  let core: CertificateServiceClient;
  let batches: Batch[];

  beforeAll(async () => {
    ensureN8nInstalled(); // 5-12 min on a fresh machine, instant afterwards
    ensurePackageBuilt();
    extDir = copyPackageToExtensionsDir(PACKAGE_DIR);
    sb = await createSandbox({ rateLimit: false, timeScale: 0.001 });
    [n8n, browser] = await Promise.all([startN8n({ customExtensionsDir: extDir, startTimeoutMs: 240_000 }), launchChromium()]);
    core = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey });
    batches = [
      await core.createBatch({ title: 'Advanced Welding, Spring 2026', designId: 'design_classic' }),
      await core.createBatch({ title: 'First Aid Refresher', designId: 'design_modern' }),
      // Its design lists `course` (required) and `completedOn`: the issue test maps them.
      await core.createBatch({ title: 'Welding Certification', designId: 'design_minimal' }),
    ];
  }, 15 * 60_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await n8n?.stop();
    await sb?.close();
    if (extDir) fs.rmSync(extDir, { recursive: true, force: true });
  }, 60_000);

  /** Runs `steps` in a fresh logged-in browser context; on failure keeps a screenshot in artifacts/. */
  async function inEditor(name: string, steps: (page: Page) => Promise<void>): Promise<void> {
    const context = await editorContext(browser!, n8n.baseUrl, n8n.sessionCookie());
    const page = await context.newPage();
    try {
      await steps(page);
    } catch (error) {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `failed-${name}.png`) }).catch(() => undefined);
      throw error;
    } finally {
      await context.close();
    }
  }

  /** Saves a screenshot into artifacts/ and, with UPDATE_SCREENSHOTS=1, into n8n/docs/ for the README. */
  async function saveScreenshot(page: Page, file: string): Promise<void> {
    await tidyForScreenshot(page);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, file) });
    if (process.env.UPDATE_SCREENSHOTS === '1') fs.copyFileSync(path.join(ARTIFACTS, file), path.join(DOCS, file));
  }

  const routeCount = (route: string) => sb.controls.counters().requests.byRoute[route] ?? 0;

  /** Opens a new Certificate Service API credential in the form and fills in its two fields; returns the dialog. */
  async function newCredentialForm(page: Page, baseUrl: string) {
    await page.goto(`${n8n.baseUrl}/home/credentials`);
    await page.getByTestId('add-resource-credential').click();
    await page.getByRole('combobox', { name: 'Search for app...' }).fill('Certificate Service');
    await page.getByTestId('new-credential-type-select-option').filter({ hasText: CREDENTIAL_TYPE_NAME }).click();
    await page.getByTestId('new-credential-type-button').click();
    const modal = page.getByTestId('credential-edit-dialog');
    // The form is usable before n8n has named the credential (GET /rest/credentials/new); a Save
    // then sends an empty name, n8n answers 400 and nothing is tested. A user sees the name first
    // (in the modal's header, like the Save button, outside the dialog's content).
    await page.getByTestId('credential-name').waitFor();
    await modal.getByTestId('parameter-input-apiKey').locator('input').fill(sb.apiKey);
    await modal.getByTestId('parameter-input-baseUrl').locator('input').fill(baseUrl);
    return modal;
  }

  /** Tests after the first need the credential it creates; alone (`-t`), they create it over the API. */
  async function ensureCredential(): Promise<void> {
    const existing: Array<{ type: string }> = await n8n.rest('GET', '/credentials');
    if (!existing.some((c) => c.type === 'certificateServiceApi')) {
      await n8n.createCredential('certificateServiceApi', 'Certificate Service account', { apiKey: sb.apiKey, baseUrl: sb.baseUrl });
    }
  }

  test('credential: created in the form and tested; a wrong key shows a clear error that contains no key', () =>
    inEditor('credential', async (page) => {
      const wrongKey = `csk_live_wrong_${randomUUID().replace(/-/g, '')}`;
      // What n8n's credential test answered the browser.
      const testAnswers: string[] = [];
      page.on('response', (response) => {
        if (response.url().includes('/rest/credentials/test')) void response.text().then((t) => testAnswers.push(t), () => undefined);
      });

      const modal = await newCredentialForm(page, sb.baseUrl);
      const apiKeyInput = modal.getByTestId('parameter-input-apiKey').locator('input');
      // In the page, hidden, from the form's first render (a v-show): only its visibility says a test passed.
      const success = modal.getByTestId('credentials-config-container-test-success').getByText('Connection tested successfully');

      // n8n 2.41's form has no separate Test button: Save tests the credential (POST /auth).
      let authCalls = routeCount('POST /auth');
      await page.getByTestId('credential-save-button').click();
      await success.waitFor();
      expect(routeCount('POST /auth')).toBeGreaterThan(authCalls);

      // A wrong key: saved, tested, and the failure is shown with its reason.
      await apiKeyInput.fill(wrongKey);
      authCalls = routeCount('POST /auth');
      await page.getByTestId('credential-save-button').click();
      const failure = modal.getByText('Couldn’t connect with these settings');
      await failure.waitFor();
      expect(routeCount('POST /auth')).toBeGreaterThan(authCalls);
      await modal.getByText('More details').click();
      // The credential's 401 rule: the core's hint instead of n8n's bare "Unauthorized".
      await modal.getByText(/The service does not recognize the API key\. Copy the whole key again/).waitFor();
      // The failure's own test button. Its answer is waited for in the page: n8n sends a request
      // that got a 401 twice, so the sandbox counts the first before n8n answers, and a Save
      // meanwhile would race this answer (whichever lands last sets the banner).
      authCalls = routeCount('POST /auth');
      const retried = page.waitForResponse((response) => response.url().endsWith('/rest/credentials/test'));
      await modal.getByRole('button', { name: 'Retry' }).click();
      await retried;
      await modal.getByRole('button', { name: 'Retry', exact: true }).waitFor(); // no longer "Retrying"
      expect(routeCount('POST /auth')).toBeGreaterThan(authCalls);
      await failure.waitFor();

      // No key anywhere but in the API Key field itself (a password input): not in the visible
      // text, in no other element or attribute of the page, not in the test's answers.
      const visibleText = await page.locator('body').innerText();
      const htmlOutsideInputs = (await page.content()).replace(/<input\b[^>]*>/g, '');
      expect(visibleText).toContain('Couldn’t connect with these settings');
      expect(testAnswers.length).toBeGreaterThanOrEqual(2);
      for (const text of [visibleText, htmlOutsideInputs, ...testAnswers]) {
        expect(text).not.toContain(wrongKey);
        expect(text).not.toContain(sb.apiKey);
      }

      // Back to the right key, so the other tests find a working credential.
      await apiKeyInput.fill(sb.apiKey);
      authCalls = routeCount('POST /auth');
      await page.getByTestId('credential-save-button').click();
      await success.waitFor();
      expect(routeCount('POST /auth')).toBeGreaterThan(authCalls);
    }));

  test("credential: where nothing answers, n8n's test shows only a code, and the Base URL field's hint says what that code means", async () => {
    const servers = await noAnswerServers();
    const made: string[] = [];
    try {
      // What n8n 2.41's credential test answers for each (POST /rest/credentials/test, as Save calls it).
      const codes: string[] = [];
      for (const [name, baseUrl] of [['closed port', servers.closed], ['https to plain http', servers.plainHttp], ['self-signed', servers.selfSigned]]) {
        const data = { apiKey: sb.apiKey, baseUrl };
        const { id } = await n8n.createCredential('certificateServiceApi', `No answer: ${name}`, data);
        made.push(id);
        const answer: { status: string; message: string } = await n8n.rest('POST', '/credentials/test', { credentials: { id, name, type: 'certificateServiceApi', data } });
        expect(answer.status).toBe('Error');
        expect(answer.message).not.toContain(sb.apiKey);
        codes.push(answer.message);
      }
      expect(codes).toEqual(['ECONNREFUSED', expect.stringMatching(/^(EPROTO|ERR_SSL_\w+)$/), expect.stringMatching(/^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/)]);
      expect(servers.requests()).toBe(0);

      const before = new Set(((await n8n.rest('GET', '/credentials')) as Array<{ id: string }>).map((c) => c.id));
      // The form, with the closed port: the failure's details are the bare code, and the hint
      // under the Base URL field, as the editor shows it, names each code n8n answered above.
      await inEditor('credential-no-answer', async (page) => {
        const modal = await newCredentialForm(page, servers.closed);
        await page.getByTestId('credential-save-button').click();
        await modal.getByText('Couldn’t connect with these settings').waitFor();
        await modal.getByText('More details').click();
        await modal.getByText('ECONNREFUSED', { exact: true }).waitFor();
        const hint = await modal.getByText(/^If saving shows only a code:/).innerText();
        for (const code of codes) expect(hint).toContain(code.startsWith('ERR_SSL_') ? 'EPROTO' : code);
        expect(hint).toMatch(/ECONNREFUSED, ENOTFOUND or ETIMEDOUT means nothing answered at this address/);
        await saveScreenshot(page, 'credential-no-answer.png');
        const saved: Array<{ id: string }> = await n8n.rest('GET', '/credentials');
        made.push(...saved.filter((c) => !before.has(c.id)).map((c) => c.id)); // the form's own, saved by the test
      });
    } finally {
      for (const id of made) await n8n.rest('DELETE', `/credentials/${id}`).catch(() => undefined);
      await servers.close();
    }
  });

  test('issue: node creator search, Certificate → Issue, batch from the list, its design\'s variables as columns, Execute step shows the certificate', async () => {
    await ensureCredential();
    const issueAction = shownOptions(loadDescription('CertificateService'), 'operation', { resource: 'certificate' }).find(
      (o) => o.value === 'issue',
    )?.action;
    expect(issueAction).toBeDefined();
    const batch = batches[2];

    await inEditor('issue', async (page) => {
      await openNewWorkflow(page, n8n.baseUrl);
      await addNode(page, 'Manual Trigger', 'Manual Trigger');
      await addNode(page, 'Certificate', 'Certificate Service', issueAction!);
      await page.getByTestId('ndv').waitFor();
      expect(await page.getByTestId('parameter-input-resource').locator('input').inputValue()).toBe('Certificate');
      expect(await page.getByTestId('parameter-input-operation').locator('input').inputValue()).toBe('Issue');

      // The batch list is loaded from the sandbox.
      await page.getByTestId('resource-locator-batch').getByTestId('rlc-input').click();
      const listed = page.getByTestId('rlc-item');
      await listed.first().waitFor();
      const sandboxTitles = (await core.listBatches()).items.map((b) => b.title);
      expect((await listed.allInnerTexts()).map((t) => t.trim()).sort()).toEqual([...sandboxTitles].sort());
      await listed.filter({ hasText: batch.title }).click();

      await fillParameter(page, 'name', 'Ada Lovelace');
      await fillParameter(page, 'email', 'ada@example.com');
      // A new node's Data is "Map Design Variables", and picking the batch loads
      // its design's variables as columns, labelled as the design labels them.
      expect(await page.getByTestId('parameter-input-specifyData').locator('input').inputValue()).toBe('Map Design Variables');
      const columns = page.getByTestId('mapping-fields-container');
      await columns.getByTestId('parameter-input-course').waitFor();
      const labels = (await columns.getByTestId('input-label').allInnerTexts()).map((t) => t.split('\n')[0].replace(/\*\s*$/, '').trim());
      expect(labels).toEqual(['Values to Send', 'Course', 'Completed On']);
      await columns.getByTestId('parameter-input-course').locator('input, textarea').first().fill('Welding');
      await columns.getByTestId('parameter-input-completedOn').locator('input, textarea').first().fill('2026-11-25');

      sb.controls.resetCounters();
      await page.getByTestId('node-execute-button').first().click();
      const output = page.getByTestId('output-panel');
      const shown = (await output.getByText(CERTIFICATE_ID).first().innerText()).match(CERTIFICATE_ID)![0];

      const counters = sb.controls.counters();
      expect(ISSUE_ROUTES.reduce((sum, route) => sum + (counters.requests.byRoute[route] ?? 0), 0)).toBe(1);
      expect(counters.certificatesIssued).toBe(1);
      const [issued, ...more] = (await core.listRecipients(batch.id)).items;
      expect(more).toHaveLength(0);
      expect(issued).toMatchObject({ certificateId: shown, name: 'Ada Lovelace', email: 'ada@example.com' });
      expect(issued.data).toEqual({ course: 'Welding', completedOn: '2026-11-25' });

      await output.getByRole('radio', { name: 'JSON' }).click();
      await output.getByText(`"${shown}"`).first().waitFor();
      await saveScreenshot(page, 'editor-issue-certificate.png');
    });
  });

  test('fields follow the resource and operation, as the node description says', async () => {
    const description = loadDescription('CertificateService');
    const start = { resource: 'certificate', operation: 'issue' };
    const nodeName = 'Certificate Service';
    const workflow = await n8n.createWorkflow({
      name: 'Fields follow the operation',
      nodes: [{ id: randomUUID(), name: nodeName, type: ACTION_TYPE, typeVersion: 1, position: [0, 0], parameters: start }],
      connections: {},
    });
    const model = new FieldsModel(description, start);
    const rows: Array<{ step: string; expected: string[]; shown: string[] }> = [];
    const check = async (step: string, page: Page) => {
      const expected = model.visibleLabels();
      rows.push({ step, expected, shown: await settle(() => visibleParameterLabels(page), expected) });
    };

    await inEditor('fields', async (page) => {
      await openNode(page, n8n.baseUrl, workflow.id, nodeName);
      await check('opened: Certificate → Issue', page);
      // Every resource, and every operation it offers, as the description lists them.
      for (const resource of shownOptions(description, 'resource', model.values)) {
        await chooseOption(page, 'resource', resource.name);
        model.set('resource', resource.value);
        await check(`Resource ${resource.name} (Operation resets to ${model.values.operation})`, page);
        for (const operation of shownOptions(description, 'operation', model.values)) {
          await chooseOption(page, 'operation', operation.name);
          model.set('operation', operation.value);
          await check(`${resource.name} → ${operation.name}`, page);
        }
      }
    });

    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(
      path.join(ARTIFACTS, 'fields-table.md'),
      ['| step | visible fields |', '|---|---|', ...rows.map((r) => `| ${r.step} | ${r.shown.join(', ')} |`)].join('\n') + '\n',
    );
    expect(rows.filter((r) => JSON.stringify(r.shown) !== JSON.stringify(r.expected))).toEqual([]);
    // The table is not trivial: operations differ in their fields.
    expect(new Set(rows.map((r) => r.expected.join())).size).toBeGreaterThan(3);
  });

  test('trigger: listening for a test event subscribes the test URL, shows a real delivery, and stopping leaves 0 subscriptions', async () => {
    await ensureCredential();
    const issuedEvent = shownOptions(loadDescription('CertificateServiceTrigger'), 'events', {}).find(
      (o) => o.value === 'certificate.issued',
    );
    expect(issuedEvent).toBeDefined();
    expect(sb.controls.subscriptions()).toHaveLength(0);

    await inEditor('trigger', async (page) => {
      await openNewWorkflow(page, n8n.baseUrl);
      // The node creator lists the trigger's events as "On <event>".
      await addNode(page, 'Certificate', 'Certificate Service', new RegExp(`^On ${issuedEvent!.name}$`, 'i'));
      await page.getByTestId('ndv').waitFor();

      // n8n 2.41 labels the button "Execute step" for webhook-based app triggers ("Listen for
      // test event" is its Webhook node's label); the panel then says what it does.
      await page.getByTestId('trigger-execute-button').click();
      await page.getByTestId('trigger-listening').waitFor();
      await page.getByText('Listening for test event').waitFor();
      expect(await settle(async () => sb.controls.subscriptions().length, 1)).toBe(1);
      const [subscription] = sb.controls.subscriptions();
      expect(subscription.url).toMatch(new RegExp(`^${n8n.baseUrl}/webhook-test/[0-9a-f-]{36}/webhook$`));
      expect(subscription.events).toEqual(['certificate.issued']);

      // A real event: the sandbox signs it and delivers it to the test URL.
      const issued = await core.issueCertificate(batches[0].id, { name: 'Grace Hopper', email: 'grace@example.com', data: { course: 'Welding' } });
      const output = page.getByTestId('output-panel');
      await output.getByText(issued.certificateId).first().waitFor();
      const delivery = sb.controls.deliveries().find((d) => d.url === subscription.url);
      expect(delivery).toMatchObject({ type: 'certificate.issued', status: 200, outcome: 'succeeded' });
      // A test webhook serves one event; n8n then removes it, and the node deletes the subscription.
      expect(await settle(async () => sb.controls.subscriptions().length, 0)).toBe(0);

      await output.getByRole('radio', { name: 'JSON' }).click();
      await output.getByText(`"${issued.certificateId}"`).first().waitFor();
      await saveScreenshot(page, 'editor-trigger-test-event.png');

      // Listening again and pressing "Stop Listening" removes the subscription too.
      await page.getByTestId('node-execute-button').first().click();
      expect(await settle(async () => sb.controls.subscriptions().length, 1)).toBe(1);
      await page.getByRole('button', { name: 'Stop Listening' }).first().click();
      expect(await settle(async () => sb.controls.subscriptions().length, 0)).toBe(0);
    });
  });
});
