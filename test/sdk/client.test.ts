import nock from 'nock';
import { CertificateServiceClient } from '@certificate-service/sdk/core';
import { ENDPOINTS } from '../../shared/sdk/src/client/endpoints';
import { API, KEY, makeClient, recipient } from './helpers';

// Each endpoint of the spec (section 4): method, path, auth header and body.
beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

type Case = {
  name: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string | RegExp;
  body?: unknown;
  reply: [number, unknown?];
  call: (c: ReturnType<typeof makeClient>['client']) => Promise<unknown>;
  expect?: unknown;
};

const r1 = recipient(1);
const cases: Case[] = [
  { name: 'auth', method: 'post', path: '/api/v1/auth', reply: [200, { workspaceId: 'ws_1', username: 'Acme' }], call: (c) => c.auth(), expect: { workspaceId: 'ws_1', username: 'Acme' } },
  { name: 'list batches', method: 'get', path: '/api/v1/batches?limit=50&status=archived', reply: [200, { data: [{ id: 'batch_1' }], nextCursor: null }], call: (c) => c.listBatches({ limit: 50, status: 'archived' }), expect: { items: [{ id: 'batch_1' }], nextCursor: null } },
  { name: 'get batch', method: 'get', path: '/api/v1/batches/batch%2F1', reply: [200, { id: 'batch/1', title: 'T' }], call: (c) => c.getBatch('batch/1'), expect: { id: 'batch/1', title: 'T' } },
  { name: 'create batch', method: 'post', path: '/api/v1/batches', body: { title: 'Course', designId: 'design_a' }, reply: [201, { id: 'batch_1', title: 'Course', designId: 'design_a', status: 'active' }], call: (c) => c.createBatch({ title: ' Course ', designId: 'design_a' }) },
  { name: 'archive batch', method: 'post', path: '/api/v1/batches/batch_1/archive', reply: [200, { id: 'batch_1', status: 'archived' }], call: (c) => c.archiveBatch('batch_1'), expect: { id: 'batch_1', status: 'archived' } },
  { name: 'unarchive batch (empty body)', method: 'post', path: '/api/v1/batches/batch_1/unarchive', reply: [204], call: (c) => c.unarchiveBatch('batch_1'), expect: { id: 'batch_1', status: 'active' } },
  { name: 'list designs', method: 'get', path: '/api/v1/designs', reply: [200, [{ id: 'design_a' }]], call: (c) => c.listDesigns(), expect: { items: [{ id: 'design_a' }], nextCursor: null } },
  { name: 'list recipients', method: 'get', path: '/api/v1/batches/batch_1/recipients?cursor=c2&limit=100&emailStatus=sent', reply: [200, { recipients: [r1], next: null }], call: (c) => c.listRecipients('batch_1', { cursor: 'c2', emailStatus: 'sent' }), expect: { items: [r1], nextCursor: null } },
  { name: 'get recipient', method: 'get', path: '/api/v1/batches/batch_1/recipients/rec_1', reply: [200, { data: r1 }], call: (c) => c.getRecipient('batch_1', 'rec_1'), expect: r1 },
  { name: 'issue', method: 'post', path: '/api/v1/batches/batch_1/recipients', body: { name: 'Ada', email: 'ada@example.com', data: { score: '9', passed: 'true' }, send: true }, reply: [201, r1], call: (c) => c.issueCertificate('batch_1', { name: 'Ada', email: 'ada@example.com', data: { score: 9, passed: true } }, { send: true }), expect: r1 },
  { name: 'bulk issue', method: 'post', path: '/api/v1/batches/batch_1/recipients/bulk', body: { recipients: [{ name: 'A', email: 'a@example.com', data: {} }], send: false }, reply: [201, { data: [r1] }], call: (c) => c.issueBulk('batch_1', [{ name: 'A', email: 'a@example.com' }], { send: false }), expect: [{ kind: 'issued', ok: true, recipient: r1 }] },
  { name: 'update recipient', method: 'patch', path: '/api/v1/batches/batch_1/recipients/rec_1', body: { name: 'Ada L', data: { grade: 'A' } }, reply: [200, r1], call: (c) => c.updateRecipient('batch_1', 'rec_1', { name: 'Ada L', data: { grade: 'A' } }) },
  { name: 'delete recipient', method: 'delete', path: '/api/v1/batches/batch_1/recipients/rec_1', reply: [204], call: (c) => c.deleteRecipient('batch_1', 'rec_1'), expect: { id: 'rec_1', batchId: 'batch_1', deleted: true } },
  { name: 'send', method: 'post', path: '/api/v1/batches/batch_1/recipients/rec_1/send', reply: [202, { ...r1, emailStatus: 'queued' }], call: (c) => c.sendCertificate('batch_1', 'rec_1') },
  { name: 'certificate by id', method: 'get', path: '/api/v1/certificates/CERT-2026-0001-0001', reply: [200, r1], call: (c) => c.getCertificate('CERT-2026-0001-0001'), expect: r1 },
  { name: 'certificate by token', method: 'get', path: '/api/v1/certificates/by-token/a%20b', reply: [200, { certificate: r1 }], call: (c) => c.getCertificateByToken('a b'), expect: r1 },
  { name: 'list subscriptions', method: 'get', path: '/api/v1/webhooks/subscriptions', reply: [200, { subscriptions: [{ id: 'whs_1', url: 'https://x.test/h', events: ['certificate.sent'] }] }], call: (c) => c.listSubscriptions(), expect: { items: [{ id: 'whs_1', url: 'https://x.test/h', events: ['certificate.sent'] }], nextCursor: null } },
  { name: 'create subscription', method: 'post', path: '/api/v1/webhooks/subscriptions', body: { url: 'https://x.test/h', events: ['certificate.issued'] }, reply: [201, { id: 'whs_1', url: 'https://x.test/h', events: ['certificate.issued'], signingSecret: 'wh_sec_abc' }], call: (c) => c.createSubscription({ url: 'https://x.test/h', events: ['certificate.issued'] }), expect: { id: 'whs_1', url: 'https://x.test/h', events: ['certificate.issued'], secret: 'wh_sec_abc' } },
  { name: 'get subscription', method: 'get', path: '/api/v1/webhooks/subscriptions/whs_1', reply: [200, { id: 'whs_1', url: 'https://x.test/h', events: [] }], call: (c) => c.getSubscription('whs_1'), expect: { id: 'whs_1', url: 'https://x.test/h', events: [] } },
  { name: 'delete subscription', method: 'delete', path: '/api/v1/webhooks/subscriptions/whs_1', reply: [204], call: (c) => c.deleteSubscription('whs_1'), expect: { id: 'whs_1', deleted: true } },
  { name: 'unsubscribe', method: 'delete', path: '/api/v1/webhooks/subscriptions/whs_1', reply: [204], call: (c) => c.unsubscribe('whs_1'), expect: { id: 'whs_1', deleted: true } },
  { name: 'unsubscribe, already gone', method: 'delete', path: '/api/v1/webhooks/subscriptions/whs_1', reply: [404, { error: { code: 'NOT_FOUND', message: 'No subscription' } }], call: (c) => c.unsubscribe('whs_1'), expect: { id: 'whs_1', deleted: true, alreadyDeleted: true } },
  { name: 'test subscription', method: 'post', path: '/api/v1/webhooks/subscriptions/whs_1/test', reply: [202, { queued: true }], call: (c) => c.testSubscription('whs_1'), expect: { id: 'whs_1', queued: true } },
  { name: 'rotate secret', method: 'post', path: '/api/v1/webhooks/subscriptions/whs_1/rotate-secret', reply: [200, { id: 'whs_1', secret: 'wh_sec_new' }], call: (c) => c.rotateSubscriptionSecret('whs_1'), expect: { id: 'whs_1', secret: 'wh_sec_new' } },
];

