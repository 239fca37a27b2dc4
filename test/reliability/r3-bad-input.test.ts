/**
 * R3 bad input: each kind of bad input gets a clear error naming the field, through the
 * core AND through the n8n node (NodeOperationError with the item's index), and the
 * sandbox counts 0 requests: nothing invalid is ever sent.
 */
import { NodeOperationError } from 'n8n-workflow';

import { CertificateServiceClient, CertificateServiceError, type EventType } from '@certificate-service/sdk/core';
import { createClient, createFetchTransport } from '@certificate-service/sdk';
import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';
import { fakeExecute, fakeHook, inputItems, rl, type Credentials, type Params } from '../n8n/fake-context';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';

let sb: Sandbox;
let credentials: Credentials;
let core: CertificateServiceClient;
const BATCH = 'batch_r3_never_sent';
const REC = 'rec_r3_never_sent';

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
  const ws = sb.controls.createWorkspace();
  credentials = { apiKey: ws.apiKey, baseUrl: sb.url };
  core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
});
beforeEach(() => sb.controls.resetCounters());
afterEach(() => expect(sb.controls.counters().requests.total).toBe(0)); // nothing was sent
afterAll(() => sb.close());

const issue = (overrides: Params = {}) => ({ resource: 'certificate', operation: 'issue', batch: rl(BATCH), name: 'Ada Lovelace', email: 'ada@example.com', specifyData: 'json', dataJson: {}, ...overrides });
const recipients = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `P ${i}`, email: `p${i}@example.com` }));

/** How the n8n layer is driven for a case. */
type N8nCase =
  | { node: 'action'; params: (i: number) => Params; items?: number; itemIndex: number; credentials?: Partial<Credentials>; field?: string }
  | { node: 'trigger'; events: unknown; webhookUrl?: string; field: string }
  | { node: 'none'; why: string };

interface BadInput {
  kind: string;
  field: string;
  core: (c: CertificateServiceClient) => unknown;
  n8n: N8nCase;
}

