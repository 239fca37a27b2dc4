// Design variables (our choice of shape, see seed.ts): required ones are enforced on
// issue, bulk issue (both response modes) and on an update that blanks them.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let api: Api;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
});
beforeEach(() => {
  api = new Api(sb.baseUrl, sb.controls.createWorkspace().apiKey);
  sb.controls.setBulkResponseShape('data');
});
afterAll(() => sb.close());

const batchOf = async (designId: string): Promise<string> => (await api.post('/batches', { title: 'Cohort', designId })).body.id;

test('GET /designs lists each design\'s variables (Modern none)', async () => {
  const designs = (await api.get('/designs')).body.data as Array<{ id: string; variables?: unknown }>;
  expect(designs.find((d) => d.id === 'design_minimal')?.variables).toEqual([
    { name: 'course', label: 'Course', required: true },
    { name: 'completedOn', label: 'Completed On', required: false },
  ]);
  expect(designs.find((d) => d.id === 'design_modern')).not.toHaveProperty('variables');
});

test.each([
  ['absent', {}],
  ['blank', { course: '   ' }],
])('issue with the required variable %s: 400 VALIDATION_ERROR on data.course, nothing issued', async (_n, data) => {
  const batchId = await batchOf('design_minimal');
  const res = await api.post(`/batches/${batchId}/recipients`, { name: 'Ada', email: 'ada@example.com', data });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', detail: { field: 'data.course' } });
  expect(sb.controls.certificates(batchId)).toHaveLength(0);
});

test('issue with it given: 201 carrying the variables; optional ones may be left out', async () => {
  const batchId = await batchOf('design_minimal');
  const res = await api.post(`/batches/${batchId}/recipients`, { name: 'Ada', email: 'ada@example.com', data: { course: 'Welding' } });
  expect(res.status).toBe(201);
  expect(res.body.data).toEqual({ course: 'Welding' });
});

test('designs with no required variable accept no data (Classic, Modern)', async () => {
  for (const design of ['design_classic', 'design_modern']) {
    const res = await api.post(`/batches/${await batchOf(design)}/recipients`, { name: 'Ada', email: 'ada@example.com' });
    expect(res.status).toBe(201);
  }
});

test('bulk, all-or-nothing: 400 on recipients[i].data.course with its index, nothing issued', async () => {
  const batchId = await batchOf('design_minimal');
  const res = await api.post(`/batches/${batchId}/recipients/bulk`, {
    recipients: [
      { name: 'A', email: 'a@example.com', data: { course: 'X' } },
      { name: 'B', email: 'b@example.com', data: { course: '' } },
    ],
  });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', detail: { field: 'recipients[1].data.course', index: 1 } });
  expect(sb.controls.certificates(batchId)).toHaveLength(0);
});

test('bulk, per-item results: the item without it fails alone (207)', async () => {
  sb.controls.setBulkResponseShape('results');
  const batchId = await batchOf('design_minimal');
  const res = await api.post(`/batches/${batchId}/recipients/bulk`, {
    recipients: [{ name: 'A', email: 'a@example.com' }, { name: 'B', email: 'b@example.com', data: { course: 'X' } }],
  });
  expect(res.status).toBe(207);
  expect(res.body.results[0]).toMatchObject({ index: 0, error: { error: 'VALIDATION_ERROR', detail: { field: 'recipients[0].data.course' } } });
  expect(res.body.results[1].recipient.data).toEqual({ course: 'X' });
});

test('PATCH may not blank or remove a required variable; other changes pass', async () => {
  const batchId = await batchOf('design_minimal');
  const id = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ada', email: 'ada@example.com', data: { course: 'X' } })).body.id;
  for (const data of [{ course: null }, { course: '' }]) {
    const res = await api.patch(`/batches/${batchId}/recipients/${id}`, { name: 'Changed', data });
    expect(res.status).toBe(400);
    expect(res.body.detail.field).toBe('data.course');
  }
  // All-or-nothing: the refused update changed nothing.
  expect(sb.controls.certificates(batchId)[0]).toMatchObject({ name: 'Ada', data: { course: 'X' } });
  const ok = await api.patch(`/batches/${batchId}/recipients/${id}`, { data: { completedOn: '2026-11-25' } });
  expect(ok.status).toBe(200);
  expect(ok.body.data).toEqual({ course: 'X', completedOn: '2026-11-25' });
});
