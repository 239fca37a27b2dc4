// Plan quota (exact, all-or-nothing, rejected requests cost nothing) and the per-key
// fixed-window rate limit (headers, 429 + Retry-After, no state change).
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api, sleep } from '@certificate-service/sandbox/testing';

describe('quota', () => {
  let sb: Sandbox;
  let api: Api;
  let workspaceId: string;
  let batchId: string;

  beforeAll(async () => {
    sb = await createSandbox({ rateLimit: false });
  });
  beforeEach(async () => {
    const ws = sb.controls.createWorkspace({ quota: 5 });
    workspaceId = ws.workspaceId;
    api = new Api(sb.baseUrl, ws.apiKey);
    batchId = (await api.post('/batches', { title: 'Q', designId: 'design_classic' })).body.id;
    sb.controls.setBulkResponseShape('data');
  });
  afterAll(() => sb.close());

  const people = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `P${i}`, email: `p${i}@example.com` }));
  const issued = async () => (await api.get(`/batches/${batchId}/recipients?limit=100`)).body.data.length;

  test('one unit per certificate; a request larger than the rest -> 402 QUOTA_EXCEEDED, nothing issued', async () => {
    sb.controls.resetCounters();
    expect((await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(3) })).status).toBe(201);
    expect(sb.controls.quota(workspaceId)).toEqual({ quota: 5, used: 3, remaining: 2 });

    const over = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(3) });
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ error: 'QUOTA_EXCEEDED', detail: { quota: 5, used: 3, remaining: 2, requested: 3 } });
    expect(await issued()).toBe(3);
    expect(sb.controls.quota(workspaceId).used).toBe(3);

    expect((await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(2) })).status).toBe(201);
    const last = await api.post(`/batches/${batchId}/recipients`, { name: 'One more', email: 'x@example.com' });
    expect(last.status).toBe(402);
    expect(last.body.detail.remaining).toBe(0);
    expect(await issued()).toBe(5);
    expect(sb.controls.counters()).toMatchObject({ quotaUsed: 5, certificatesIssued: 5 });
  });

  test('rejected requests, lookups, lists, updates and deletes use no quota', async () => {
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'A', email: 'a@example.com' })).body;
    const bad = people(4);
    bad[2].email = 'nope';
    expect((await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: bad })).status).toBe(400);
    expect((await api.post(`/batches/${batchId}/recipients`, { name: '', email: 'a@example.com' })).status).toBe(400);
    expect((await api.post('/batches/batch_missing/recipients', { name: 'A', email: 'a@example.com' })).status).toBe(404);
    const archived = (await api.post('/batches', { title: 'Old', designId: 'design_classic' })).body.id;
    await api.post(`/batches/${archived}/archive`);
    expect((await api.post(`/batches/${archived}/recipients`, { name: 'A', email: 'a@example.com' })).status).toBe(409);
    await api.get(`/batches/${batchId}/recipients`);
    await api.get(`/certificates/${r.certificateId}`);
    await api.patch(`/batches/${batchId}/recipients/${r.id}`, { name: 'B' });
    await api.post(`/batches/${batchId}/recipients/${r.id}/send`);
    await api.delete(`/batches/${batchId}/recipients/${r.id}`); // deleting does not refund either
    expect(sb.controls.quota(workspaceId)).toEqual({ quota: 5, used: 1, remaining: 4 });
  });

  test("partial-success bulk ('results') counts only the valid items against quota", async () => {
    sb.controls.setBulkResponseShape('results');
    const list: unknown[] = people(6);
    list[0] = { name: 'bad', email: 'bad' };
    // 5 valid items fit exactly in the quota of 5.
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: list });
    expect(res.status).toBe(207);
    expect(sb.controls.quota(workspaceId).remaining).toBe(0);
    const more = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(1) });
    expect(more.status).toBe(402);
  });

  test('with rateLimit: false there are no RateLimit headers and no 429', async () => {
    const res = await api.get('/designs');
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('rate limit', () => {
  const LIMIT = 5;
  const WINDOW_MS = 2000;
  let sb: Sandbox;
  let api: Api;

  beforeAll(async () => {
    sb = await createSandbox({ rateLimit: { limit: LIMIT, windowMs: WINDOW_MS } });
  });
  beforeEach(() => {
    api = new Api(sb.baseUrl, sb.controls.createWorkspace().apiKey);
    sb.controls.resetCounters();
  });
  afterAll(() => sb.close());

  test('counts down, then 429 RATE_LIMITED with Retry-After; a 429 changes nothing; the window resets', async () => {
    for (let i = 1; i <= LIMIT; i++) {
      const res = await api.get('/designs');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      expect(res.headers.get('ratelimit-remaining')).toBe(String(LIMIT - i));
      expect(['1', '2']).toContain(res.headers.get('ratelimit-reset'));
    }
    const limited = await api.post('/batches', { title: 'Should not exist', designId: 'design_classic' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'RATE_LIMITED', detail: { limit: LIMIT } });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect([1, 2]).toContain(retryAfter);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    expect((await api.get('/designs')).status).toBe(429);
    expect(sb.controls.counters().rateLimited).toBe(2);

    // Another key has its own window.
    expect((await api.as(sb.apiKey).get('/designs')).status).toBe(200);

    // Control calls are neither limited nor counted.
    const ctl = await fetch(`${sb.url}/__sandbox/counters`);
    expect(ctl.status).toBe(200);
    expect(ctl.headers.get('ratelimit-limit')).toBeNull();

    await sleep(retryAfter * 1000 + 50);
    const after = await api.get('/batches?status=all');
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
    expect(after.body.data).toEqual([]); // the rate-limited POST created nothing
  });

  test('unauthenticated requests do not use up a key', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await api.get('/designs', { key: null });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(LIMIT));
    }
    expect((await api.get('/designs')).headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
  });

  test('counters see every request, including the limited ones', async () => {
    for (let i = 0; i < LIMIT + 3; i++) await api.get('/designs');
    const c = sb.controls.counters();
    expect(c.requests.total).toBe(LIMIT + 3);
    expect(c.requests.byRoute).toEqual({ 'GET /designs': LIMIT + 3 });
    expect(c.rateLimited).toBe(3);
  });
});
