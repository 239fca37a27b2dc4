// The control surface, in-process and over /__sandbox: counters, reset, workspaces and
// keys, settings; plus start options and a clean close().
import { createSandbox, DEMO_API_KEY, type ListShape, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { startReceiver } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let api: Api;
/** The list model's defaults (choices.ts), part of every settings answer. */
const LIST_MODEL_DEFAULTS = { timestampPrecision: 'ms', cursorKind: 'opaque', cursorExpiry: false };

beforeAll(async () => {
  sb = await createSandbox({ timeScale: 0.0001, mailDelayMs: 5 });
  api = new Api(sb.baseUrl, sb.apiKey);
});
afterAll(() => sb.close());

async function ctl(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sb.url}/__sandbox${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

test('GET /__sandbox describes the sandbox', async () => {
  const res = await ctl('GET', '');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    url: sb.url,
    baseUrl: `${sb.url}/api/v1`,
    apiKey: 'sk_live_sandbox_demo_key_0001',
    workspace: { workspaceId: 'ws_demo', username: 'Demo Workspace' },
    settings: { listShape: 'default', bulkResponseShape: 'data', recipientOrder: 'newest-first', ...LIST_MODEL_DEFAULTS, duplicateDeliveries: 1 },
  });
  expect(sb.baseUrl).toBe(`${sb.url}/api/v1`);
  expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

test('counters: per route, control calls never counted, reset over HTTP', async () => {
  expect((await ctl('POST', '/counters/reset')).status).toBe(204);
  const batchId = (await api.post('/batches', { title: 'C', designId: 'design_classic' })).body.id;
  await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: [{ name: 'A', email: 'a@example.com' }] });
  await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: [{ name: 'B', email: 'b@example.com' }] });
  await api.get('/nope');
  await api.get('/designs', { key: null });
  await fetch(`${sb.url}/v/whatever`);
  for (let i = 0; i < 3; i++) await ctl('GET', '/counters');

  const c = (await ctl('GET', '/counters')).body;
  expect(c.requests).toEqual({
    total: 5,
    byRoute: {
      'POST /batches': 1,
      'POST /batches/:id/recipients/bulk': 2,
      'GET (unmatched)': 1,
      'GET /designs': 1,
    },
  });
  expect(c).toMatchObject({ rateLimited: 0, quotaUsed: 2, certificatesIssued: 2, faultsInjected: 0 });
  expect(c.deliveries).toEqual({ attempted: 0, succeeded: 0, failed: 0, pending: 0 });
  expect(sb.controls.counters()).toEqual(c);
});

test('certificates(batchId): what a batch holds, in issue order, in-process and over HTTP', async () => {
  const batchId = (await api.post('/batches', { title: 'Certs', designId: 'design_classic' })).body.id;
  await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: [{ name: 'A', email: 'a@example.com' }, { name: 'B', email: 'b@example.com' }] });
  await api.post(`/batches/${batchId}/recipients`, { name: 'C', email: 'c@example.com' });
  expect(sb.controls.certificates(batchId).map((r) => r.email)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  const res = await ctl('GET', `/batches/${batchId}/certificates`);
  expect(res.status).toBe(200);
  expect(res.body.map((r: { email: string }) => r.email)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  expect(sb.controls.certificates('batch_none')).toEqual([]);
});

