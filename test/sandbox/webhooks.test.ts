// Webhook subscriptions and deliveries, checked with the core's verifier: envelope,
// headers, each event type, viewed-once, secret rotation, duplicates and 410.
import { computeSignature } from '../../shared/sdk/src/webhooks/sign';
import { DeliveryDeduper } from '../../shared/sdk/src/webhooks/dedupe';
import { checkDelivery, parseSignatureHeader, verifyDelivery } from '../../shared/sdk/src/webhooks/verify';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { type Received, type Receiver, startReceiver } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let api: Api;
let workspaceId: string;
const receivers: Receiver[] = [];

const GRACE_SCALED_MS = 600;
beforeAll(async () => {
  sb = await createSandbox({
    rateLimit: false,
    timeScale: 0.0001,
    mailDelayMs: 5,
    deliveryTimeoutMs: 1000,
    rotationGraceMs: GRACE_SCALED_MS / 0.0001,
  });
});
beforeEach(() => {
  const ws = sb.controls.createWorkspace();
  workspaceId = ws.workspaceId;
  api = new Api(sb.baseUrl, ws.apiKey);
});
afterEach(async () => {
  sb.controls.setDuplicateDeliveries(1);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => sb.close());

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

async function subscribe(url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await api.post('/webhooks/subscriptions', { url, events });
  expect(res.status).toBe(201);
  return res.body;
}

async function issue(body: Record<string, unknown> = {}) {
  const batchId = (await api.post('/batches', { title: 'W', designId: 'design_classic' })).body.id;
  const res = await api.post(`/batches/${batchId}/recipients`, { name: 'Ann', email: 'ann@example.com', ...body });
  expect(res.status).toBe(201);
  return res.body;
}

const ofType = (type: string) => (r: Received) => r.headers['x-service-event'] === type;

describe('subscriptions', () => {
  test('create returns the secret once; get and list never do', async () => {
    const res = await api.post('/webhooks/subscriptions', {
      url: 'https://hooks.example.com/in',
      events: ['certificate.issued', 'certificate.sent', 'certificate.issued'],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'events', 'id', 'secret', 'url']);
    expect(res.body.id).toMatch(/^whs_/);
    expect(res.body.secret).toMatch(/^wh_sec_[A-Za-z0-9_-]{20,}$/);
    expect(res.body.events).toEqual(['certificate.issued', 'certificate.sent']);

    const got = await api.get(`/webhooks/subscriptions/${res.body.id}`);
    expect(got.status).toBe(200);
    const { secret: _secret, ...publicFields } = res.body;
    expect(got.body).toEqual(publicFields);
    const list = await api.get('/webhooks/subscriptions');
    expect(list.body.data).toEqual([publicFields]);
    expect(list.text).not.toContain('wh_sec_');
    expect(sb.controls.subscriptions(workspaceId)[0].secret).toBe(res.body.secret);

    expect((await api.delete(`/webhooks/subscriptions/${res.body.id}`)).status).toBe(204);
    expect((await api.get(`/webhooks/subscriptions/${res.body.id}`)).status).toBe(404);
    expect((await api.delete(`/webhooks/subscriptions/${res.body.id}`)).status).toBe(404);
  });

  test.each([
    [{ events: ['certificate.sent'] }, 'url'],
    [{ url: 'not a url', events: ['certificate.sent'] }, 'url'],
    [{ url: 'http://hooks.example.com/in', events: ['certificate.sent'] }, 'url'],
    [{ url: 'ftp://127.0.0.1/in', events: ['certificate.sent'] }, 'url'],
    [{ url: 'https://hooks.example.com/in' }, 'events'],
    [{ url: 'https://hooks.example.com/in', events: [] }, 'events'],
    [{ url: 'https://hooks.example.com/in', events: 'certificate.sent' }, 'events'],
    [{ url: 'https://hooks.example.com/in', events: ['certificate.sent', 'certificate.deleted'] }, 'events'],
  ])('%j -> 400 field %s', async (body, field) => {
    const res = await api.post('/webhooks/subscriptions', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', detail: { field } });
  });

  test('http is accepted for loopback hosts only', async () => {
    for (const url of ['http://localhost:8080/x', 'http://127.0.0.2/x', 'http://[::1]:9/x']) {
      expect((await api.post('/webhooks/subscriptions', { url, events: ['certificate.sent'] })).status).toBe(201);
    }
  });

  test('the 21st subscription -> 403 PLAN_LIMIT_EXCEEDED', async () => {
    for (let i = 0; i < 20; i++) await subscribe(`http://127.0.0.1:9/hook${i}`, ['certificate.viewed']);
    const res = await api.post('/webhooks/subscriptions', { url: 'http://127.0.0.1:9/x', events: ['certificate.viewed'] });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'PLAN_LIMIT_EXCEEDED', detail: { limit: 20 } });
    expect((await api.get('/webhooks/subscriptions?limit=100')).body.data).toHaveLength(20);
  });

  test('unknown subscription -> 404 on get, delete, test and rotate', async () => {
    for (const res of [
      await api.get('/webhooks/subscriptions/whs_missing'),
      await api.delete('/webhooks/subscriptions/whs_missing'),
      await api.post('/webhooks/subscriptions/whs_missing/test'),
      await api.post('/webhooks/subscriptions/whs_missing/rotate-secret'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
  });
});

describe('deliveries', () => {
  test.each([
    ['empty-object', {}],
    ['empty-array', []],
  ] as const)('test delivery with testDelivery "%s": the same signed envelope, its data no recipient (our model of a sample the spec does not show)', async (shape, data) => {
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.issued']);
    sb.controls.setTestDelivery(shape);
    try {
      expect(sb.controls.settings().testDelivery).toBe(shape);
      await api.post(`/webhooks/subscriptions/${sub.id}/test`);
      const [got] = await rx.waitFor(1);
      const body = JSON.parse(got.rawBody.toString());
      expect(body).toEqual({ id: expect.stringMatching(/^whe_/), type: 'certificate.issued', createdAt: expect.any(String), data });
      expect(checkDelivery(got.rawBody, got.headers, sub.secret)).toMatchObject({ ok: false, reason: 'NOT_CERTIFICATE_EVENT' });
    } finally {
      sb.controls.setTestDelivery('recipient');
    }
    expect(() => sb.controls.setTestDelivery('nope' as never)).toThrow(/testDelivery must be one of recipient, empty-object, empty-array/);
  });

  test('each attempt logs the start of the receiver\'s answer body (who answered)', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.issued']);
    await api.post(`/webhooks/subscriptions/${sub.id}/test`);
    await rx.waitFor(1);
    const log = await sb.controls.waitForDeliveries((all) => all.some((a) => a.subscriptionId === sub.id), 5_000);
    expect(log.find((a) => a.subscriptionId === sub.id)).toMatchObject({ status: 200, answer: 'ok' });
  });

  test('test delivery: 202, signed envelope, exact headers', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.failed', 'certificate.issued']);
    const res = await api.post(`/webhooks/subscriptions/${sub.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ queued: true, deliveryId: expect.stringMatching(/^whd_/) });

    const [got] = await rx.waitFor(1);
    const event = verifyDelivery(got.rawBody, got.headers, sub.secret);
    expect(Object.keys(event).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
    expect(event.id).toMatch(/^whe_/);
    expect(event.type).toBe('certificate.failed'); // the subscription's first event type
    expect(event.data.error).toEqual(expect.any(String));
    expect(event.data.emailStatus).toBe('failed');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Service-Webhook/1');
    expect(got.headers['x-service-event']).toBe('certificate.failed');
    expect(got.headers['x-service-delivery']).toBe(res.body.deliveryId);
    const sig = parseSignatureHeader(String(got.headers['x-service-signature']))!;
    expect(got.headers['x-service-timestamp']).toBe(String(sig.t));
    expect(Math.abs(sig.t - Date.now() / 1000)).toBeLessThan(5);
    expect(sig.v1).toHaveLength(1);
    // A wrong secret must not verify: the check is real.
    expect(checkDelivery(got.rawBody, got.headers, 'wh_sec_wrong')).toMatchObject({ ok: false, reason: 'NO_MATCHING_SIGNATURE' });
  });

  test('issued and sent reach only subscriptions listing the type, with the full recipient', async () => {
    const a = await receiver();
    const b = await receiver();
    const subA = await subscribe(a.url, ['certificate.issued', 'certificate.sent']);
    await subscribe(b.url, ['certificate.viewed']);
    const r = await issue({ send: true, data: { score: '9' } });

    const [issued, sent] = await Promise.all([a.waitFor(1, 3000, ofType('certificate.issued')), a.waitFor(1, 3000, ofType('certificate.sent'))]);
    const e1 = verifyDelivery(issued[0].rawBody, issued[0].headers, subA.secret);
    expect(e1.data).toEqual({ ...r, emailStatus: 'queued' });
    const e2 = verifyDelivery(sent[0].rawBody, sent[0].headers, subA.secret);
    expect(e2.data).toMatchObject({ id: r.id, certificateId: r.certificateId, emailStatus: 'sent', emailSentAt: expect.any(String) });
    expect(e1.id).not.toBe(e2.id);
    expect(issued[0].headers['x-service-delivery']).not.toBe(sent[0].headers['x-service-delivery']);
    await sb.controls.waitForDeliveries((log) => log.filter((d) => d.subscriptionId === subA.id).length >= 2);
    expect(b.received).toHaveLength(0);
  });

  test('a bounce gives certificate.failed with data.error', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.failed', 'certificate.sent']);
    const r = await issue({ email: 'x@bounce.test', send: true });
    const [got] = await rx.waitFor(1);
    const event = verifyDelivery(got.rawBody, got.headers, sub.secret);
    expect(event.type).toBe('certificate.failed');
    expect(event.data).toMatchObject({ id: r.id, emailStatus: 'failed', emailSentAt: null, error: 'Mailbox unavailable (simulated bounce)' });
  });

  test('certificate.viewed fires once, with the viewer', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.viewed']);
    const r = await issue();
    const view = () => fetch(r.certUrl, { headers: { 'User-Agent': 'jest-viewer/1', Referer: 'https://lms.example.com/course' } });
    expect((await view()).status).toBe(200);
    expect((await view()).status).toBe(200);
    expect(sb.controls.viewCertificate(r.shareToken)).toMatchObject({ id: r.id });

    const viewed = sb.controls.events().filter((e) => e.type === 'certificate.viewed' && e.recipientId === r.id);
    expect(viewed).toHaveLength(1);
    expect(sb.controls.counters().views).toBeGreaterThanOrEqual(3);

    const [got] = await rx.waitFor(1);
    const event = verifyDelivery(got.rawBody, got.headers, sub.secret);
    expect(event.data.viewer).toEqual({
      viewedAt: expect.stringMatching(/Z$/),
      userAgent: 'jest-viewer/1',
      referer: 'https://lms.example.com/course',
      ip: expect.stringMatching(/127\.0\.0\.1$/),
    });
    await sb.controls.waitForDeliveries((log) => log.some((d) => d.subscriptionId === sub.id && d.outcome === 'succeeded'));
    expect(rx.received).toHaveLength(1);
  });

  test('bulk issue fires one certificate.issued per recipient', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.issued']);
    const batchId = (await api.post('/batches', { title: 'B', designId: 'design_classic' })).body.id;
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, {
      recipients: [1, 2, 3].map((i) => ({ name: `P${i}`, email: `p${i}@example.com` })),
    });
    const got = await rx.waitFor(3);
    const ids = got.map((g) => verifyDelivery(g.rawBody, g.headers, sub.secret).data.id).sort();
    expect(ids).toEqual(res.body.data.map((r: { id: string }) => r.id).sort());
  });

  test('rotation: two v1 values, both valid, during the grace period only', async () => {
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.issued']);
    const rotated = await api.post(`/webhooks/subscriptions/${sub.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ id: sub.id, secret: expect.stringMatching(/^wh_sec_/) });
    const fresh = rotated.body.secret;
    expect(fresh).not.toBe(sub.secret);
    expect((await api.get(`/webhooks/subscriptions/${sub.id}`)).body.secret).toBeUndefined();

    await api.post(`/webhooks/subscriptions/${sub.id}/test`);
    const [during] = await rx.waitFor(1);
    const sig = parseSignatureHeader(String(during.headers['x-service-signature']))!;
    expect(sig.v1).toHaveLength(2);
    expect(new Set(sig.v1)).toEqual(
      new Set([computeSignature(fresh, during.rawBody, sig.t), computeSignature(sub.secret, during.rawBody, sig.t)]),
    );
    expect(() => verifyDelivery(during.rawBody, during.headers, fresh)).not.toThrow();
    expect(() => verifyDelivery(during.rawBody, during.headers, sub.secret)).not.toThrow();

    const info = sb.controls.subscriptions(workspaceId)[0];
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(info.previousSecretExpiresAt!) - Date.now()) + 20));
    await api.post(`/webhooks/subscriptions/${sub.id}/test`);
    const [, after] = await rx.waitFor(2);
    expect(parseSignatureHeader(String(after.headers['x-service-signature']))!.v1).toHaveLength(1);
    expect(() => verifyDelivery(after.rawBody, after.headers, fresh)).not.toThrow();
    expect(checkDelivery(after.rawBody, after.headers, sub.secret)).toMatchObject({ ok: false, reason: 'NO_MATCHING_SIGNATURE' });
  });

  test('duplicates: n copies with the same X-Service-Delivery, each validly signed', async () => {
    sb.controls.setDuplicateDeliveries(3);
    const rx = await receiver();
    const sub = await subscribe(rx.url, ['certificate.issued']);
    await issue();
    const got = await rx.waitFor(3);
    expect(new Set(got.map((g) => g.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(got.map((g) => g.rawBody)).size).toBe(1);
    for (const g of got) expect(() => verifyDelivery(g.rawBody, g.headers, sub.secret)).not.toThrow();
    const dedupe = new DeliveryDeduper();
    expect(got.filter((g) => !dedupe.seen(String(g.headers['x-service-delivery'])))).toHaveLength(1);
    const log = await sb.controls.waitForDeliveries((l) => l.filter((d) => d.subscriptionId === sub.id).length === 3);
    expect(log.filter((d) => d.subscriptionId === sub.id).map((d) => d.copy).sort()).toEqual([0, 1, 2]);
  });

  test('410 Gone unsubscribes the endpoint and stops retries', async () => {
    const rx = await receiver(() => 410);
    const sub = await subscribe(rx.url, ['certificate.issued', 'certificate.sent']);
    await issue();
    await sb.controls.waitForDeliveries((log) => log.some((d) => d.subscriptionId === sub.id));
    expect((await api.get(`/webhooks/subscriptions/${sub.id}`)).status).toBe(404);
    expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
    await new Promise((r) => setTimeout(r, 100)); // well past the first scaled retry (6 ms)
    const attempts = sb.controls.deliveries().filter((d) => d.subscriptionId === sub.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 410, outcome: 'unsubscribed', attempt: 1 });
    expect(rx.received).toHaveLength(1);
  });

  test('a receiver that never answers does not hold up the API response', async () => {
    const rx = await receiver(() => 'hang');
    await subscribe(rx.url, ['certificate.issued']);
    const started = Date.now();
    await issue();
    await issue();
    expect(Date.now() - started).toBeLessThan(500);
    await rx.waitFor(1);
  });
});
