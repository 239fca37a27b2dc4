// issueMany's options beyond skipExisting: shared `data`, `bulk: false`, `stopOnError`,
// and one validation per recipient on its way to the wire.
import { CertificateServiceError } from '@certificate-service/sdk/core';
import * as validation from '../../shared/sdk/src/validation';
import { recipient } from './helpers';
import { netError, reply, scripted } from './scripted';

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ batchId: 'batch_1', name: `P${i}`, email: `p${i}@example.com`, data: { row: i } }));
const bulkOk = (from: number, n: number) => reply(200, { data: Array.from({ length: n }, (_, k) => recipient(from + k)) });

test('shared data is validated once and merged under each item\'s own variables', async () => {
  const s = scripted([bulkOk(0, 2)]);
  await s.client.issueMany(
    [
      { batchId: 'batch_1', name: 'A', email: 'a@example.com', data: '{"score": 1}' },
      { batchId: 'batch_1', name: 'B', email: 'b@example.com', data: { course: 'Own' } },
    ],
    { skipExisting: false, variables: false, data: { course: 'Shared', year: 2026 } },
  );
  const body = JSON.parse(s.requests[0].body!);
  expect(body.recipients.map((r: { data: unknown }) => r.data)).toEqual([
    { course: 'Shared', year: '2026', score: '1' },
    { course: 'Own', year: '2026' },
  ]);
});

test('bad shared data throws before any request, naming the field', async () => {
  const s = scripted([]);
  await expect(s.client.issueMany(items(3), { skipExisting: false, variables: false, data: { nested: { x: 1 } } })).rejects.toMatchObject({ phase: 'validation', field: 'data.nested' });
  expect(s.requests).toHaveLength(0);
});

test('bulk: false sends one single-issue request per item', async () => {
  const s = scripted([0, 1, 2].map((i) => reply(201, recipient(i))));
  const outcomes = await s.client.issueMany(items(3), { skipExisting: false, variables: false, bulk: false });
  expect(outcomes.every((o) => o.ok)).toBe(true);
  expect(s.requests.map((r) => r.url.replace(/^.*\/api\/v1/, ''))).toEqual(Array(3).fill('/batches/batch_1/recipients'));
});

test('stopOnError: after the first failed call nothing more is sent; the rest end as NOT_SENT', async () => {
  const s = scripted([reply(201, recipient(0)), netError('ECONNRESET')]);
  const outcomes = await s.client.issueMany(items(4), { skipExisting: false, variables: false, bulk: false, stopOnError: true });
  expect(s.requests).toHaveLength(2);
  expect(outcomes[0].ok).toBe(true);
  const errors = outcomes.slice(1).map((o) => (o.ok ? undefined : o.error)) as CertificateServiceError[];
  expect(errors[0]).toMatchObject({ outcomeUnknown: true, phase: 'request' });
  expect(errors.slice(1).map((e) => [e.code, e.phase])).toEqual([
    ['NOT_SENT', 'validation'],
    ['NOT_SENT', 'validation'],
  ]);
  expect(errors[1].message).toBe('p2@example.com: not sent, because item 1 failed and the run stops at the first failure.');
});

test('without stopOnError every call is still made after a failure', async () => {
  const s = scripted([reply(201, recipient(0)), netError('ECONNRESET'), reply(201, recipient(2))]);
  const outcomes = await s.client.issueMany(items(3), { skipExisting: false, variables: false, bulk: false });
  expect(s.requests).toHaveLength(3);
  expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
});

test('each recipient is validated once, in issueMany, not again by the call that sends it', async () => {
  const validateIssue = jest.spyOn(validation, 'validateIssue');
  try {
    const s = scripted([bulkOk(0, 100), bulkOk(100, 100), bulkOk(200, 50)]);
    await s.client.issueMany(items(250), { skipExisting: false, variables: false });
    expect(validateIssue).toHaveBeenCalledTimes(250);
    validateIssue.mockClear();
    const single = scripted([reply(201, recipient(0))]);
    await single.client.issueMany(items(1), { skipExisting: false, variables: false });
    expect(validateIssue).toHaveBeenCalledTimes(1);
  } finally {
    validateIssue.mockRestore();
  }
});

// A refusal that holds for the whole batch (or every batch) is not collected again per chunk.
const refusal = (status: number, error: string) => reply(status, { error, message: `${error} said the service` });
const itemsIn = (batchId: string, n: number, from = 0) => items(n).map((item, i) => ({ ...item, batchId, email: `${batchId}-${from + i}@example.com` }));

test.each([
  ['NOT_FOUND', 404],
  ['BATCH_ARCHIVED', 409],
])('after %s on a batch, its later chunks are not sent; other batches still are', async (code, status) => {
  const s = scripted([refusal(status, code), bulkOk(0, 100)]);
  const outcomes = await s.client.issueMany([...itemsIn('batch_gone', 300), ...itemsIn('batch_2', 100)], { skipExisting: false, variables: false });
  expect(s.requests.map((r) => r.url.replace(/^.*\/api\/v1/, ''))).toEqual(['/batches/batch_gone/recipients/bulk', '/batches/batch_2/recipients/bulk']);
  const errors = outcomes.slice(0, 300).map((o) => (o.ok ? undefined : o.error)) as CertificateServiceError[];
  expect(errors.every((e) => e?.code === code)).toBe(true);
  expect(errors.slice(0, 100).every((e) => e.phase === 'response')).toBe(true);
  expect(errors.slice(100).every((e) => e.phase === 'validation' && !e.outcomeUnknown)).toBe(true);
  expect(errors[150].message).toMatch(/^batch_gone-150@example\.com: not sent, because an earlier call was refused/);
  expect(outcomes.slice(300).every((o) => o.ok)).toBe(true);
});

test('a refused key stops every later chunk, in every batch', async () => {
  const s = scripted([bulkOk(0, 100), refusal(401, 'EXPIRED_API_KEY')]);
  const outcomes = await s.client.issueMany([...itemsIn('batch_1', 300), ...itemsIn('batch_2', 50)], { skipExisting: false, variables: false });
  expect(s.requests).toHaveLength(2);
  expect(outcomes.filter((o) => o.ok)).toHaveLength(100);
  expect(outcomes.slice(100).every((o) => !o.ok && o.error.code === 'EXPIRED_API_KEY')).toBe(true);
});

test('QUOTA_EXCEEDED does not stop later chunks: a smaller one may still fit', async () => {
  const s = scripted([refusal(402, 'QUOTA_EXCEEDED'), bulkOk(100, 50)]);
  const outcomes = await s.client.issueMany(itemsIn('batch_1', 150), { skipExisting: false, variables: false });
  expect(s.requests).toHaveLength(2);
  expect(outcomes.slice(100).every((o) => o.ok)).toBe(true);
});

test('an item-level refusal or an unknown outcome does not stop the batch', async () => {
  const s = scripted([reply(400, { error: 'VALIDATION_ERROR', message: 'bad', detail: { index: 3, field: 'email' } }), netError('ECONNRESET'), bulkOk(200, 100)]);
  const outcomes = await s.client.issueMany(itemsIn('batch_1', 300), { skipExisting: false, variables: false });
  expect(s.requests).toHaveLength(3);
  expect(outcomes.slice(200).every((o) => o.ok)).toBe(true);
});

test('onProgress reaches the total when chunks are held back', async () => {
  const seen: number[] = [];
  const s = scripted([refusal(404, 'NOT_FOUND')]);
  await s.client.issueMany(itemsIn('batch_gone', 250), { skipExisting: false, variables: false, onProgress: (done) => seen.push(done) });
  expect(seen.at(-1)).toBe(250);
});
