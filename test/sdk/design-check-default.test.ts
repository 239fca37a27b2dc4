// Issue 33: the design check is the default. Against a stub service that does not enforce the
// design, `issueMany` with no options never sends an item that leaves a required variable
// empty, and issues the others; each batch's design is read once per run.
import { createClient } from '@certificate-service/sdk';
import type { DesignVariable } from '@certificate-service/sdk/core';
import { DESIGN_NONE, DESIGN_REQUIRED, DESIGN_UNREADABLE, sentEmails, startStub, type StubService } from './stub-service';

let stub: StubService;
beforeEach(async () => {
  stub = await startStub({ batches: { b_req: 'design_req', b_none: 'design_none', b_bad: 'design_bad' }, designs: [DESIGN_REQUIRED, DESIGN_NONE, DESIGN_UNREADABLE] });
});
afterEach(() => stub.close());

const client = () => createClient({ baseUrl: stub.baseUrl, apiKey: 'sk_test_stub_key_0123456789' });
const rows = (batchId: string) => [
  { batchId, name: 'Ada', email: 'ada@example.com', data: { course: 'Welding' } },
  { batchId, name: 'Bad', email: 'bad@example.com', data: { course: '  ', score: '3' } },
  { batchId, name: 'Missing', email: 'missing@example.com' },
  { batchId, name: 'Cy', email: 'cy@example.com', data: { course: 'Rigging' } },
];
const reads = (s: StubService, path: string) => s.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0] === path).length;

test('issueMany with no options: a row that leaves a required variable empty or missing is never sent; the good rows are issued', async () => {
  const out = await client().issueMany(rows('b_req'));
  expect(out.map((o) => o.kind)).toEqual(['issued', 'invalid', 'invalid', 'issued']);
  expect(out[1]).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'data.course' } });
  expect(out[2]).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'data.course' } });
  expect(sentEmails(stub)).toEqual(['ada@example.com', 'cy@example.com']);
  expect(stub.issued.get('b_req')!.map((r) => r.email)).toEqual(['ada@example.com', 'cy@example.com']);
  // The reads: the batch and its design (once), skip-existing's list, then one bulk call.
  expect(stub.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual(['GET /batches/b_req', 'GET /designs', 'GET /batches/b_req/recipients', 'POST /batches/b_req/recipients/bulk']);
});

test('each batch\'s design is read once per run, however many items and calls', async () => {
  const many = (batchId: string, n: number) => Array.from({ length: n }, (_, i) => ({ batchId, name: `P${i}`, email: `p${i}@example.com`, data: { course: 'C' } }));
  const out = await client().issueMany([...many('b_req', 250), ...many('b_none', 120)]);
  expect(out.every((o) => o.kind === 'issued')).toBe(true);
  expect([reads(stub, '/batches/b_req'), reads(stub, '/batches/b_none'), reads(stub, '/designs')]).toEqual([1, 1, 2]);
});

test('a design that lists no variables does not block issuing (and nothing more is read for it)', async () => {
  const out = await client().issueMany(rows('b_none'));
  expect(out.every((o) => o.kind === 'issued')).toBe(true);
  expect(reads(stub, '/batches/b_none/recipients')).toBe(1); // skip-existing's list only: no "seen in batch" read
});

test('a design whose variables cannot be read holds its batch back (unreadBatch), never a silent pass', async () => {
  const out = await client().issueMany([...rows('b_bad'), ...rows('b_none')]);
  expect(out.slice(0, 4).map((o) => o.kind)).toEqual(['unreadBatch', 'unreadBatch', 'unreadBatch', 'unreadBatch']);
  expect(out[0]).toMatchObject({ error: { code: 'UNEXPECTED_RESPONSE', message: expect.stringMatching(/could not be read to check its design's variables/) } });
  expect(sentEmails(stub)).toHaveLength(4); // b_none's four only
});

test('variables a caller holds (the Map) count as the check: its batch is not read for them; a batch missing from the Map still is', async () => {
  const held = new Map<string, DesignVariable[]>([['b_none', [{ name: 'course', label: 'Course', required: true, source: 'design' }]]]);
  const out = await client().issueMany([...rows('b_none'), ...rows('b_req')], { variables: held });
  expect(out.map((o) => o.kind)).toEqual(['issued', 'invalid', 'invalid', 'issued', 'issued', 'invalid', 'invalid', 'issued']);
  expect([reads(stub, '/batches/b_none'), reads(stub, '/batches/b_req')]).toEqual([0, 1]);
});

test('variables: false opts out: no design read, and the service is trusted with the bad row', async () => {
  const out = await client().issueMany(rows('b_req'), { variables: false });
  expect(out.map((o) => o.kind)).toEqual(['issued', 'issued', 'issued', 'issued']);
  expect(reads(stub, '/designs') + reads(stub, '/batches/b_req')).toBe(0);
});

test('stopOnInvalid: an invalid row found by the design check sends nothing', async () => {
  const out = await client().issueMany(rows('b_req'), { stopOnInvalid: true });
  expect(out.map((o) => o.kind)).toEqual(['notSent', 'invalid', 'invalid', 'notSent']);
  expect(sentEmails(stub)).toEqual([]);
});

test('previewIssue reports the same check without writing', async () => {
  const preview = await client().previewIssue(rows('b_req'));
  expect(preview.outcomes.map((o) => o.kind)).toEqual(['wouldIssue', 'invalid', 'invalid', 'wouldIssue']);
  expect(sentEmails(stub)).toEqual([]);
});

test('a variable named like an object built-in travels like any other and is checked like any other', async () => {
  await stub.close();
  stub = await startStub({ batches: { b: 'd' }, designs: [{ id: 'd', variables: [{ name: '__proto__', required: true }, { name: 'constructor', required: true }] }] });
  const data = JSON.parse('{"__proto__": "p", "constructor": "c"}') as Record<string, string>;
  const out = await client().issueMany([
    { batchId: 'b', name: 'A', email: 'a@example.com', data },
    { batchId: 'b', name: 'B', email: 'b@example.com', data: { constructor: '' } },
  ]);
  expect(out.map((o) => o.kind)).toEqual(['issued', 'invalid']);
  expect(out[1]).toMatchObject({ error: { field: 'data.__proto__' } });
  const sent = stub.requests.find((r) => r.method === 'POST')!.body as { name: string; data: Record<string, string> };
  expect(Object.entries(sent.data)).toEqual([['__proto__', 'p'], ['constructor', 'c']]);
});
