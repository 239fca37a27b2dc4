import { CertificateServiceError } from '@certificate-service/sdk/core';
import { netError, reply, scripted } from './scripted';
import { KEY, recipient } from './helpers';

const ok = reply(200, { id: 'b1' });
const limited = (after: string) => reply(429, { error: 'RATE_LIMITED', message: 'Too many requests' }, { 'Retry-After': after });

async function rejection(p: Promise<unknown>): Promise<CertificateServiceError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(CertificateServiceError);
  return e as CertificateServiceError;
}

test('a 429 waits Retry-After seconds and retries, for any method', async () => {
  const s = scripted([limited('3'), reply(201, { id: 'rec_1', certificateId: 'CERT-2026-1-1' })]);
  const r = await s.client.issueCertificate('b1', { name: 'A', email: 'a@example.com' });
  expect(r.id).toBe('rec_1');
  expect(s.requests).toHaveLength(2);
  expect(s.sleeps[0]).toBeGreaterThanOrEqual(3000);
  expect(s.sleeps[0]).toBeLessThan(3250); // a little jitter only
});

test('Retry-After as an HTTP date is honoured', async () => {
  const date = new Date(1_700_000_000_000 + 5000).toUTCString();
  const s = scripted([limited(date), ok]);
  await s.client.getBatch('b1');
  expect(s.sleeps[0]).toBeGreaterThanOrEqual(5000);
  expect(s.requests).toHaveLength(2);
});

test('gives up after maxRetries with RATE_LIMITED and the retry delay', async () => {
  const s = scripted([limited('1'), limited('1'), limited('1'), limited('1'), limited('1'), limited('1'), limited('9')]);
  const e = await rejection(s.client.getBatch('b1'));
  expect(e.code).toBe('RATE_LIMITED');
  expect(e.retryAfterSeconds).toBe(1);
  expect(s.requests).toHaveLength(6); // 1 + 5 retries
});

test('gives up when Retry-After exceeds the total wait budget', async () => {
  const s = scripted([limited('600')]);
  const e = await rejection(s.client.getBatch('b1'));
  expect(e.code).toBe('RATE_LIMITED');
  expect(e.retryAfterSeconds).toBe(600);
  expect(s.sleeps).toEqual([]);
});

test('GET and DELETE are retried after 5xx and network errors', async () => {
  const s = scripted([reply(503, ''), netError('ECONNRESET'), ok, reply(502, ''), reply(204, '')]);
  await s.client.getBatch('b1');
  await s.client.deleteRecipient('b1', 'r1');
  expect(s.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'DELETE', 'DELETE']);
  expect(s.sleeps).toEqual([500, 1000, 500]);
});

test.each([
  ['a connection reset', netError('ECONNRESET'), 'NETWORK_ERROR'],
  ['a timeout', netError('ETIMEDOUT'), 'TIMEOUT'],
  ['a 500', reply(500, { error: 'INTERNAL', message: 'boom' }), 'INTERNAL'],
  ['a 503 without body', reply(503, ''), 'UNKNOWN'],
])('POST issue is never retried after %s: outcome unknown, naming the recipient', async (_n, step, code) => {
  const s = scripted([step]);
  const e = await rejection(s.client.issueCertificate('b1', { name: 'Ada', email: 'ada@example.com' }));
  expect(s.requests).toHaveLength(1);
  expect(e.code).toBe(code);
  expect(e.outcomeUnknown).toBe(true);
  expect(e.request).toEqual({ method: 'POST', path: '/batches/b1/recipients', route: '/batches/{batchId}/recipients', recipients: ['ada@example.com'] });
  expect(e.message).toMatch(/Outcome unknown.*ada@example\.com/);
});

test('bulk issue after a reset: no retry, every item of that call is outcome unknown, later calls proceed', async () => {
  const items = Array.from({ length: 150 }, (_, i) => ({ batchId: 'b1', name: `P${i}`, email: `p${i}@example.com` }));
  const second = Array.from({ length: 50 }, (_, i) => ({ id: `rec_${i}`, certificateId: `CERT-2026-1-${i}` }));
  const s = scripted([netError('ECONNRESET'), reply(201, { data: second })]);
  const out = await s.client.issueMany(items, { skipExisting: false, variables: false });
  expect(s.requests).toHaveLength(2);
  expect(out.slice(0, 100).every((o) => !o.ok && o.error.outcomeUnknown)).toBe(true);
  expect(!out[7].ok && out[7].error.message).toContain('p7@example.com');
  expect(out.slice(100).every((o) => o.ok)).toBe(true);
});

