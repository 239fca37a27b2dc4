// Injected faults: what the client sees, and whether state was committed.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api, type ApiResponse } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let api: Api;
let workspaceId: string;

beforeAll(async () => {
  sb = await createSandbox();
});
beforeEach(() => {
  sb.controls.clearFaults();
  sb.controls.resetCounters();
  const ws = sb.controls.createWorkspace();
  workspaceId = ws.workspaceId;
  api = new Api(sb.baseUrl, ws.apiKey);
});
afterAll(() => sb.close());

async function batches(): Promise<string[]> {
  return (await api.get('/batches?status=all')).body.data.map((b: { title: string }) => b.title);
}

/** The request must fail at the socket level: no HTTP response at all. */
async function expectSocketError(p: Promise<ApiResponse>) {
  const err = await p.then(
    (res) => new Error(`expected a socket error, got HTTP ${res.status}`),
    (e: unknown) => e,
  );
  // fetch's TypeError comes from another realm under jest, so compare by name.
  expect((err as Error).name).toBe('TypeError');
  expect((err as Error).message).toBe('fetch failed');
  expect(String((err as { cause?: unknown }).cause)).toMatch(/closed|reset|socket|terminated/i);
}

test("'500' answers with the error envelope and changes nothing", async () => {
  sb.controls.injectFaults({ kind: '500', match: { method: 'POST', path: '/batches' } });
  const res = await api.post('/batches', { title: 'A', designId: 'design_classic' });
  expect(res.status).toBe(500);
  expect(res.body).toMatchObject({ error: 'INTERNAL_ERROR', detail: { injected: true } });
  expect(res.headers.get('ratelimit-limit')).toBe('120');
  expect(await batches()).toEqual([]);
  expect((await api.post('/batches', { title: 'B', designId: 'design_classic' })).status).toBe(201); // count 1: used up
  expect(sb.controls.faults()).toEqual([]);
});

test("'502' answers like a gateway: HTML, not JSON", async () => {
  sb.controls.injectFaults({ kind: '502' });
  const res = await api.get('/designs');
  expect(res.status).toBe(502);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  expect(res.text).toContain('Bad Gateway');
});

test("'429' answers RATE_LIMITED with the given Retry-After, and changes nothing", async () => {
  sb.controls.injectFaults({ kind: '429', retryAfterSeconds: 7, count: 2 });
  for (let i = 0; i < 2; i++) {
    const res = await api.post('/batches', { title: 'A', designId: 'design_classic' });
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('RATE_LIMITED');
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
  }
  expect(await batches()).toEqual([]);
  expect(sb.controls.counters()).toMatchObject({ faultsInjected: 2 });
});

test("'delay' holds the request, then processes it normally", async () => {
  sb.controls.injectFaults({ kind: 'delay', delayMs: 300, match: { path: '/designs' } });
  const started = Date.now();
  const res = await api.get('/designs');
  expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  expect(res.status).toBe(200);
  const quick = Date.now();
  await api.get('/designs');
  expect(Date.now() - quick).toBeLessThan(250);
});

test("'delay': a request whose client left during the delay is still processed, as a service finishes what it received", async () => {
  const batchId = (await api.post('/batches', { title: 'D', designId: 'design_classic' })).body.id;
  sb.controls.injectFaults({ kind: 'delay', delayMs: 400, match: { method: 'POST', path: '^/batches/[^/]+/recipients/bulk$' } });
  const recipients = [0, 1, 2].map((i) => ({ name: `Left ${i}`, email: `left${i}@example.com` }));
  const abandoned = new AbortController();
  const sent = fetch(`${sb.baseUrl}/batches/${batchId}/recipients/bulk`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipients }),
    signal: abandoned.signal,
  }).catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 100));
  abandoned.abort(); // the client leaves while the request is held
  expect(await sent).toMatchObject({ name: 'AbortError' });
  expect((await api.get(`/batches/${batchId}/recipients`)).body.data).toHaveLength(0); // not yet
  await new Promise((r) => setTimeout(r, 500));
  expect((await api.get(`/batches/${batchId}/recipients`)).body.data.map((r: { email: string }) => r.email).sort()).toEqual(recipients.map((r) => r.email));
  expect(sb.controls.quota(workspaceId).used).toBe(3);
});

