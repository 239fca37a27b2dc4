// End to end against the sandbox (a real HTTP implementation of the service): the app
// subscribes through its triggers, the sandbox delivers real signed events to a local
// receiver, and each raw request is handed to `perform` the way Zapier does
// (rawRequest.content + Http- prefixed, Camel-Cased headers). Creates and searches run
// for real too.
import zapier from 'zapier-platform-core';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { startReceiver, type Received, type Receiver } from '@certificate-service/sandbox/testing';
import { App, app, caught, createAppHandler, cursorStore, zapierHeaders } from './helpers';
import type { Recipient } from '@certificate-service/sdk/core';

jest.setTimeout(30_000);

let sb: Sandbox;
let receiver: Receiver;
let authData: { apiKey: string; baseUrl: string };
const appTester = zapier.createAppTester(App);
const handler = createAppHandler(App);

function run<T = unknown>(path: string, bundle: Record<string, unknown> = {}): Promise<T> {
  const fn = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], App);
  return appTester(fn as never, { authData, ...bundle }) as Promise<T>;
}

/** What Zapier hands a hook trigger's perform for one received request. */
const asZapierRequest = (r: Received) => ({
  rawRequest: { method: 'POST', querystring: '', headers: zapierHeaders(r.headers), content: r.rawBody },
});
const ofType = (type: string) => (r: Received) => r.headers['x-service-event'] === type;

beforeAll(async () => {
  sb = await createSandbox({ timeScale: 0.0001 });
  receiver = await startReceiver();
  authData = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});

afterAll(async () => {
  await receiver?.close();
  await sb?.close();
});

