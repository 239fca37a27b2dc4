/**
 * R7 no secret in any error, whatever the server echoes (issue 10, item 4). Each case runs
 * through the core, through the n8n node (its NodeApiError / NodeOperationError) and
 * through the Zapier app (the error its one mapping builds, and what the app tester shows):
 *   - a 400 whose detail echoes the Authorization header;
 *   - a 502 HTML page that contains the key, placed across the 200-character cut of the
 *     message, so a key redacted only after cutting would leave a piece behind;
 *   - a 401 whose message quotes the key;
 *   - a response that echoes a signing secret (wh_sec_…);
 *   - the key pasted into the email field, and into the Base URL field (validation
 *     messages quote the input).
 * Every form an error is shown in is scanned: message, detail, cause chain, stack, toJSON(),
 * JSON.stringify, util.inspect, and the n8n description.
 */
import { inspect } from 'node:util';
import nock from 'nock';
import zapier from 'zapier-platform-core';

import { CertificateServiceClient, CertificateServiceError } from '@certificate-service/sdk/core';
import { createFetchTransport } from '../../shared/sdk/src/fetch-transport';
import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { toZapierError } from '../../zapier/src/lib/errors';
import App from '../../zapier/src';
import { fakeExecute, rl } from '../n8n/fake-context';
import { setupNock } from '../zapier/mock-api';

const ORIGIN = 'https://certs.echo.test';
const KEY = 'sk_live_echo_7f3a9c1d2e4b5a6f8091a2b3c4d5e6f7';
const SIGNING_SECRET = 'wh_sec_echo_Zx9Yw8Vu7Ts6Rq5Po4';
const ISSUE_PATH = '/api/v1/batches/batch_1/recipients';

// A proxy's error page: tags are stripped and the text cut at 200 characters, and the key
// sits across that cut.
const PAD = 'upstream error '.repeat(11); // the key then starts at character 190 of the text
const HTML_502 = `<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1><p>${PAD}auth=${KEY} rest of page</p></body></html>`;

interface Case {
  name: string;
  /** The service's answer to the issue call, or none when nothing may be sent. */
  reply?: [status: number, body: unknown, headers?: Record<string, string>];
  email?: string;
  baseUrl?: string;
}

const cases: Case[] = [
  { name: '400 whose detail echoes the Authorization header', reply: [400, { error: 'VALIDATION_ERROR', message: 'Bad request', detail: { header: `Bearer ${KEY}`, headers: { authorization: `Bearer ${KEY}` } } }] },
  { name: '502 HTML page containing the key (across the 200-character cut)', reply: [502, HTML_502, { 'Content-Type': 'text/html' }] },
  { name: '401 whose message quotes the key', reply: [401, { error: 'INVALID_API_KEY', message: `The key ${KEY} is not recognized` }] },
  { name: 'a response echoing a signing secret', reply: [409, { error: 'CONFLICT', message: `secret ${SIGNING_SECRET} already in use`, detail: { secret: SIGNING_SECRET } }] },
  { name: 'the key pasted into the email field', email: KEY },
  { name: 'the key pasted into the Base URL field', baseUrl: KEY },
];

const SECRETS = [KEY, SIGNING_SECRET];
/** Every piece of 8+ characters of a secret: a cut-off key must not survive either. */
const PIECES = SECRETS.flatMap((s) => Array.from({ length: s.length - 7 }, (_, i) => s.slice(i, i + 8)));

function forms(error: unknown): string[] {
  const out: string[] = [];
  const e = error as { message?: unknown; description?: unknown; stack?: unknown; detail?: unknown; toJSON?: () => unknown; cause?: unknown };
  out.push(String(e?.message), String(e?.description ?? ''), String(e?.stack ?? ''), JSON.stringify(e?.detail ?? null));
  if (typeof e?.toJSON === 'function') out.push(JSON.stringify(e.toJSON()));
  out.push(JSON.stringify(error), inspect(error, { depth: 12, showHidden: true }));
  let cause = e?.cause;
  for (let depth = 0; cause && depth < 6; depth++) {
    out.push(inspect(cause, { depth: 12, showHidden: true }), JSON.stringify(cause) ?? '');
    cause = (cause as { cause?: unknown }).cause;
  }
  return out;
}

function expectNoSecret(error: unknown): void {
  expect(error).toBeDefined();
  for (const text of forms(error)) {
    for (const piece of PIECES) {
      if (text.includes(piece)) throw new Error(`secret piece "${piece}" found at ${text.indexOf(piece)} in: ${text.slice(Math.max(0, text.indexOf(piece) - 700), text.indexOf(piece) + 100)}`);
    }
  }
}

function answer(c: Case): void {
  if (!c.reply) return;
  const [status, body, headers] = c.reply;
  nock(ORIGIN).post(ISSUE_PATH).reply(status, typeof body === 'string' ? body : JSON.stringify(body), { 'Content-Type': 'application/json', ...headers });
}

/** The design check's two reads (on by default in n8n's and Zapier's Issue), answered plainly: each case is about the issue call's answer. */
function designReads(c: Case): void {
  if (!c.reply) return;
  nock(ORIGIN).get('/api/v1/batches/batch_1').reply(200, { id: 'batch_1', title: 'B', designId: 'd1', status: 'active' });
  nock(ORIGIN).get('/api/v1/designs').reply(200, { data: [{ id: 'd1' }], nextCursor: null });
}

setupNock();