const BAD_INPUTS: BadInput[] = [
  { kind: 'bad email', field: 'email', core: (c) => c.issueCertificate(BATCH, { name: 'Ada', email: 'ada.example.com' }), n8n: { node: 'action', params: () => issue({ email: 'ada.example.com' }), itemIndex: 0 } },
  { kind: 'missing email', field: 'email', core: (c) => c.issueCertificate(BATCH, { name: 'Ada', email: '' }), n8n: { node: 'action', params: () => issue({ email: '' }), itemIndex: 0 } },
  { kind: 'empty name', field: 'name', core: (c) => c.issueCertificate(BATCH, { name: '  ', email: 'ada@example.com' }), n8n: { node: 'action', params: () => issue({ name: '' }), itemIndex: 0 } },
  { kind: 'object in data', field: 'data.score', core: (c) => c.issueCertificate(BATCH, { name: 'Ada', email: 'ada@example.com', data: { score: { value: 97 } } as never }), n8n: { node: 'action', params: () => issue({ dataJson: { score: { value: 97 } } }), itemIndex: 0 } },
  { kind: 'array in data (a value)', field: 'data.tags', core: (c) => c.issueCertificate(BATCH, { name: 'Ada', email: 'ada@example.com', data: { tags: ['a', 'b'] } as never }), n8n: { node: 'action', params: () => issue({ dataJson: { tags: ['a', 'b'] } }), itemIndex: 0 } },
  { kind: 'array as data', field: 'data', core: (c) => c.issueCertificate(BATCH, { name: 'Ada', email: 'ada@example.com', data: ['a'] as never }), n8n: { node: 'action', params: () => issue({ dataJson: ['a'] }), itemIndex: 0 } },
  { kind: 'data that is not JSON', field: 'data', core: (c) => c.issueCertificate(BATCH, { name: 'Ada', email: 'ada@example.com', data: '{score: 97' as never }), n8n: { node: 'action', params: () => issue({ dataJson: '{score: 97' }), itemIndex: 0 } },
  { kind: 'data field without a name', field: 'data', core: (c) => c.issueCertificate(BATCH, { name: 'Ada', email: 'ada@example.com', data: { ' ': 'x' } }), n8n: { node: 'action', params: () => issue({ specifyData: 'fields', dataFields: { field: [{ name: '', value: 'x' }] } }), itemIndex: 0 } },
  { kind: '101 bulk items', field: 'recipients', core: (c) => c.issueBulk(BATCH, recipients(101)), n8n: { node: 'none', why: 'the node has no bulk-size input: it groups any number of items into calls of ≤ 100 (P1)' } },
  { kind: 'bad email in the 4th item of a bulk/multi-item issue', field: 'email', core: (c) => c.issueBulk(BATCH, recipients(5).map((r, i) => (i === 3 ? { ...r, email: 'p3-at-example.com' } : r))), n8n: { node: 'action', params: (i) => issue({ email: i === 3 ? 'p3-at-example.com' : `p${i}@example.com` }), items: 5, itemIndex: 3 } },
  { kind: 'limit 0', field: 'limit', core: (c) => c.listBatches({ limit: 0 }), n8n: { node: 'action', params: () => ({ resource: 'batch', operation: 'getMany', returnAll: false, limit: 0 }), itemIndex: 0 } },
  { kind: 'limit 101 (page size)', field: 'limit', core: (c) => c.listRecipients(BATCH, { limit: 101 }), n8n: { node: 'none', why: 'the node\'s Limit is the number of results (101 is fine: it pages by ≤ 100), not the page size' } },
  { kind: 'limit not a whole number', field: 'limit', core: (c) => c.listBatches({ limit: 2.5 }), n8n: { node: 'action', params: () => ({ resource: 'certificate', operation: 'getMany', batch: rl(BATCH), returnAll: false, limit: 2.5 }), itemIndex: 0 } },
  { kind: 'unknown event type', field: 'events', core: (c) => c.createSubscription({ url: 'https://hooks.example.com/r3', events: ['certificate.deleted' as EventType] }), n8n: { node: 'trigger', events: ['certificate.deleted'], field: 'events' } },
  { kind: 'no event type', field: 'events', core: (c) => c.createSubscription({ url: 'https://hooks.example.com/r3', events: [] }), n8n: { node: 'trigger', events: [], field: 'events' } },
  { kind: 'non-HTTPS, non-loopback webhook URL', field: 'url', core: (c) => c.createSubscription({ url: 'http://hooks.example.com/r3', events: ['certificate.issued'] }), n8n: { node: 'trigger', events: ['certificate.issued'], webhookUrl: 'http://n8n.example.com/webhook/r3/webhook', field: 'url' } },
  { kind: 'non-HTTPS, non-loopback base URL', field: 'baseUrl', core: () => new CertificateServiceClient({ baseUrl: 'http://certs.example.com/api/v1', transport: createFetchTransport(), sleep: async () => {} }), n8n: { node: 'action', params: () => issue(), itemIndex: -1, credentials: { baseUrl: 'http://certs.example.com' } } },
  { kind: 'base URL that is not a URL', field: 'baseUrl', core: () => createClient({ baseUrl: 'certs example com', apiKey: 'k' }), n8n: { node: 'action', params: () => ({ resource: 'design', operation: 'getMany', returnAll: true }), itemIndex: -1, credentials: { baseUrl: 'certs example com' } } },
  { kind: 'empty title', field: 'title', core: (c) => c.createBatch({ title: '', designId: 'design_classic' }), n8n: { node: 'action', params: () => ({ resource: 'batch', operation: 'create', title: ' ', design: rl('design_classic') }), itemIndex: 0 } },
  { kind: 'missing design', field: 'designId', core: (c) => c.createBatch({ title: 'Course', designId: undefined as never }), n8n: { node: 'action', params: () => ({ resource: 'batch', operation: 'create', title: 'Course', design: rl('') }), itemIndex: 0 } },
  { kind: 'bad status filter', field: 'status', core: (c) => c.listBatches({ status: 'deleted' as never }), n8n: { node: 'action', params: () => ({ resource: 'batch', operation: 'getMany', returnAll: true, filters: { status: 'deleted' } }), itemIndex: 0 } },
  { kind: 'empty certificate ID', field: 'certificateId', core: (c) => c.getCertificate(''), n8n: { node: 'action', params: () => ({ resource: 'certificate', operation: 'getByCertificateId', certificateId: '' }), itemIndex: 0 } },
  { kind: 'empty share token', field: 'shareToken', core: (c) => c.getCertificateByToken('   '), n8n: { node: 'action', params: () => ({ resource: 'certificate', operation: 'getByShareToken', certificateLink: '' }), itemIndex: 0, field: 'certificateLink' } },
  { kind: 'empty batch ID', field: 'batchId', core: (c) => c.issueCertificate('', { name: 'Ada', email: 'ada@example.com' }), n8n: { node: 'action', params: () => issue({ batch: rl('') }), itemIndex: 0 } },
  { kind: 'empty recipient ID', field: 'recipientId', core: (c) => c.getRecipient(BATCH, ''), n8n: { node: 'action', params: () => ({ resource: 'certificate', operation: 'get', batch: rl(BATCH), recipientId: '' }), itemIndex: 0 } },
  { kind: 'update with nothing to change', field: 'update', core: (c) => c.updateRecipient(BATCH, REC, {}), n8n: { node: 'action', params: () => ({ resource: 'certificate', operation: 'update', batch: rl(BATCH), recipientId: REC, updateFields: {}, specifyData: 'keep' }), itemIndex: 0 } },
  { kind: 'bad email in an update', field: 'email', core: (c) => c.updateRecipient(BATCH, REC, { email: 'nobody' }), n8n: { node: 'action', params: () => ({ resource: 'certificate', operation: 'update', batch: rl(BATCH), recipientId: REC, updateFields: { email: 'nobody' }, specifyData: 'keep' }), itemIndex: 0 } },
];