describe('the Zapier app against the sandbox', () => {
  const subs: Record<string, { id: string; secret: string }> = {};
  let batchId = '';
  let issued: Recipient;

  it('connects: the auth test returns the workspace used as the connection label', async () => {
    await expect(appTester(app.authentication.test, { authData })).resolves.toEqual({ workspaceId: 'ws_demo', username: 'Demo Workspace' });
    const error = await caught(appTester(app.authentication.test, { authData: { ...authData, apiKey: 'sk_live_wrong' } }));
    expect(error.json).toMatchObject({ code: 'INVALID_API_KEY', status: 401 });
  });

  it('creates a batch from the design dropdown and finds it in the batch dropdown', async () => {
    const designs = await run<Array<{ id: string; name: string }>>('triggers.design_list.operation.perform', { inputData: {} });
    expect(designs.map((d) => d.id)).toContain('design_classic');
    const batch = await run<{ id: string; status: string }>('creates.create_batch.operation.perform', {
      inputData: { title: 'Zapier e2e', design_id: 'design_classic' },
    });
    expect(batch.status).toBe('active');
    batchId = batch.id;
    const page = (await handler({
      command: 'execute',
      method: 'triggers.batch_list.operation.perform',
      bundle: { authData, inputData: {}, meta: { page: 0 } },
      storeKey: 'e2e-batch-list',
      cursorTestObj: cursorStore(),
    })) as { results: Array<{ id: string; title: string }> };
    expect(page.results).toContainEqual(expect.objectContaining({ id: batchId, title: 'Zapier e2e' }));
  });

  it('subscribes each instant trigger to the receiver', async () => {
    for (const key of ['certificate_issued', 'certificate_sent', 'certificate_failed', 'certificate_viewed']) {
      subs[key] = await run(`triggers.${key}.operation.performSubscribe`, { targetUrl: receiver.url, inputData: { batch_id: batchId } });
      expect(subs[key]).toEqual({ id: expect.any(String), secret: expect.stringMatching(/^wh_sec_/) });
    }
    const stored = sb.controls.subscriptions().map((s) => [s.url, s.events]);
    expect(stored).toEqual(expect.arrayContaining([[receiver.url, ['certificate.issued']], [receiver.url, ['certificate.viewed']]]));
  });

  it('issues and sends a certificate; the real signed deliveries pass perform', async () => {
    issued = await run<Recipient>('creates.issue_certificate.operation.perform', {
      inputData: { batch_id: batchId, name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'E2E', score: 97 }, send: true },
    });
    expect(issued).toMatchObject({ batchId, email: 'ada@example.com', data: { course: 'E2E', score: '97' } });

    const [issuedDelivery] = await receiver.waitFor(1, 5000, ofType('certificate.issued'));
    const [sentDelivery] = await receiver.waitFor(1, 5000, ofType('certificate.sent'));

    const items = await run<Array<Record<string, unknown>>>('triggers.certificate_issued.operation.perform', {
      ...asZapierRequest(issuedDelivery),
      subscribeData: subs.certificate_issued,
      inputData: { batch_id: batchId },
    });
    expect(items).toEqual([
      expect.objectContaining({ type: 'certificate.issued', recipientId: issued.id, certificateId: issued.certificateId, id: expect.stringMatching(/^whe_/) }),
    ]);

    const sent = await run<Array<Record<string, unknown>>>('triggers.certificate_sent.operation.perform', {
      ...asZapierRequest(sentDelivery),
      subscribeData: subs.certificate_sent,
      inputData: { batch_id: batchId },
    });
    expect(sent).toEqual([expect.objectContaining({ type: 'certificate.sent', emailStatus: 'sent', recipientId: issued.id })]);

    // The same delivery again (at-least-once) is dropped.
    expect(
      await run('triggers.certificate_sent.operation.perform', { ...asZapierRequest(sentDelivery), subscribeData: subs.certificate_sent, inputData: {} }),
    ).toEqual([]);
    // Another subscription's delivery (other secret, other event) is dropped.
    expect(
      await run('triggers.certificate_issued.operation.perform', { ...asZapierRequest(sentDelivery), subscribeData: subs.certificate_issued, inputData: {} }),
    ).toEqual([]);
    // The batch filter drops deliveries from other batches.
    expect(
      await run('triggers.certificate_issued.operation.perform', {
        ...asZapierRequest(issuedDelivery),
        subscribeData: subs.certificate_issued,
        inputData: { batch_id: 'batch_other' },
      }),
    ).toEqual([]);
  });

  it('delivers certificate.failed and certificate.viewed with their extras', async () => {
    const bounced = await run<Recipient>('creates.issue_certificate.operation.perform', {
      inputData: { batch_id: batchId, name: 'Bounce', email: 'nobody@bounce.test', send: 'yes' },
    });
    const [failedDelivery] = await receiver.waitFor(1, 5000, ofType('certificate.failed'));
    const failed = await run<Array<Record<string, unknown>>>('triggers.certificate_failed.operation.perform', {
      ...asZapierRequest(failedDelivery),
      subscribeData: subs.certificate_failed,
      inputData: {},
    });
    expect(failed).toEqual([expect.objectContaining({ recipientId: bounced.id, emailStatus: 'failed', error: expect.any(String) })]);

    sb.controls.viewCertificate(issued.shareToken, { userAgent: 'jest', ip: '203.0.113.9' });
    const [viewedDelivery] = await receiver.waitFor(1, 5000, ofType('certificate.viewed'));
    const viewed = await run<Array<Record<string, unknown>>>('triggers.certificate_viewed.operation.perform', {
      ...asZapierRequest(viewedDelivery),
      subscribeData: subs.certificate_viewed,
      inputData: { batch_id: batchId },
    });
    expect(viewed).toEqual([expect.objectContaining({ recipientId: issued.id, viewer: expect.objectContaining({ userAgent: 'jest' }) })]);
  });

  it('performList shows real recipients, filtered by email status', async () => {
    const sent = await run<Array<Record<string, unknown>>>('triggers.certificate_sent.operation.performList', { inputData: { batch_id: batchId } });
    expect(sent.map((i) => i.recipientId)).toEqual([issued.id]);
    const failed = await run<Array<Record<string, unknown>>>('triggers.certificate_failed.operation.performList', { inputData: {} });
    expect(failed).toEqual([expect.objectContaining({ email: 'nobody@bounce.test', emailStatus: 'failed' })]);
    const all = await run<unknown[]>('triggers.certificate_issued.operation.performList', { inputData: { batch_id: batchId } });
    expect(all).toHaveLength(2);
  });

  it('finds the certificate by ID, by share token and by email; a miss is []', async () => {
    await expect(run('searches.find_certificate.operation.perform', { inputData: { certificate_id: issued.certificateId } })).resolves.toEqual([
      expect.objectContaining({ id: issued.id }),
    ]);
    await expect(run('searches.find_certificate_by_token.operation.perform', { inputData: { share_token: issued.shareToken } })).resolves.toEqual([
      expect.objectContaining({ id: issued.id }),
    ]);
    await expect(run('searches.find_recipient.operation.perform', { inputData: { batch_id: batchId, email: 'ADA@example.com' } })).resolves.toEqual([
      expect.objectContaining({ id: issued.id }),
    ]);
    await expect(run('searches.find_certificate.operation.perform', { inputData: { certificate_id: 'CERT-1999-000000-0000' } })).resolves.toEqual([]);
    await expect(run('searches.find_recipient.operation.perform', { inputData: { batch_id: 'batch_missing', email: 'a@example.com' } })).resolves.toEqual([]);
  });

  it('the certificate dropdown pages through the chosen batch; a picked value works in Send; Find takes the certificate URL', async () => {
    const batch = await run<{ id: string }>('creates.create_batch.operation.perform', { inputData: { title: 'Dropdown e2e', design_id: 'design_classic' } });
    const lines = Array.from({ length: 120 }, (_, i) => ({ name: `Learner ${i + 1}`, email: `learner${i + 1}@example.com` }));
    const bulk = await run<{ issuedCount: number }>('creates.issue_certificates_bulk.operation.perform', { inputData: { batch_id: batch.id, recipients: lines } });
    expect(bulk.issuedCount).toBe(120);

    const cursorTestObj = cursorStore();
    const page = async (n: number) =>
      ((await handler({
        command: 'execute',
        method: 'triggers.recipient_list.operation.perform',
        bundle: { authData, inputData: { batch_id: batch.id }, meta: { page: n, isFillingDynamicDropdown: true } },
        storeKey: 'e2e-recipient-list',
        cursorTestObj,
      })) as { results: Array<{ id: string; label: string; certificateId: string }> }).results;
    const [first, second, third] = [await page(0), await page(1), await page(2)];
    expect([first.length, second.length, third.length]).toEqual([100, 20, 0]);
    const all = [...first, ...second];
    expect(new Set(all.map((r) => r.id)).size).toBe(120);
    expect(all.map((r) => r.label)).toContain('Learner 7 <learner7@example.com>');

    const picked = all.find((r) => r.label === 'Learner 7 <learner7@example.com>')!;
    await expect(run('creates.send_certificate.operation.perform', { inputData: { batch_id: batch.id, recipient_id: picked.id } })).resolves.toMatchObject({
      id: picked.id,
      emailStatus: 'queued',
    });
    // Find by Certificate ID with the dropdown's value, limited to its batch.
    await expect(run('searches.find_certificate.operation.perform', { inputData: { batch_id: batch.id, certificate_id: picked.certificateId } })).resolves.toEqual([
      expect.objectContaining({ id: picked.id }),
    ]);
    await expect(run('searches.find_certificate.operation.perform', { inputData: { batch_id: batchId, certificate_id: picked.certificateId } })).resolves.toEqual([]);
    // The sandbox's own certUrl, as a user would paste it.
    await expect(run('searches.find_certificate_by_token.operation.perform', { inputData: { share_token: issued.certUrl } })).resolves.toEqual([
      expect.objectContaining({ id: issued.id }),
    ]);
  });

  it('updates, sends, bulk-issues and deletes recipients', async () => {
    const updated = await run<Recipient>('creates.update_recipient.operation.perform', {
      inputData: { batch_id: batchId, recipient_id: issued.id, name: 'Ada King', data: { score: 99 } },
    });
    expect(updated).toMatchObject({ name: 'Ada King', data: { course: 'E2E', score: '99' } });

    await expect(run('creates.send_certificate.operation.perform', { inputData: { batch_id: batchId, recipient_id: issued.id } })).resolves.toMatchObject({
      id: issued.id,
      emailStatus: 'queued',
    });

    const bulk = await run<{ issuedCount: number; failedCount: number; results: Array<Record<string, unknown>> }>(
      'creates.issue_certificates_bulk.operation.perform',
      {
        inputData: {
          batch_id: batchId,
          data: { course: 'Bulk' },
          recipients: [
            { name: 'Bulk One', email: 'one@example.com', data_json: '{"score": "1"}' },
            { name: 'Bulk Bad', email: 'bad' },
            { name: 'Bulk Two', email: 'two@example.com' },
          ],
        },
      },
    );
    expect(bulk).toMatchObject({ issuedCount: 2, failedCount: 1 });
    expect(bulk.results.map((r) => r.status)).toEqual(['issued', 'failed', 'issued']);
    const one = await run<Recipient[]>('searches.find_certificate.operation.perform', { inputData: { certificate_id: bulk.results[0].certificateId } });
    expect(one[0].data).toEqual({ course: 'Bulk', score: '1' });

    await expect(
      run('creates.delete_recipient.operation.perform', { inputData: { batch_id: batchId, recipient_id: String(bulk.results[2].recipientId) } }),
    ).resolves.toMatchObject({ deleted: true });
    await expect(run('searches.find_certificate.operation.perform', { inputData: { certificate_id: bulk.results[2].certificateId } })).resolves.toEqual([]);
  });

  it('archives and unarchives the batch; issuing into an archived batch halts', async () => {
    await expect(run('creates.archive_batch.operation.perform', { inputData: { batch_id: batchId } })).resolves.toMatchObject({ status: 'archived' });
    const error = await caught(
      run('creates.issue_certificate.operation.perform', { inputData: { batch_id: batchId, name: 'Late', email: 'late@example.com' } }),
    );
    expect(error.name).toBe('HaltedError');
    const archived = (await handler({
      command: 'execute',
      method: 'triggers.archived_batch_list.operation.perform',
      bundle: { authData, inputData: {}, meta: { page: 0 } },
      storeKey: 'e2e-archived',
      cursorTestObj: cursorStore(),
    })) as { results: Array<{ id: string }> };
    expect(archived.results.map((b) => b.id)).toContain(batchId);
    await expect(run('creates.unarchive_batch.operation.perform', { inputData: { batch_id: batchId } })).resolves.toMatchObject({ status: 'active' });
  });

  it('unsubscribes every trigger; unsubscribing again is not an error', async () => {
    for (const [key, data] of Object.entries(subs)) {
      await expect(run(`triggers.${key}.operation.performUnsubscribe`, { subscribeData: data })).resolves.toMatchObject({ id: data.id, deleted: true });
    }
    expect(sb.controls.subscriptions()).toEqual([]);
    await expect(
      run('triggers.certificate_issued.operation.performUnsubscribe', { subscribeData: subs.certificate_issued }),
    ).resolves.toMatchObject({ alreadyDeleted: true });
  });
});

describe('rate limiting against the sandbox', () => {
  it('a real 429 surfaces as a ThrottledError with the Retry-After delay', async () => {
    const limited = await createSandbox({ rateLimit: { limit: 1, windowMs: 60_000 } });
    try {
      const auth = { apiKey: limited.apiKey, baseUrl: limited.baseUrl };
      await appTester(app.authentication.test, { authData: auth });
      const error = await caught(
        appTester(app.searches.find_certificate.operation.perform, { authData: auth, inputData: { certificate_id: 'CERT-1' } }),
      );
      expect(error.name).toBe('ThrottledError');
      expect(Number(error.json?.delay)).toBeGreaterThan(50);
    } finally {
      await limited.close();
    }
  });
});
