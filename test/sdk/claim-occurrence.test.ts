// Receivers claim the occurrence (issue 36, item 3): for a certificate event the one claim a
// receiver makes is what happened (issued; each send; a failure per successful send), not the
// delivery id, so two deliveries of one occurrence (the service's copy, a recovery) run once.
// `certificate.viewed` (not derivable from a list) keeps the delivery id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, FAILED_SEND_TIMES, type Sandbox } from '@certificate-service/sandbox';
import { claimKey, createClient, createNodeHandler, handleDelivery, memoryStore, signPayload, type WebhookEvent } from '@certificate-service/sdk';
import { recipient } from './helpers';

const T = Date.parse('2026-11-25T10:00:05.000Z');
const ev = (type: string, data: Record<string, unknown> = {}): WebhookEvent => ({ id: 'whe_1', type, createdAt: new Date(T).toISOString(), data: { ...recipient(1), ...data } }) as unknown as WebhookEvent;

describe('claimKey', () => {
  test.each<[string, WebhookEvent, string]>([
    ['issued: the certificate id', ev('certificate.issued'), 'rec_1'],
    ['sent: the send, in epoch ms', ev('certificate.sent', { emailSentAt: '2026-11-25T10:00:05.000Z' }), `rec_1:sent:${T}`],
    ['sent: the same send to the second, in another zone: the same key', ev('certificate.sent', { emailSentAt: '2026-11-25T11:00:05+01:00' }), `rec_1:sent:${T}`],
    ['sent without emailSentAt: the delivery id (nothing else tells sends apart)', ev('certificate.sent', { emailSentAt: null }), 'whd_1'],
    ['failed, never sent: one per certificate', ev('certificate.failed', { emailSentAt: null, emailStatus: 'failed' }), 'rec_1:failed'],
    ['failed after a successful send: one per that send', ev('certificate.failed', { emailSentAt: new Date(T).toISOString(), emailStatus: 'failed' }), `rec_1:failed:${T}`],
    ['viewed: the delivery id', ev('certificate.viewed'), 'whd_1'],
  ])('%s', (_name, event, key) => {
    expect(claimKey(event, 'whd_1')).toBe(key);
  });

  test('two deliveries of one occurrence: the second is a duplicate; two of a view are two', async () => {
    const store = memoryStore();
    const deliver = async (event: WebhookEvent, deliveryId: string) => {
      const body = JSON.stringify(event);
      const r = await handleDelivery(body, { ...signPayload('wh_sec_x', body), 'X-Service-Delivery': deliveryId }, { secrets: 'wh_sec_x', store });
      if (r.outcome === 'accepted') await r.settle(true);
      return r.outcome;
    };
    expect(await deliver(ev('certificate.issued'), 'whd_a')).toBe('accepted');
    expect(await deliver(ev('certificate.issued'), 'whd_b')).toBe('duplicate');
    expect(await deliver(ev('certificate.viewed'), 'whd_c')).toBe('accepted');
    expect(await deliver(ev('certificate.viewed'), 'whd_d')).toBe('accepted');
  });
});

describe('failures: a second bounce runs; a recovered copy and the late copy of one failure run once', () => {
  const SECRET = 'wh_sec_failures';
  const failed = (createdAt: number, extra: Record<string, unknown> = {}) =>
    ({ id: `whe_${createdAt}`, type: 'certificate.failed', createdAt: new Date(createdAt).toISOString(), data: { ...recipient(1), emailStatus: 'failed', emailSentAt: new Date(T).toISOString() }, ...extra }) as unknown as WebhookEvent;
  const deliver = async (store: ReturnType<typeof memoryStore>, event: WebhookEvent, deliveryId: string) => {
    const body = JSON.stringify(event);
    const r = await handleDelivery(body, { ...signPayload(SECRET, body), 'X-Service-Delivery': deliveryId }, { secrets: SECRET, store });
    if (r.outcome === 'accepted') await r.settle(true);
    return r.outcome;
  };
  const BOUNCE_1 = T + 60_000;
  const RECOVERY_READ = T + 3_600_000;
  const BOUNCE_2 = T + 7_200_000;

  test('a re-send that bounces again (same emailSentAt) runs; copies of each bounce do not', async () => {
    const store = memoryStore();
    expect(await deliver(store, failed(BOUNCE_1), 'whd_1')).toBe('accepted');
    expect(await deliver(store, failed(BOUNCE_1), 'whd_1')).toBe('duplicate'); // the service's copy
    expect(await deliver(store, failed(BOUNCE_2), 'whd_2')).toBe('accepted'); // the second bounce
    expect(await deliver(store, failed(BOUNCE_2), 'whd_2')).toBe('duplicate');
    expect(await deliver(store, failed(BOUNCE_1), 'whd_1')).toBe('duplicate'); // a late copy of the first
  });

  test('recovered first, then the late copy of the failure it stood for: run once; a bounce after the recovery runs', async () => {
    const store = memoryStore();
    expect(await deliver(store, failed(RECOVERY_READ, { recovered: true }), 'whd_r1')).toBe('accepted');
    expect(await deliver(store, failed(BOUNCE_1), 'whd_1')).toBe('duplicate');
    expect(await deliver(store, failed(BOUNCE_2), 'whd_2')).toBe('accepted');
  });

  test('the late copy first, then the recovered copy: run once', async () => {
    const store = memoryStore();
    expect(await deliver(store, failed(BOUNCE_1), 'whd_1')).toBe('accepted');
    expect(await deliver(store, failed(RECOVERY_READ, { recovered: true }), 'whd_r1')).toBe('duplicate');
  });

  test('a store that keeps no times (no doneAt): a later bounce is a duplicate, never run twice', async () => {
    const inner = memoryStore();
    const store = { claim: inner.claim, settle: inner.settle } as ReturnType<typeof memoryStore>;
    expect(await deliver(store, failed(BOUNCE_1), 'whd_1')).toBe('accepted');
    expect(await deliver(store, failed(BOUNCE_2), 'whd_2')).toBe('duplicate');
  });
});