test.each(cases)('$name: $method $path', async (tc) => {
  const seen: { auth?: string; type?: string } = {};
  const scope = nock(API.replace('/api/v1', ''))
    .intercept(tc.path, tc.method.toUpperCase(), tc.body as nock.RequestBodyMatcher | undefined)
    .reply(function (_uri, _body) {
      seen.auth = this.req.headers.authorization as string;
      seen.type = this.req.headers['content-type'] as string;
      return tc.reply as [number, nock.Body];
    });
  const { client } = makeClient();
  const result = await tc.call(client);
  scope.done();
  expect(seen.auth).toBe(`Bearer ${KEY}`);
  if (tc.body !== undefined) expect(seen.type).toBe('application/json');
  if (tc.expect !== undefined) expect(result).toEqual(tc.expect);
});

// Derived from the endpoint table, so a new endpoint needs its case here and nothing else.
test('every endpoint of the table has a case, and every case is an endpoint of the table', () => {
  const pattern = (route: string) => new RegExp(`^/api/v1${route.replace(/\{\w+\}/g, '[^/]+')}$`);
  const covers = (e: { method: string; route: string }, c: Case) => e.method === c.method.toUpperCase() && pattern(e.route).test(String(c.path).split('?')[0]);
  expect(Object.entries(ENDPOINTS).filter(([, e]) => !cases.some((c) => covers(e, c))).map(([name]) => name)).toEqual([]);
  expect(cases.filter((c) => !Object.values(ENDPOINTS).some((e) => covers(e, c))).map((c) => c.name)).toEqual([]);
});

test('the secret is never echoed by list or get, only by create and rotate', async () => {
  nock('https://certs.example.com').get('/api/v1/webhooks/subscriptions/whs_1').reply(200, { id: 'whs_1', url: 'https://x.test/h', events: ['certificate.sent'] });
  const { client } = makeClient();
  expect((await client.getSubscription('whs_1')).secret).toBeUndefined();
});

test('the key is sent trimmed (pasted with a space and a newline), and neither form reaches an error', async () => {
  const requests: string[] = [];
  const client = new CertificateServiceClient({
    baseUrl: API,
    apiKey: ` ${KEY}\n`,
    sleep: async () => undefined,
    transport: async (request) => {
      requests.push(request.headers.Authorization);
      return { status: 401, headers: {}, body: JSON.stringify({ error: 'INVALID_API_KEY', message: `refused  ${KEY}\n` }) };
    },
  });
  const error = (await client.auth().catch((e: unknown) => e)) as Error;
  expect(requests).toEqual([`Bearer ${KEY}`]);
  expect(JSON.stringify({ m: error.message })).not.toContain(KEY);
});

