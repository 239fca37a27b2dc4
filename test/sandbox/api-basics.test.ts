// Auth, the error envelope, body parsing, routing and workspace isolation.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api, type ApiResponse } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let api: Api;

beforeAll(async () => {
  sb = await createSandbox();
  api = new Api(sb.baseUrl, sb.apiKey);
});
afterAll(() => sb.close());

function expectError(res: ApiResponse, status: number, code: string, field?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: code, message: expect.any(String), detail: expect.any(Object) });
  expect(res.body.message.length).toBeGreaterThan(10);
  if (field !== undefined) expect(res.body.detail.field).toBe(field);
}

function expectRateLimitHeaders(res: ApiResponse) {
  expect(res.headers.get('ratelimit-limit')).toBe('120');
  expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

describe('authentication', () => {
  test('POST /auth returns the workspace of the key', async () => {
    const res = await api.post('/auth');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ workspaceId: 'ws_demo', username: 'Demo Workspace' });
    expect(sb.apiKey).toBe('sk_live_sandbox_demo_key_0001');
    expectRateLimitHeaders(res);
  });

  test('no key -> 401 MISSING_API_KEY (with RateLimit headers)', async () => {
    const res = await api.post('/auth', undefined, { key: null });
    expectError(res, 401, 'MISSING_API_KEY');
    expectRateLimitHeaders(res);
    expectError(await api.get('/batches', { key: null, headers: { Authorization: 'Bearer ' } }), 401, 'MISSING_API_KEY');
  });

  test('unknown key or wrong scheme -> 401 INVALID_API_KEY', async () => {
    expectError(await api.post('/auth', undefined, { key: 'sk_live_sandbox_nope' }), 401, 'INVALID_API_KEY');
    const basic = await api.get('/batches', { key: null, headers: { Authorization: `Basic ${sb.apiKey}` } });
    expectError(basic, 401, 'INVALID_API_KEY');
  });

  test('expired key -> 401 EXPIRED_API_KEY', async () => {
    const { apiKey } = sb.controls.createApiKey('ws_demo', { expired: true });
    expectError(await api.post('/auth', undefined, { key: apiKey }), 401, 'EXPIRED_API_KEY');

    const fresh = sb.controls.createApiKey('ws_demo');
    expect((await api.post('/auth', undefined, { key: fresh.apiKey })).status).toBe(200);
    sb.controls.expireApiKey(fresh.apiKey);
    expectError(await api.post('/auth', undefined, { key: fresh.apiKey }), 401, 'EXPIRED_API_KEY');
  });

  test('auth is checked on every endpoint, before routing', async () => {
    for (const path of ['/batches', '/designs', '/webhooks/subscriptions', '/certificates/CERT-2025-000001-0001', '/nope']) {
      expectError(await api.get(path, { key: null }), 401, 'MISSING_API_KEY');
    }
  });
});

describe('routing and the error envelope', () => {
  test('unknown route -> 404 NOT_FOUND, inside and outside /api/v1', async () => {
    expectError(await api.get('/nope'), 404, 'NOT_FOUND');
    expectError(await api.call('DELETE', '/batches'), 404, 'NOT_FOUND');
    const outside = await fetch(`${sb.url}/api/v2/batches`);
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { error: string }).error).toBe('NOT_FOUND');
  });

  test('every response has RateLimit headers, success or error', async () => {
    expectRateLimitHeaders(await api.get('/designs'));
    expectRateLimitHeaders(await api.get('/batches/batch_missing'));
    expectRateLimitHeaders(await api.post('/batches', {}));
  });
});

describe('request bodies', () => {
  test('malformed JSON with a JSON content type -> 400 VALIDATION_ERROR field body', async () => {
    const res = await api.post('/batches', undefined, { raw: '{"title": ', headers: { 'Content-Type': 'application/json' } });
    expectError(res, 400, 'VALIDATION_ERROR', 'body');
  });

  test('JSON sent without a JSON content type (fetch sends text/plain) is accepted', async () => {
    const res = await api.post('/batches', undefined, { raw: JSON.stringify({ title: 'No CT', designId: 'design_classic' }) });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('No CT');
  });

  test('a non-JSON body with another content type -> 415 VALIDATION_ERROR with a clear message', async () => {
    const res = await api.post('/batches', undefined, { raw: 'title=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expectError(res, 415, 'VALIDATION_ERROR', 'body');
    expect(res.body.message).toMatch(/application\/json/);
  });

  test('a JSON body that is not an object -> 400 field body', async () => {
    expectError(await api.post('/batches', [1, 2]), 400, 'VALIDATION_ERROR', 'body');
    expectError(await api.post('/batches', 'title'), 400, 'VALIDATION_ERROR', 'body');
  });
});

describe('workspace isolation', () => {
  test('a key sees only its own workspace', async () => {
    const other = sb.controls.createWorkspace({ username: 'Other' });
    const b = api.as(other.apiKey);
    expect((await b.post('/auth')).body).toEqual({ workspaceId: other.workspaceId, username: 'Other' });

    const batch = (await api.post('/batches', { title: 'Mine', designId: 'design_classic' })).body;
    const rec = (await api.post(`/batches/${batch.id}/recipients`, { name: 'Ann', email: 'ann@example.com' })).body;
    const sub = (await api.post('/webhooks/subscriptions', { url: 'http://127.0.0.1:9/hook', events: ['certificate.sent'] })).body;

    expectError(await b.get(`/batches/${batch.id}`), 404, 'NOT_FOUND');
    expectError(await b.post(`/batches/${batch.id}/archive`), 404, 'NOT_FOUND');
    expectError(await b.post(`/batches/${batch.id}/recipients`, { name: 'X', email: 'x@example.com' }), 404, 'NOT_FOUND');
    expectError(await b.get(`/batches/${batch.id}/recipients/${rec.id}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/certificates/${rec.certificateId}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/certificates/by-token/${rec.shareToken}`), 404, 'NOT_FOUND');
    expectError(await b.get(`/webhooks/subscriptions/${sub.id}`), 404, 'NOT_FOUND');
    expectError(await b.delete(`/webhooks/subscriptions/${sub.id}`), 404, 'NOT_FOUND');
    expect((await b.get('/batches?status=all')).body.data).toEqual([]);
    expect((await b.get('/webhooks/subscriptions')).body.data).toEqual([]);

    // ...and the owner still sees everything.
    expect((await api.get(`/certificates/${rec.certificateId}`)).body.id).toBe(rec.id);
    expect((await api.get(`/webhooks/subscriptions/${sub.id}`)).status).toBe(200);
    expect(sb.controls.quota(other.workspaceId).used).toBe(0);
    expect((await api.delete(`/webhooks/subscriptions/${sub.id}`)).status).toBe(204);
  });
});