describe.each(FAILED_SEND_TIMES)('a re-send that fails again, real deliveries from the sandbox (failedSendTime %s)', (failedSendTime) => {
  let sb: Sandbox;
  let server: http.Server;
  const ran: WebhookEvent[] = [];
  const answers: number[] = [];
  beforeAll(async () => {
    sb = await createSandbox({ rateLimit: false, timeScale: 0.0001, mailDelayMs: 1, failedSendTime });
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await sb.close();
  });

  test('each bounce reaches onEvent once; a recovery afterwards runs nothing again', async () => {
    const ws = sb.controls.createWorkspace();
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const store = memoryStore();
    let handler: ReturnType<typeof createNodeHandler> | undefined;
    server = http.createServer((req, res) => {
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => (answers.push(res.statusCode), end(...args))) as typeof res.end;
      void handler!(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sub = await client.createSubscription({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, events: ['certificate.failed'] });
    const onEvent = (event: WebhookEvent) => void ran.push(event);
    handler = createNodeHandler({ secret: sub.secret, onEvent, store });
    const batch = await client.createBatch({ title: 'Bounces', designId: 'design_classic' });
    const [issued] = await client.issueMany([{ batchId: batch.id, name: 'B', email: 'b@bounce.test', send: true }]);
    const id = (issued as { recipient: { id: string } }).recipient.id;
    const succeeded = async (n: number) =>
      (await sb.controls.waitForDeliveries((log) => log.filter((a) => a.subscriptionId === sub.id && a.outcome === 'succeeded').length >= n, 10_000)).filter(
        (a) => a.subscriptionId === sub.id && a.outcome === 'succeeded',
      );
    await succeeded(1);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the second bounce is a later event
    await client.sendCertificate(batch.id, id);
    expect(new Set((await succeeded(2)).map((a) => a.deliveryId)).size).toBe(2);
    expect(ran.map((e) => [e.type, e.data.id])).toEqual([
      ['certificate.failed', id],
      ['certificate.failed', id],
    ]);
    expect(answers).toEqual([200, 200]);
    const again = await client.recoverEvents({ since: Date.now() - 3_600_000, events: ['failed'], store, onEvent });
    expect([again.found, again.ran, again.duplicates]).toEqual([1, 0, 1]);
    expect(ran).toHaveLength(2);
  });
});

describe('the test delivery', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ rateLimit: false, timeScale: 0.0001, mailDelayMs: 1 });
  });
  afterAll(() => sb.close());

  test("the service's test delivery shaped as a certificate event claims its sample's occurrence: a second issued test is answered 2xx, not run", async () => {
    const ws = sb.controls.createWorkspace();
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const seen: WebhookEvent[] = [];
    const statuses: number[] = [];
    let h: ReturnType<typeof createNodeHandler> | undefined;
    const srv = http.createServer((req, res) => {
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => (statuses.push(res.statusCode), end(...args))) as typeof res.end;
      void h!(req, res);
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    try {
      const sub = await client.createSubscription({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, events: ['certificate.issued'] });
      h = createNodeHandler({ secret: sub.secret, onEvent: (e) => void seen.push(e) });
      const done = (n: number) => sb.controls.waitForDeliveries((log) => log.filter((a) => a.subscriptionId === sub.id && a.outcome === 'succeeded').length >= n, 10_000);
      await client.testSubscription(sub.id);
      await done(1);
      await client.testSubscription(sub.id);
      await done(2);
      // The sandbox's sample repeats its recipient id (rec_sample…); nothing tells a test from a real event.
      expect([seen.length, statuses]).toEqual([1, [200, 200]]);
    } finally {
      await new Promise((resolve) => srv.close(resolve));
    }
  });
});
