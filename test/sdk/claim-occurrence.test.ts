// Receivers claim the occurrence (issue 36, item 3): for a certificate event the one claim a
// receiver makes is what happened (issued; each send; a failure per successful send), not the
// delivery id, so two deliveries of one occurrence (the service's copy, a recovery) run once.
// `certificate.viewed` (not derivable from a list) keeps the delivery id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
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

describe('a resend that fails again (real deliveries from the sandbox)', () => {
  let sb: Sandbox;
  let server: http.Server;
  const ran: WebhookEvent[] = [];
  const answers: number[] = [];
  beforeAll(async () => {
    sb = await createSandbox({ rateLimit: false, timeScale: 0.0001, mailDelayMs: 1 });
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await sb.close();
  });

  test('the second failure, with no successful send between, is the same occurrence: answered 2xx, run once', async () => {
    const ws = sb.controls.createWorkspace();
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    let handler: ReturnType<typeof createNodeHandler> | undefined;
    server = http.createServer((req, res) => {
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => (answers.push(res.statusCode), end(...args))) as typeof res.end;
      void handler!(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sub = await client.createSubscription({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, events: ['certificate.failed'] });
    handler = createNodeHandler({ secret: sub.secret, onEvent: (event) => void ran.push(event) });
    const batch = await client.createBatch({ title: 'Bounces', designId: 'design_classic' });
    const [issued] = await client.issueMany([{ batchId: batch.id, name: 'B', email: 'b@bounce.test', send: true }]);
    const id = (issued as { recipient?: { id: string } }).recipient?.id ?? (issued as unknown as { id: string }).id;
    const failedDeliveries = async (n: number) =>
      sb.controls.waitForDeliveries((log) => log.filter((a) => a.subscriptionId === sub.id && a.outcome === 'succeeded').length >= n, 10_000);
    await failedDeliveries(1);
    await client.sendCertificate(batch.id, id);
    const log = await failedDeliveries(2);
    const mine = log.filter((a) => a.subscriptionId === sub.id && a.outcome === 'succeeded');
    expect(new Set(mine.map((a) => a.deliveryId)).size).toBe(2); // two deliveries, two delivery ids
    expect(ran.map((e) => [e.type, e.data.id])).toEqual([['certificate.failed', id]]);
    expect(answers).toEqual([200, 200]);
  });

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