/** Awaits a call that must fail (synchronously or not) and returns what it threw. */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a validation error, but the call succeeded');
}

it('covers at least 20 kinds of bad input, at least 20 of them through both layers', () => {
  expect(new Set(BAD_INPUTS.map((b) => b.kind)).size).toBe(BAD_INPUTS.length);
  expect(BAD_INPUTS.length).toBeGreaterThanOrEqual(20);
  expect(BAD_INPUTS.filter((b) => b.n8n.node !== 'none').length).toBeGreaterThanOrEqual(20);
});

describe('core', () => {
  it.each(BAD_INPUTS.map((b) => [b.kind, b] as const))('%s → VALIDATION_ERROR naming the field, nothing sent', async (_kind, b) => {
    const error = await thrown(() => b.core(core));
    expect(error).toBeInstanceOf(CertificateServiceError);
    const e = error as CertificateServiceError;
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.status).toBe(0); // never reached the service
    // "recipients[3].email" for the bulk item, the plain field otherwise.
    expect(e.field === b.field || e.field?.endsWith(`].${b.field}`)).toBe(true);
    expect(e.message).toContain(`"${e.field}"`);
  });
});

describe('n8n node', () => {
  const cases = BAD_INPUTS.filter((b) => b.n8n.node !== 'none');

  it.each(cases.map((b) => [b.kind, b] as const))('%s → NodeOperationError naming the field, nothing sent', async (_kind, b) => {
    const spec = b.n8n;
    let error: unknown;
    let recorded: unknown[];
    if (spec.node === 'action') {
      const fake = fakeExecute({ params: spec.params, credentials: { ...credentials, ...spec.credentials }, items: inputItems(spec.items ?? 1) });
      error = await thrown(() => new CertificateService().execute.call(fake.context));
      recorded = fake.requests;
      expect(error).toBeInstanceOf(NodeOperationError);
      const e = error as NodeOperationError;
      // An item's input names the item; a credential problem (base URL) concerns no item.
      expect(e.context.itemIndex).toBe(spec.itemIndex >= 0 ? spec.itemIndex : undefined);
    } else if (spec.node === 'trigger') {
      const hook = fakeHook({ params: { events: spec.events }, webhookUrl: spec.webhookUrl ?? `${sb.url}/hook/r3`, credentials });
      error = await thrown(() => new CertificateServiceTrigger().webhookMethods.default.create.call(hook.context));
      recorded = hook.requests;
      expect(error).toBeInstanceOf(NodeOperationError);
      expect(hook.staticData).toEqual({}); // nothing stored
    } else {
      throw new Error('unreachable');
    }
    const e = error as NodeOperationError;
    expect(`${e.message} ${e.description ?? ''}`).toContain(`"${(spec.node === 'action' && spec.field) || b.field}"`);
    expect(recorded).toEqual([]);
  });

  it.each(BAD_INPUTS.filter((b) => b.n8n.node === 'none').map((b) => [b.kind, b] as const))('%s: not an input of the node', (_kind, b) => {
    // Listed so the gap is visible: the core rejects it; the node cannot be given it.
    expect(b.n8n).toMatchObject({ node: 'none', why: expect.any(String) });
  });
});
