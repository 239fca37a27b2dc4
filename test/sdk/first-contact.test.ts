// Issue 18's table, case by case: what the core did with answers it had never seen, and what
// it does now. Each case is a scripted transport answering as a real service might.
import { CertificateServiceClient, type HttpRequest, type HttpResponse } from '@certificate-service/sdk/core';
import { inspect } from 'node:util';
import { BASE, KEY, recipient } from './helpers';
import { reply } from './scripted';

const HTML: HttpResponse = { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html><body>Welcome, please sign in</body></html>' };

function client(steps: HttpResponse[], apiKey = KEY) {
  const requests: HttpRequest[] = [];
  const c = new CertificateServiceClient({
    baseUrl: BASE,
    apiKey,
    sleep: async () => undefined,
    transport: async (request) => {
      requests.push(request);
      const step = steps.shift();
      if (!step) throw new Error(`unexpected request ${request.method} ${request.url}`);
      return step;
    },
  });
  return { client: c, requests, issueRequests: () => requests.filter((r) => r.method === 'POST').length };
}

const items = ['a', 'b', 'c'].map((n) => ({ batchId: 'b1', name: n, email: `${n}@x.test` }));

describe.each([
  ['{entries: [...]}', reply(200, { entries: [recipient(1, { email: 'a@x.test' })] })],
  ['{payload: {rows: [...]}}', reply(200, { payload: { rows: [recipient(1, { email: 'a@x.test' })] } })],
  ['a 200 HTML page from a proxy', HTML],
])('the recipients list comes back as %s', (_name, list) => {
  test('issueMany with skipExisting issues nothing: every item ends with UNEXPECTED_RESPONSE', async () => {
    const s = client([list]);
    const out = await s.client.issueMany(items, { skipExisting: true });
    expect(s.issueRequests()).toBe(0);
    expect(out.map((o) => !o.ok && o.error.code)).toEqual(['UNEXPECTED_RESPONSE', 'UNEXPECTED_RESPONSE', 'UNEXPECTED_RESPONSE']);
  });

  test('findRecipientByEmail is an error, not null ("no such certificate")', async () => {
    const s = client([list]);
    await expect(s.client.findRecipientByEmail('b1', 'z@x.test')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', phase: 'response' });
  });
});

test('getCertificate answered 200 {"status":"ok"} is an error, not a certificate', async () => {
  const s = client([reply(200, { status: 'ok' }, { 'Content-Type': 'application/json' })]);
  await expect(s.client.getCertificate('CERT-2026-1-1')).rejects.toMatchObject({
    code: 'UNEXPECTED_RESPONSE',
    message: 'GET /certificates/{certificateId} answered 200 (application/json) with an object with keys "status", where a certificate with "id", "batchId" was expected.',
  });
});

test('an issue answered 201 with an unreadable body: outcome unknown, never read as issued', async () => {
  const s = client([reply(201, { ok: true })]);
  await expect(s.client.issueCertificate('b1', { name: 'A', email: 'a@x.test' })).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', outcomeUnknown: true });
});

const leaks = (value: unknown, secret: string) => [JSON.stringify(value), inspect(value, { depth: 10 }), String(value)].some((t) => t.includes(secret));

test("a 201 bulk response whose per-item error quotes the API key: the key is not in the item's error", async () => {
  const s = client([reply(201, { results: [{ index: 0, recipient: recipient(0) }, { index: 1, error: { error: 'VALIDATION_ERROR', message: `key ${KEY} may not issue here`, detail: { key: KEY } } }] })]);
  const out = await s.client.issueMany(items.slice(0, 2), { skipExisting: false, variables: false });
  expect(out[0].ok).toBe(true);
  expect(out[1]).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  expect(!out[1].ok && out[1].error.message).toBe('b@x.test: key [redacted] may not issue here');
  expect(leaks(!out[1].ok && out[1].error, KEY)).toBe(false);
});

test('a key pasted with surrounding whitespace, quoted trimmed by a 401: redacted', async () => {
  const s = client([reply(401, { error: 'INVALID_API_KEY', message: `Key ${KEY} is not valid`, detail: { key: KEY } })], `  ${KEY}\n`);
  const error = await s.client.auth().catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'INVALID_API_KEY', message: 'Key [redacted] is not valid' });
  expect(leaks(error, KEY)).toBe(false);
});

test('a signing secret seen on create is redacted from a later error, even one not shaped wh_sec_…', async () => {
  const secret = 'sig_0123456789abcdefXYZ';
  const s = client([
    reply(201, { id: 'whs_1', url: 'https://hooks.example.com/x', events: ['certificate.issued'], signingSecret: secret }),
    reply(400, { error: 'VALIDATION_ERROR', message: `bad secret ${secret}` }),
  ]);
  const sub = await s.client.createSubscription({ url: 'https://hooks.example.com/x', events: ['certificate.issued'] });
  expect(sub.secret).toBe(secret);
  const error = await s.client.testSubscription('whs_1').catch((e: unknown) => e);
  expect(error).toMatchObject({ message: 'bad secret [redacted]' });
  expect(leaks(error, secret)).toBe(false);
});

test('a certificate answer without the fields the connectors rely on is not taken for one', async () => {
  const noEmail = client([reply(200, { id: 'rec_1', batchId: 'b1' }, { 'Content-Type': 'application/json' })]);
  await expect(noEmail.client.getRecipient('b1', 'rec_1')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', message: expect.stringMatching(/where a certificate with "id", "email" was expected/) });
  // An update's answer is not shown in the spec: an empty one is what the call knows, typed as that (RecipientChange).
  const update = client([reply(200, '', {})]);
  expect(await update.client.updateRecipient('b1', 'rec_1', { name: 'Ada' })).toEqual({ id: 'rec_1', batchId: 'b1' });
});

test('a subscription created without its signing secret is deleted again and the call fails, for every host at once', async () => {
  const s = client([reply(201, { id: 'whs_1', url: 'https://x.test/h', events: ['certificate.issued'] }, { 'Content-Type': 'application/json' }), reply(204, '')]);
  await expect(s.client.createSubscription({ url: 'https://x.test/h', events: ['certificate.issued'] })).rejects.toMatchObject({
    code: 'UNEXPECTED_RESPONSE',
    message: 'POST /webhooks/subscriptions created subscription whs_1 but returned no signing secret, so none of its deliveries could be verified. It was deleted again.',
  });
  expect(s.requests.map((r) => `${r.method} ${r.url.replace(/^.*\/api\/v1/, '')}`)).toEqual(['POST /webhooks/subscriptions', 'DELETE /webhooks/subscriptions/whs_1']);
});