it('the 502 page really puts the key across the cut (so the case tests what it claims)', () => {
  const text = HTML_502.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  const at = text.indexOf(KEY);
  expect(at).toBeLessThan(200);
  expect(at + KEY.length).toBeGreaterThan(200);
});

describe.each(cases)('$name', (c) => {
  const email = c.email ?? 'ada@example.com';

  it('core: the CertificateServiceError carries no secret', async () => {
    answer(c);
    let error: unknown;
    try {
      const client = new CertificateServiceClient({ baseUrl: c.baseUrl ?? ORIGIN, apiKey: KEY, transport: createFetchTransport(), sleep: async () => {} });
      await client.issueCertificate('batch_1', { name: 'Ada', email });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CertificateServiceError);
    expectNoSecret(error);
    // and still says what happened
    expect((error as Error).message.length).toBeGreaterThan(10);
  });

  it('n8n: the node error built from it carries no secret', async () => {
    designReads(c);
    answer(c);
    const fake = fakeExecute({
      credentials: { apiKey: KEY, baseUrl: c.baseUrl ?? ORIGIN },
      params: { resource: 'certificate', operation: 'issue', batch: rl('batch_1'), name: 'Ada', email, skipExisting: false },
    });
    const error = await new CertificateService().execute.call(fake.context).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error)?.constructor?.name).toMatch(/^Node(Api|Operation)Error$/);
    expectNoSecret(error);
  });

  it('Zapier: the error its mapping builds, and what the app tester shows, carry no secret', async () => {
    answer(c);
    const authData = { apiKey: KEY, baseUrl: c.baseUrl ?? `${ORIGIN}/api/v1` };
    const inputData = { batch_id: 'batch_1', name: 'Ada', email };
    // The mapped error itself.
    let coreError: unknown;
    try {
      const client = new CertificateServiceClient({ baseUrl: authData.baseUrl, secrets: [KEY], transport: createFetchTransport(), sleep: async () => {} });
      await client.issueCertificate('batch_1', { name: 'Ada', email });
    } catch (e) {
      coreError = e;
    }
    expectNoSecret(toZapierError({ errors: zapier.errors } as never, coreError));
    // End to end through the app (its beforeRequest adds the key; the mapping runs in withClient).
    designReads(c);
    answer(c);
    const appTester = zapier.createAppTester(App);
    const shown = await appTester(App.creates.issue_certificate.operation.perform as never, { authData, inputData } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectNoSecret(shown);
    if (!c.reply) nock.cleanAll(); // nothing may be sent: the second answer stays unused
  });
});

it('core: a key pasted into the share token or certificate URL is not quoted back (the validator quotes its input)', async () => {
  const client = new CertificateServiceClient({ baseUrl: ORIGIN, apiKey: KEY, transport: createFetchTransport(), sleep: async () => undefined });
  for (const input of [`${KEY}/x`, `https://certs.echo.test/${KEY}`, `ftp://${KEY}`]) {
    const error = (await client.getCertificateByToken(input).catch((e: unknown) => e)) as CertificateServiceError;
    expect(error).toBeInstanceOf(CertificateServiceError);
    expect(error.phase).toBe('validation');
    expect(`${error.message} ${JSON.stringify(error)} ${inspect(error)}`).not.toContain(KEY);
  }
});

it('core: a host network error that carries the request (headers and all) is kept only as name, code and redacted message', async () => {
  const hostError = Object.assign(new Error(`socket hang up while sending Bearer ${KEY}`), {
    code: 'ECONNRESET',
    config: { headers: { Authorization: `Bearer ${KEY}` } },
    cause: Object.assign(new Error(`inner ${KEY}`), { code: 'ECONNRESET', request: { key: KEY } }),
  });
  const client = new CertificateServiceClient({ baseUrl: ORIGIN, secrets: [KEY], transport: async () => Promise.reject(hostError), sleep: async () => {}, retry: { maxRetries: 0 } });
  const error = await client.getBatch('batch_1').then(
    () => undefined,
    (e: unknown) => e as CertificateServiceError,
  );
  expect(error).toMatchObject({ code: 'NETWORK_ERROR', phase: 'request' });
  expectNoSecret(error);
  const cause = error!.cause as Error & { code?: string; cause?: Error & { code?: string } };
  expect([cause.name, cause.code, cause.cause?.code]).toEqual(['Error', 'ECONNRESET', 'ECONNRESET']);
});

it('core: a signing secret from a create or rotate response is redacted from later errors, whatever its shape', async () => {
  const secret = 'custom-signing-secret-0123456789'; // no wh_sec_ prefix: only the learned list can catch it
  nock(ORIGIN).post('/api/v1/webhooks/subscriptions').reply(201, { id: 'whs_1', url: 'https://hooks.example.com/x', events: ['certificate.issued'], signingSecret: secret });
  nock(ORIGIN).get('/api/v1/webhooks/subscriptions/whs_1').reply(400, { error: 'VALIDATION_ERROR', message: `bad secret ${secret}`, detail: { secret } });
  const client = new CertificateServiceClient({ baseUrl: ORIGIN, apiKey: KEY, transport: createFetchTransport(), sleep: async () => {} });
  const sub = await client.createSubscription({ url: 'https://hooks.example.com/x', events: ['certificate.issued'] });
  expect(sub.secret).toBe(secret);
  const error = await client.getSubscription('whs_1').then(
    () => undefined,
    (e: unknown) => e,
  );
  const text = forms(error).join('\n');
  expect(text).not.toContain(secret);
  expect(text).toContain('[redacted]');
});