test('other POSTs are not retried after a network error either', async () => {
  const s = scripted([netError('ECONNRESET')]);
  const e = await rejection(s.client.createBatch({ title: 'T', designId: 'd' }));
  expect(e.outcomeUnknown).toBe(true);
  expect(s.requests).toHaveLength(1);
});

test('paces proactively: waits for the window reset when RateLimit-Remaining is 0', async () => {
  const s = scripted([
    reply(200, { id: 'b1' }, { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '12' }),
    reply(200, { id: 'b1' }, { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '119', 'RateLimit-Reset': '60' }),
  ]);
  await s.client.getBatch('b1');
  expect(s.sleeps).toEqual([]);
  await s.client.getBatch('b1');
  expect(s.sleeps).toEqual([12000]);
  expect(s.client.rateLimit).toMatchObject({ limit: 120, remaining: 119 });
});

describe("a transport's own error (not a network failure)", () => {
  class HostLimitError extends Error {
    override name = 'HostLimitError';
  }

  test('leaves as a TRANSPORT_ERROR (phase transport, with a hint), not repeated, the key taken out', async () => {
    const s = scripted([new HostLimitError(`refused: Authorization: Bearer ${KEY} is over the limit`)]);
    const error = await s.client.getBatch('b1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CertificateServiceError);
    expect(error).toMatchObject({ code: 'TRANSPORT_ERROR', phase: 'transport', outcomeUnknown: false });
    expect((error as CertificateServiceError).message).toMatch(/^GET \/batches\/b1: the HTTP layer failed before an answer could be read \(HostLimitError: refused/);
    expect((error as CertificateServiceError).hint).toMatch(/not repeated/);
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message, cause: String((error as Error).cause) })).not.toContain(KEY);
    expect(s.requests).toHaveLength(1);
  });

  test('on an issue call its outcome is unknown, and it is not repeated', async () => {
    const s = scripted([new HostLimitError('boom')]);
    const outcomes = await s.client.issueMany([{ batchId: 'b1', name: 'A', email: 'a@example.com' }], { skipExisting: false, variables: false });
    expect(outcomes[0]).toMatchObject({ kind: 'unknown', error: { code: 'TRANSPORT_ERROR', phase: 'transport', outcomeUnknown: true } });
    expect(s.requests).toHaveLength(1);
  });
});

describe('a base URL where nothing answers fails fast, saying so', () => {
  test.each<[string, number, number]>([
    // code, attempts, waited (ms)
    ['ECONNREFUSED', 3, 1500],
    ['ENOTFOUND', 1, 0],
    ['UND_ERR_CONNECT_TIMEOUT', 1, 0],
  ])('%s: %i attempts, %i ms of backoff', async (code, attempts, waited) => {
    const s = scripted(Array.from({ length: 6 }, () => netError(code)));
    const error = (await s.client.auth().catch((e: unknown) => e)) as CertificateServiceError;
    expect(s.requests).toHaveLength(attempts);
    expect(s.sleeps.reduce((a, b) => a + b, 0)).toBe(waited);
    expect(error.message).toMatch(/^POST \/auth could not connect to https:\/\/certs\.example\.com/);
    expect(error.hintTopic).toBe('unreachable');
    expect(error.hint).toMatch(/^Nothing was sent\. Check the base URL/);
  });

  test('an issue call that could not connect was not sent: its outcome is known, and it is tried again', async () => {
    const s = scripted([netError('ECONNREFUSED'), reply(201, recipient(0))]);
    const outcomes = await s.client.issueMany([{ batchId: 'b1', name: 'A', email: 'a@example.com' }], { skipExisting: false, variables: false });
    expect(outcomes[0]).toMatchObject({ kind: 'issued' });
    expect(s.requests).toHaveLength(2);
    const refused = scripted(Array.from({ length: 3 }, () => netError('ECONNREFUSED')));
    const [failed] = await refused.client.issueMany([{ batchId: 'b1', name: 'A', email: 'a@example.com' }], { skipExisting: false, variables: false });
    expect(failed).toMatchObject({ kind: 'failed', error: { code: 'NETWORK_ERROR', outcomeUnknown: false } });
  });
});

test('POST /auth changes nothing, so it is retried like a GET after a 5xx', async () => {
  const s = scripted([reply(503, ''), reply(200, { workspaceId: 'ws_1', username: 'Acme' })]);
  expect(await s.client.auth()).toEqual({ workspaceId: 'ws_1', username: 'Acme' });
  expect(s.requests).toHaveLength(2);
});
