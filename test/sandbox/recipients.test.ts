// Recipients: issue one and bulk, fields, validation, update/delete/send, lookups,
// the mail rule and the public viewer.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { until } from '../support/until';

let sb: Sandbox;
let api: Api;

beforeAll(async () => {
  // Long enough that a second request lands while the first email is still queued.
  sb = await createSandbox({ rateLimit: false, mailDelayMs: 200 });
});
beforeEach(() => {
  api = new Api(sb.baseUrl, sb.controls.createWorkspace().apiKey);
  sb.controls.setBulkResponseShape('data');
});
afterAll(() => sb.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RECIPIENT_FIELDS = [
  'batchId', 'certUrl', 'certificateId', 'createdAt', 'data', 'email', 'emailSentAt',
  'emailStatus', 'expiryDate', 'id', 'issueDate', 'name', 'shareToken',
];

async function newBatch(): Promise<string> {
  return (await api.post('/batches', { title: 'Cohort', designId: 'design_classic' })).body.id;
}

async function count(batchId: string): Promise<number> {
  return (await api.get(`/batches/${batchId}/recipients?limit=100`)).body.data.length;
}

async function settled(batchId: string, id: string) {
  return until(`certificate ${id} to leave 'queued'`, async () => {
    const r = (await api.get(`/batches/${batchId}/recipients/${id}`)).body;
    return r.emailStatus === 'queued' ? null : r;
  }, 3_000, 10);
}

describe('issue one', () => {
  test('201 with exactly the spec fields', async () => {
    const batchId = await newBatch();
    const res = await api.post(`/batches/${batchId}/recipients`, { name: 'Ada', email: 'ada@example.com', data: { score: '97' } });
    expect(res.status).toBe(201);
    const r = res.body;
    expect(Object.keys(r).sort()).toEqual(RECIPIENT_FIELDS);
    expect(r).toMatchObject({ batchId, name: 'Ada', email: 'ada@example.com', data: { score: '97' } });
    expect(r.id).toMatch(/^rec_[0-9a-f]+$/);
    expect(r.certificateId).toMatch(/^CERT-\d{4}-\d+-\d+$/);
    expect(r.certificateId.slice(5, 9)).toBe(String(new Date().getUTCFullYear()));
    expect(r.shareToken).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(r.certUrl).toBe(`${sb.url}/v/${r.shareToken}`);
    expect(r.issueDate).toMatch(ISO);
    expect(r.createdAt).toMatch(ISO);
    expect(r.expiryDate).toBeNull();
    expect(r.emailStatus).toBe('not_sent');
    expect(r.emailSentAt).toBeNull();
    expect((await api.get(`/batches/${batchId}/recipients/${r.id}`)).body).toEqual(r);
  });

  test.each([
    [{ email: 'a@example.com' }, 'name'],
    [{ name: '', email: 'a@example.com' }, 'name'],
    [{ name: 'A' }, 'email'],
    [{ name: 'A', email: 'not-an-email' }, 'email'],
    [{ name: 'A', email: 'a@example.com', data: 'x' }, 'data'],
    [{ name: 'A', email: 'a@example.com', data: ['x'] }, 'data'],
    [{ name: 'A', email: 'a@example.com', data: { score: 97 } }, 'data.score'],
    [{ name: 'A', email: 'a@example.com', data: { ok: 'y', nested: { a: 'b' } } }, 'data.nested'],
    [{ name: 'A', email: 'a@example.com', send: 'yes' }, 'send'],
  ])('%j -> 400 field %s, nothing issued', async (body, field) => {
    const batchId = await newBatch();
    const res = await api.post(`/batches/${batchId}/recipients`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', detail: { field } });
    expect(await count(batchId)).toBe(0);
  });

  test('unknown batch -> 404; archived batch -> 409 BATCH_ARCHIVED, nothing issued', async () => {
    expect((await api.post('/batches/batch_missing/recipients', { name: 'A', email: 'a@example.com' })).status).toBe(404);
    const batchId = await newBatch();
    await api.post(`/batches/${batchId}/archive`);
    const res = await api.post(`/batches/${batchId}/recipients`, { name: 'A', email: 'a@example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'BATCH_ARCHIVED', detail: { batchId } });
    const bulk = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: [{ name: 'A', email: 'a@example.com' }] });
    expect(bulk.status).toBe(409);
    expect(bulk.body.error).toBe('BATCH_ARCHIVED');
    await api.post(`/batches/${batchId}/unarchive`);
    expect(await count(batchId)).toBe(0);
  });
});

describe('bulk issue', () => {
  const people = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `P${i}`, email: `p${i}@example.com`, data: { i: String(i) } }));

  test('201 { data } in input order, unique certificate IDs', async () => {
    const batchId = await newBatch();
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(100) });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data.map((r: { name: string }) => r.name)).toEqual(people(100).map((p) => p.name));
    expect(new Set(res.body.data.map((r: { certificateId: string }) => r.certificateId)).size).toBe(100);
    expect(new Set(res.body.data.map((r: { shareToken: string }) => r.shareToken)).size).toBe(100);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(RECIPIENT_FIELDS);
    expect(await count(batchId)).toBe(100);
  });

  test('all-or-nothing: one invalid item rejects the call, names its index', async () => {
    const batchId = await newBatch();
    const list = people(5);
    list[3] = { ...list[3], email: 'broken' };
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: list });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', detail: { field: 'recipients[3].email', index: 3 } });
    expect(await count(batchId)).toBe(0);
    const notObject = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: [people(1)[0], 'x'] });
    expect(notObject.body.detail).toEqual({ field: 'recipients[1]', index: 1 });
  });

  test.each([
    [{}, 'recipients'],
    [{ recipients: [] }, 'recipients'],
    [{ recipients: 'x' }, 'recipients'],
    [{ recipients: people(101) }, 'recipients'],
    [{ recipients: people(1), send: 1 }, 'send'],
  ])('%#: bad body -> 400 field %s', async (body, field) => {
    const batchId = await newBatch();
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, body);
    expect(res.status).toBe(400);
    expect(res.body.detail.field).toBe(field);
    expect(await count(batchId)).toBe(0);
  });

  test('response shapes: bare and recipients', async () => {
    const batchId = await newBatch();
    sb.controls.setBulkResponseShape('bare');
    const bare = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(2) });
    expect(bare.status).toBe(201);
    expect(Array.isArray(bare.body)).toBe(true);
    expect(bare.body).toHaveLength(2);
    sb.controls.setBulkResponseShape('recipients');
    const wrapped = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(2) });
    expect(Object.keys(wrapped.body)).toEqual(['recipients']);
    expect(wrapped.body.recipients[1].name).toBe('P1');
  });

  test("response shape 'results': partial success, per-item errors", async () => {
    const batchId = await newBatch();
    sb.controls.setBulkResponseShape('results');
    const list: unknown[] = people(4);
    list[1] = { name: 'Bad', email: 'nope' };
    list[2] = { name: '', email: 'x@example.com' };
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: list });
    expect(res.status).toBe(207);
    const results = res.body.results;
    expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3]);
    expect(results[0].recipient.name).toBe('P0');
    expect(results[3].recipient.name).toBe('P3');
    expect(results[1].error).toEqual({ error: 'VALIDATION_ERROR', message: expect.any(String), detail: { field: 'recipients[1].email', index: 1 } });
    expect(results[2].error.detail.field).toBe('recipients[2].name');
    expect(await count(batchId)).toBe(2);

    const allGood = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients: people(2) });
    expect(allGood.status).toBe(201);
    expect(allGood.body.results.every((r: { recipient?: unknown }) => r.recipient)).toBe(true);
  });
});