test('workspaces and keys over HTTP: quota, at most 10 active keys, expired keys', async () => {
  const created = await ctl('POST', '/workspaces', { username: 'Acme', quota: 3 });
  expect(created.status).toBe(201);
  const { workspaceId, apiKey } = created.body;
  expect(workspaceId).toMatch(/^ws_/);
  expect((await api.post('/auth', undefined, { key: apiKey })).body).toEqual({ workspaceId, username: 'Acme' });
  expect((await ctl('GET', `/workspaces/${workspaceId}/quota`)).body).toEqual({ quota: 3, used: 0, remaining: 3 });

  const expired = await ctl('POST', `/workspaces/${workspaceId}/api-keys`, { expired: true });
  expect(expired.status).toBe(201);
  expect((await api.post('/auth', undefined, { key: expired.body.apiKey })).body.error).toBe('EXPIRED_API_KEY');

  for (let i = 0; i < 9; i++) expect((await ctl('POST', `/workspaces/${workspaceId}/api-keys`)).status).toBe(201);
  const eleventh = await ctl('POST', `/workspaces/${workspaceId}/api-keys`);
  expect(eleventh.status).toBe(403);
  expect(eleventh.body).toMatchObject({ error: 'PLAN_LIMIT_EXCEEDED', detail: { limit: 10 } });
  expect(() => sb.controls.createApiKey(workspaceId)).toThrow(/at most 10/);

  expect((await ctl('POST', '/api-keys/expire', { apiKey })).status).toBe(204);
  expect((await api.post('/auth', undefined, { key: apiKey })).body.error).toBe('EXPIRED_API_KEY');
  expect((await ctl('POST', `/workspaces/${workspaceId}/api-keys`)).status).toBe(201); // a slot freed up

  expect((await ctl('POST', '/workspaces/ws_missing/api-keys')).status).toBe(404);
  expect((await ctl('POST', '/workspaces', { quota: -1 })).status).toBe(400);
});

test('settings over HTTP are validated', async () => {
  const ok = await ctl('PUT', '/settings', { bulkResponseShape: 'bare', duplicateDeliveries: 2, testDelivery: 'empty-array' });
  expect(ok.body).toEqual({ listShape: 'default', bulkResponseShape: 'bare', recipientOrder: 'newest-first', ...LIST_MODEL_DEFAULTS, testDelivery: 'empty-array', duplicateDeliveries: 2 });
  expect((await ctl('PUT', '/settings', { testDelivery: 'ping' })).body.detail.field).toBe('testDelivery');
  expect((await ctl('PUT', '/settings', { listShape: 'xml' })).body.detail.field).toBe('listShape');
  expect((await ctl('PUT', '/settings', { bulkResponseShape: 'csv' })).status).toBe(400);
  expect((await ctl('PUT', '/settings', { duplicateDeliveries: 0 })).status).toBe(400);
  expect((await ctl('PUT', '/settings', { recipientOrder: 'random' })).body.detail.field).toBe('recipientOrder');
  expect((await ctl('GET', '/nope')).status).toBe(404);
  await ctl('PUT', '/settings', { bulkResponseShape: 'data', duplicateDeliveries: 1, testDelivery: 'recipient' });
});

test('logs over HTTP: deliveries, events, subscriptions (with secrets, for inspection)', async () => {
  const rx = await startReceiver();
  try {
    const sub = (await api.post('/webhooks/subscriptions', { url: rx.url, events: ['certificate.issued'] })).body;
    const batchId = (await api.post('/batches', { title: 'L', designId: 'design_classic' })).body.id;
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'A', email: 'a@example.com' })).body;
    await sb.controls.waitForDeliveries((log) => log.some((d) => d.subscriptionId === sub.id));

    const subs = (await ctl('GET', '/subscriptions?workspaceId=ws_demo')).body;
    expect(subs).toEqual([expect.objectContaining({ id: sub.id, secret: sub.secret, previousSecret: null })]);
    const events = (await ctl('GET', '/events')).body;
    const issued = events.find((e: { recipientId: string }) => e.recipientId === r.id);
    expect(issued).toMatchObject({ type: 'certificate.issued', workspaceId: 'ws_demo', deliveryIds: [expect.stringMatching(/^whd_/)] });
    const deliveries = (await ctl('GET', '/deliveries')).body;
    expect(deliveries).toContainEqual(
      expect.objectContaining({ deliveryId: issued.deliveryIds[0], eventId: issued.id, url: rx.url, attempt: 1, status: 200, outcome: 'succeeded' }),
    );
    expect((await api.delete(`/webhooks/subscriptions/${sub.id}`)).status).toBe(204);
  } finally {
    await rx.close();
  }
});

