import { bulkOutcomes } from '../../shared/sdk/src/issue/call';
import { chunk } from '../../shared/sdk/src/issue/plan';
import { recipient } from './helpers';
import { reply, scripted } from './scripted';

const emails = ['a@x.test', 'b@x.test', 'c@x.test'];
const [r0, r1, r2] = [recipient(0), recipient(1), recipient(2)];
const context = { endpoint: 'POST /batches/{batchId}/recipients/bulk', status: 201, contentType: 'application/json', issues: true };
const mapBulkResponse = (body: unknown, list: string[]) => bulkOutcomes(list)(body, context);

// The bulk response body is not shown in the spec: every plausible shape maps back by index or position.
test.each([
  ['bare array', [r0, r1, r2]],
  ['data', { data: [r0, r1, r2] }],
  ['recipients', { recipients: [r0, r1, r2] }],
  ['created', { created: [r0, r1, r2] }],
  ['results with index, out of order', { results: [{ index: 2, recipient: r2 }, { index: 0, recipient: r0 }, { index: 1, recipient: r1 }] }],
])('maps the %s shape in input order', (_n, body) => {
  const out = mapBulkResponse(body, emails);
  expect(out.map((o) => (o.ok ? o.recipient.id : 'err'))).toEqual(['rec_0', 'rec_1', 'rec_2']);
});

test('per-item errors stay with their item', () => {
  const out = mapBulkResponse({ results: [{ index: 0, recipient: r0 }, { index: 1, error: { error: 'VALIDATION_ERROR', message: 'bad email', detail: { field: 'email' } } }, { index: 2, recipient: r2 }] }, emails);
  expect(out[0].ok && out[2].ok).toBe(true);
  expect(out[1]).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', message: 'b@x.test: bad email' } });
});

test('a separate errors list is read too', () => {
  const out = mapBulkResponse({ data: [r0, r2].map((r, i) => ({ ...r, index: i * 2 })), errors: [{ index: 1, error: 'QUOTA_EXCEEDED', message: 'no quota' }] }, emails);
  expect(out.map((o) => o.ok)).toEqual([true, false, true]);
});

test('an item the response does not mention ends as outcome unknown, not silently lost', () => {
  const out = mapBulkResponse({ data: [r0] }, emails);
  expect(out[1]).toMatchObject({ ok: false, error: { outcomeUnknown: true } });
  expect(!out[2].ok && out[2].error.message).toContain('c@x.test');
});

test('chunk splits in order', () => {
  expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
});

test('issueMany: 250 items in one batch make 3 bulk calls of 100/100/50 in order', async () => {
  const items = Array.from({ length: 250 }, (_, i) => ({ batchId: 'b1', name: `P${i}`, email: `p${i}@x.test`, data: { n: i } }));
  const echo = (from: number, n: number) => reply(201, { data: Array.from({ length: n }, (_, i) => recipient(from + i)) });
  const s = scripted([echo(0, 100), echo(100, 100), echo(200, 50)]);
  const out = await s.client.issueMany(items, { skipExisting: false, variables: false });
  expect(s.requests.map((r) => JSON.parse(r.body!).recipients.length)).toEqual([100, 100, 50]);
  expect(JSON.parse(s.requests[1].body!).recipients[0]).toEqual({ name: 'P100', email: 'p100@x.test', data: { n: '100' } });
  expect(out.map((o) => (o.ok ? o.recipient.id : ''))).toEqual(items.map((_, i) => `rec_${i}`));
});

test('issueMany groups per batch and send flag, keeps input positions, and sends a lone item through the single-issue endpoint', async () => {
  const items = [
    { batchId: 'A', name: 'a0', email: 'a0@x.test' },
    { batchId: 'B', name: 'b0', email: 'b0@x.test' },
    { batchId: 'A', name: 'a1', email: 'a1@x.test' },
    { batchId: 'A', name: 'bad', email: 'nope' },
  ];
  const s = scripted([reply(201, [recipient(10), recipient(12)]), reply(201, recipient(11))]);
  const out = await s.client.issueMany(items, { skipExisting: false, variables: false });
  expect(s.requests.map((r) => r.url.replace(/.*\/api\/v1/, ''))).toEqual(['/batches/A/recipients/bulk', '/batches/B/recipients']);
  expect(out.map((o) => (o.ok ? o.recipient.id : o.error.field))).toEqual(['rec_10', 'rec_11', 'rec_12', 'email']);
});

test('a rejected bulk call gives every item of that call an error, naming the culprit', async () => {
  const items = [0, 1, 2].map((i) => ({ batchId: 'b1', name: `P${i}`, email: `p${i}@x.test` }));
  const s = scripted([reply(400, { error: 'VALIDATION_ERROR', message: 'email rejected', detail: { field: 'recipients[1].email', index: 1 } })]);
  const out = await s.client.issueMany(items, { skipExisting: false, variables: false });
  expect(out.every((o) => !o.ok)).toBe(true);
  expect(!out[1].ok && out[1].error.message).toBe('p1@x.test: email rejected');
  expect(!out[0].ok && out[0].error.message).toMatch(/not issued, because the bulk call was rejected for item 1/);
});

test('an archived batch or used-up quota fails the whole call with the service code', async () => {
  const items = [0, 1].map((i) => ({ batchId: 'b1', name: `P${i}`, email: `p${i}@x.test` }));
  const s = scripted([reply(402, { error: 'QUOTA_EXCEEDED', message: 'Plan quota used up' })]);
  const out = await s.client.issueMany(items, { skipExisting: false, variables: false });
  expect(out.map((o) => !o.ok && o.error.code)).toEqual(['QUOTA_EXCEEDED', 'QUOTA_EXCEEDED']);
});