describe('get, update, delete, send', () => {
  test('PATCH updates name/email and merges data keys (null removes one)', async () => {
    const batchId = await newBatch();
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ann', email: 'ann@example.com', data: { a: '1', b: '2' } })).body;
    const res = await api.patch(`/batches/${batchId}/recipients/${r.id}`, { name: 'Anne', data: { b: null, c: '3' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...r, name: 'Anne', data: { a: '1', c: '3' } });
    expect((await api.patch(`/batches/${batchId}/recipients/${r.id}`, { email: 'anne@example.com' })).body.email).toBe('anne@example.com');
  });

  test.each([
    [{}, 'body'],
    [{ name: '' }, 'name'],
    [{ email: 'x' }, 'email'],
    [{ data: { a: 1 } }, 'data.a'],
    [{ name: 'OK', data: 'x' }, 'data'],
  ])('PATCH %j -> 400 field %s and nothing changes', async (body, field) => {
    const batchId = await newBatch();
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ann', email: 'ann@example.com' })).body;
    const res = await api.patch(`/batches/${batchId}/recipients/${r.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.detail.field).toBe(field);
    expect((await api.get(`/batches/${batchId}/recipients/${r.id}`)).body).toEqual(r);
  });

  test('DELETE -> 204 with an empty body; the recipient and its lookups are gone', async () => {
    const batchId = await newBatch();
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ann', email: 'ann@example.com' })).body;
    const res = await api.delete(`/batches/${batchId}/recipients/${r.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(`/batches/${batchId}/recipients/${r.id}`)).status).toBe(404);
    expect((await api.get(`/certificates/${r.certificateId}`)).status).toBe(404);
    expect((await api.get(`/certificates/by-token/${r.shareToken}`)).status).toBe(404);
    expect((await api.delete(`/batches/${batchId}/recipients/${r.id}`)).status).toBe(404);
    expect((await api.patch(`/batches/${batchId}/recipients/${r.id}`, { name: 'x' })).status).toBe(404);
  });

  test('a recipient is only reachable through its own batch', async () => {
    const a = await newBatch();
    const b = await newBatch();
    const r = (await api.post(`/batches/${a}/recipients`, { name: 'Ann', email: 'ann@example.com' })).body;
    const res = await api.get(`/batches/${b}/recipients/${r.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
  });

  test('send -> 202 queued, then sent with emailSentAt; send while queued -> 409 CONFLICT', async () => {
    const batchId = await newBatch();
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ann', email: 'ann@example.com' })).body;
    const res = await api.post(`/batches/${batchId}/recipients/${r.id}/send`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: r.id, emailStatus: 'queued', emailSentAt: null });
    const again = await api.post(`/batches/${batchId}/recipients/${r.id}/send`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('CONFLICT');
    const done = await settled(batchId, r.id);
    expect(done.emailStatus).toBe('sent');
    expect(done.emailSentAt).toMatch(ISO);
    expect((await api.post(`/batches/${batchId}/recipients/${r.id}/send`)).status).toBe(202); // resend is allowed
    expect((await api.post(`/batches/${batchId}/recipients/rec_missing/send`)).status).toBe(404);
  });
});

describe('mail rule and emailStatus filter', () => {
  test('@bounce.test fails, other addresses are sent; not asked = not_sent', async () => {
    const batchId = await newBatch();
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, {
      send: true,
      recipients: [
        { name: 'Ok', email: 'ok@example.com' },
        { name: 'Bounce', email: 'someone@BOUNCE.test' },
      ],
    });
    expect(res.body.data.map((r: { emailStatus: string }) => r.emailStatus)).toEqual(['queued', 'queued']);
    const quiet = (await api.post(`/batches/${batchId}/recipients`, { name: 'Quiet', email: 'q@example.com' })).body;
    const [ok, bounce] = res.body.data;
    expect((await settled(batchId, ok.id)).emailStatus).toBe('sent');
    const failed = await settled(batchId, bounce.id);
    expect(failed.emailStatus).toBe('failed');
    expect(failed.emailSentAt).toBeNull();

    const names = async (status: string) =>
      (await api.get(`/batches/${batchId}/recipients?emailStatus=${status}`)).body.data.map((r: { name: string }) => r.name);
    expect(await names('sent')).toEqual(['Ok']);
    expect(await names('failed')).toEqual(['Bounce']);
    expect(await names('not_sent')).toEqual([quiet.name]);
    expect(await names('queued')).toEqual([]);
    const bad = await api.get(`/batches/${batchId}/recipients?emailStatus=delivered`);
    expect(bad.status).toBe(400);
    expect(bad.body.detail.field).toBe('emailStatus');
    expect((await api.get('/batches/batch_missing/recipients')).status).toBe(404);
  });
});

describe('lookups and the public viewer', () => {
  test('by certificate ID and by share token; unknown -> 404', async () => {
    const batchId = await newBatch();
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ann', email: 'ann@example.com' })).body;
    expect((await api.get(`/certificates/${r.certificateId}`)).body).toEqual(r);
    expect((await api.get(`/certificates/by-token/${r.shareToken}`)).body).toEqual(r);
    const missing = await api.get('/certificates/CERT-2020-000000-0000');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('NOT_FOUND');
    expect((await api.get('/certificates/by-token/nope')).status).toBe(404);
  });

  test('GET /v/<token> is public HTML with the name, certificate ID and dates', async () => {
    const batchId = await newBatch();
    const r = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ada <Lovelace>', email: 'ada@example.com' })).body;
    const res = await fetch(r.certUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    const html = await res.text();
    expect(html).toContain('Ada &#60;Lovelace&#62;');
    expect(html).toContain(r.certificateId);
    expect(html).toContain(r.issueDate);
    expect((await fetch(`${sb.url}/v/unknown-token`)).status).toBe(404);
  });
});
