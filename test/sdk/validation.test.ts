import { CertificateServiceError, normaliseBaseUrl } from '@certificate-service/sdk/core';
import { normaliseData } from '../../shared/sdk/src/validation';
import { scripted } from './scripted';

// Bad input is refused before any request: the scripted transport has no steps,
// so any request would fail the test with "unexpected request".
type C = ReturnType<typeof scripted>['client'];
const cases: Array<[string, (c: C) => Promise<unknown>, string]> = [
  ['bad email', (c) => c.issueCertificate('b1', { name: 'A', email: 'not-an-email' }), 'email'],
  ['empty name', (c) => c.issueCertificate('b1', { name: '  ', email: 'a@example.com' }), 'name'],
  ['object in data', (c) => c.issueCertificate('b1', { name: 'A', email: 'a@example.com', data: { x: { y: 1 } } }), 'data.x'],
  ['array in data', (c) => c.issueCertificate('b1', { name: 'A', email: 'a@example.com', data: { x: [1] } }), 'data.x'],
  ['data not an object', (c) => c.issueCertificate('b1', { name: 'A', email: 'a@example.com', data: [] as unknown as Record<string, unknown> }), 'data'],
  ['empty batch id', (c) => c.issueCertificate('', { name: 'A', email: 'a@example.com' }), 'batchId'],
  ['101 bulk items', (c) => c.issueBulk('b1', Array.from({ length: 101 }, (_, i) => ({ name: 'A', email: `a${i}@example.com` }))), 'recipients'],
  ['0 bulk items', (c) => c.issueBulk('b1', []), 'recipients'],
  ['bad email in bulk item 3', (c) => c.issueBulk('b1', [0, 1, 2, 3].map((i) => ({ name: 'A', email: i === 3 ? 'x@' : `a${i}@example.com` }))), 'recipients[3].email'],
  ['limit 0', (c) => c.listBatches({ limit: 0 }), 'limit'],
  ['limit 101', (c) => c.listBatches({ limit: 101 }), 'limit'],
  ['limit 2.5', (c) => c.listRecipients('b1', { limit: 2.5 }), 'limit'],
  ['unknown status', (c) => c.listBatches({ status: 'deleted' as 'all' }), 'status'],
  ['empty title', (c) => c.createBatch({ title: '', designId: 'd' }), 'title'],
  ['missing designId', (c) => c.createBatch({ title: 'T' } as { title: string; designId: string }), 'designId'],
  ['unknown event type', (c) => c.createSubscription({ url: 'https://x.test/h', events: ['certificate.deleted' as 'certificate.sent'] }), 'events'],
  ['no events', (c) => c.createSubscription({ url: 'https://x.test/h', events: [] }), 'events'],
  ['http webhook url', (c) => c.createSubscription({ url: 'http://example.com/h', events: ['certificate.sent'] }), 'url'],
  ['empty update', (c) => c.updateRecipient('b1', 'r1', {}), 'update'],
  ['bad email in update', (c) => c.updateRecipient('b1', 'r1', { email: 'nope' }), 'email'],
  ['empty certificate id', (c) => c.getCertificate(' '), 'certificateId'],
  ['empty share token', (c) => c.getCertificateByToken(''), 'shareToken'],
];

test.each(cases)('%s is refused before any request, naming the field', async (_name, call, field) => {
  const s = scripted([]);
  const error = await call(s.client).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(CertificateServiceError);
  expect((error as CertificateServiceError).code).toBe('VALIDATION_ERROR');
  expect((error as CertificateServiceError).field).toBe(field);
  expect((error as CertificateServiceError).message).toContain(`"${field}"`);
  expect(s.requests).toHaveLength(0);
});

test('data values: numbers and booleans become strings, JSON text is accepted', () => {
  expect(normaliseData({ score: 9.5, passed: false, note: 'x', empty: null })).toEqual({ score: '9.5', passed: 'false', note: 'x', empty: '' });
  expect(normaliseData('{"a": 1}')).toEqual({ a: '1' });
  expect(() => normaliseData('{oops')).toThrow(/data/);
});

test.each([
  ['https://certs.example.com', 'https://certs.example.com/api/v1'],
  ['https://certs.example.com/', 'https://certs.example.com/api/v1'],
  ['https://certs.example.com/api/v1/', 'https://certs.example.com/api/v1'],
  ['  https://certs.example.com/tenant/api/v1 ', 'https://certs.example.com/tenant/api/v1'],
  ['http://127.0.0.1:4010', 'http://127.0.0.1:4010/api/v1'],
  ['http://localhost:4010/api/v1', 'http://localhost:4010/api/v1'],
  ['http://[::1]:4010', 'http://[::1]:4010/api/v1'],
])('base URL %s is normalised to %s', (input, expected) => {
  expect(normaliseBaseUrl(input)).toBe(expected);
});

test.each(['', 'certs.example.com', 'http://certs.example.com', 'ftp://x.test', 'https://x.test/api/v1?x=1'])('base URL %p is refused', (input) => {
  expect(() => normaliseBaseUrl(input)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', detail: { field: 'baseUrl' } }));
});

test('issueMany with stopOnInvalid sends and reads nothing: the bad item is invalid, the others not sent because of it', async () => {
  const s = scripted([]);
  const items = [{ batchId: 'b1', name: 'A', email: 'a@example.com' }, { batchId: 'b1', name: 'B', email: 'bad' }];
  const outcomes = await s.client.issueMany(items, { stopOnInvalid: true });
  expect(outcomes).toMatchObject([
    { kind: 'notSent', reason: 'stopOnInvalid', because: 1, error: { code: 'NOT_SENT', phase: 'validation' } },
    { kind: 'invalid', error: { code: 'VALIDATION_ERROR', field: 'email' } },
  ]);
  expect(s.requests).toHaveLength(0); // skip-existing is on by default, and the batch is not read either
});