test('reset(): back to the seeded state, pending work cancelled', async () => {
  const other = sb.controls.createWorkspace();
  const rx = await startReceiver(() => 500);
  try {
    await api.post('/webhooks/subscriptions', { url: rx.url, events: ['certificate.issued'] });
    const batchId = (await api.post('/batches', { title: 'Gone', designId: 'design_classic' })).body.id;
    await api.post(`/batches/${batchId}/recipients`, { name: 'A', email: 'a@example.com', send: true });
    sb.controls.setListShape('bare');
    sb.controls.injectFaults({ kind: '500', match: { path: '/nothing' } });
    sb.controls.setTestDelivery('empty-object');
    await rx.waitFor(1);

    expect((await ctl('POST', '/reset')).status).toBe(204);
    const received = rx.received.length;
    await new Promise((r) => setTimeout(r, 100)); // retries (6 ms, 30 ms) would have landed by now
    expect(rx.received.length).toBe(received);

    expect(sb.controls.settings()).toEqual({ listShape: 'default', bulkResponseShape: 'data', recipientOrder: 'newest-first', ...LIST_MODEL_DEFAULTS, testDelivery: 'recipient', duplicateDeliveries: 1 });
    expect(sb.controls.faults()).toEqual([]);
    expect(sb.controls.deliveries()).toEqual([]);
    expect(sb.controls.events()).toEqual([]);
    expect(sb.controls.counters().deliveries.pending).toBe(0);
    expect(sb.controls.quota()).toEqual({ quota: 10_000, used: 0, remaining: 10_000 });
    expect((await api.get('/batches?status=all')).body).toEqual({ data: [], nextCursor: null, hasMore: false });
    expect((await api.get('/webhooks/subscriptions')).body.data).toEqual([]);
    expect((await api.get(`/batches/${batchId}`)).status).toBe(404);
    expect((await api.post('/auth', undefined, { key: other.apiKey })).body.error).toBe('INVALID_API_KEY');
    expect((await api.post('/auth')).status).toBe(200);
  } finally {
    await rx.close();
  }
});

test('seed: false starts empty; workspaces can still be created', async () => {
  const empty = await createSandbox({ seed: false });
  try {
    expect(empty.apiKey).toBeNull();
    expect(empty.workspace).toBeNull();
    const e = new Api(empty.baseUrl, DEMO_API_KEY);
    expect((await e.post('/auth')).body.error).toBe('INVALID_API_KEY');
    const ws = empty.controls.createWorkspace();
    expect((await e.as(ws.apiKey).get('/designs')).body.data).toHaveLength(3);
  } finally {
    await empty.close();
  }
});

test('bad start options are refused', async () => {
  await expect(createSandbox({ listShape: 'xml' as ListShape })).rejects.toThrow(/listShape/);
  await expect(createSandbox({ timeScale: 0 })).rejects.toThrow(/timeScale/);
  await expect(createSandbox({ rateLimit: { limit: 0, windowMs: 1000 } })).rejects.toThrow(/rateLimit/);
});

test('close() is quick with deliveries in flight, idempotent, and really stops the server', async () => {
  const other = await createSandbox({ timeScale: 0.0001 });
  const rx = await startReceiver(() => 'hang');
  try {
    const o = new Api(other.baseUrl, other.apiKey);
    await o.post('/webhooks/subscriptions', { url: rx.url, events: ['certificate.issued'] });
    const batchId = (await o.post('/batches', { title: 'X', designId: 'design_classic' })).body.id;
    await o.post(`/batches/${batchId}/recipients`, { name: 'A', email: 'a@example.com', send: true });
    await rx.waitFor(1);
    const started = Date.now();
    await Promise.all([other.close(), other.close()]);
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(o.get('/designs')).rejects.toThrow();
  } finally {
    await rx.close();
  }
});