test("'reset-after-commit': the client sees a socket error but the certificate WAS issued", async () => {
  const batchId = (await api.post('/batches', { title: 'R', designId: 'design_classic' })).body.id;
  sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: '^/batches/[^/]+/recipients$' } });
  await expectSocketError(api.post(`/batches/${batchId}/recipients`, { name: 'Ghost', email: 'ghost@example.com' }));

  const list = (await api.get(`/batches/${batchId}/recipients`)).body.data;
  expect(list.map((r: { name: string }) => r.name)).toEqual(['Ghost']);
  expect(sb.controls.quota(workspaceId).used).toBe(1);
  expect(sb.controls.events().filter((e) => e.recipientId === list[0].id).map((e) => e.type)).toEqual(['certificate.issued']);
  // A naive retry issues a second certificate: exactly what client idempotency must prevent.
  expect((await api.post(`/batches/${batchId}/recipients`, { name: 'Ghost', email: 'ghost@example.com' })).status).toBe(201);
  expect(sb.controls.quota(workspaceId).used).toBe(2);
});

test("'reset-after-commit' applies to error outcomes too (an archive retried gets CONFLICT)", async () => {
  const batchId = (await api.post('/batches', { title: 'R', designId: 'design_classic' })).body.id;
  sb.controls.injectFaults({ kind: 'reset-after-commit', match: { path: `/batches/${batchId}/archive` } });
  await expectSocketError(api.post(`/batches/${batchId}/archive`));
  expect((await api.get(`/batches/${batchId}`)).body.status).toBe('archived');
  expect((await api.post(`/batches/${batchId}/archive`)).status).toBe(409);
});

test("'reset-before-commit': a socket error and nothing committed", async () => {
  sb.controls.injectFaults({ kind: 'reset-before-commit', match: { method: 'POST' } });
  await expectSocketError(api.post('/batches', { title: 'Lost', designId: 'design_classic' }));
  expect(await batches()).toEqual([]);
});

test('every: N fires on every Nth matching request, count times', async () => {
  sb.controls.injectFaults({ kind: '500', every: 3, count: 2, match: { method: 'GET', path: '^/designs$' } });
  const statuses: number[] = [];
  for (let i = 0; i < 9; i++) statuses.push((await api.get('/designs')).status);
  await api.get('/batches'); // does not match, does not count
  expect(statuses).toEqual([200, 200, 500, 200, 200, 500, 200, 200, 200]);
});

test('match by method and path prefix; count -1 lasts until cleared', async () => {
  sb.controls.injectFaults({ kind: '500', count: -1, match: { method: 'GET', path: '/batches' } });
  expect((await api.get('/batches')).status).toBe(500);
  expect((await api.get('/batches/batch_x/recipients')).status).toBe(500);
  expect((await api.get('/designs')).status).toBe(200);
  expect((await api.post('/batches', { title: 'ok', designId: 'design_classic' })).status).toBe(201);
  expect(sb.controls.faults()).toEqual([expect.objectContaining({ kind: '500', remaining: null, fired: 2 })]);
  sb.controls.clearFaults();
  sb.controls.resetCounters();
  expect((await api.get('/batches')).status).toBe(200);
});

test('faults over HTTP: POST, GET, DELETE /__sandbox/faults', async () => {
  const ctl = (method: string, body?: unknown) =>
    fetch(`${sb.url}/__sandbox/faults`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const created = await ctl('POST', { kind: '502', match: { path: '/designs' } });
  expect(created.status).toBe(201);
  expect(await created.json()).toMatchObject({ kind: '502', remaining: 1 });
  expect(await (await ctl('GET')).json()).toHaveLength(1);
  expect((await ctl('DELETE')).status).toBe(204);
  expect((await api.get('/designs')).status).toBe(200);

  const bad = await ctl('POST', { kind: 'explode' });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ error: 'VALIDATION_ERROR', detail: { field: 'kind' } });
  expect((await ctl('POST', { kind: '500', match: { path: '^([' } })).status).toBe(400);
});
