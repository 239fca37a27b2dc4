/**
 * The walk from the n8n Issue operation and from the Zapier Issue Certificate action to the HTTP
 * call (issue 27): the stack at the moment the host's HTTP function is called, our frames only,
 * outermost first. V8 keeps every awaiting async function on that stack, so a layer added on the
 * way (an adapter, a wrapper awaiting a callback) shows up here and fails this test; a function
 * that only passes a promise on does not.
 */
import { relative } from 'node:path';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import issueCertificate from '../../zapier/src/creates/issue_certificate';
import { fakeExecute, rl } from '../n8n/fake-context';

const ISSUED = { id: 'rec_1', certificateId: 'CERT-1', batchId: 'batch_1', name: 'Ada', email: 'ada@example.com', createdAt: '2026-01-01T00:00:00Z' };
/** The reads before the POST: the design check's (the batch, then its design) and skip-existing's list. */
const READ = (url: string): unknown => (/\/batches\/batch_1$/.test(url) ? { id: 'batch_1', designId: 'd1' } : /\/designs$/.test(url) ? { data: [{ id: 'd1' }], nextCursor: null } : { data: [], nextCursor: null });

/** `function (file)` for each frame in our packages, outermost first; the test's own frames left out. */
function walk(stack: string): string[] {
  const frames: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const m = /^\s+at (?:async )?(?:(.+?) \()?(\/[^:)]+):\d+:\d+\)?$/.exec(line);
    if (!m) continue;
    const file = relative(`${__dirname}/../..`, m[2]);
    if (!/^(n8n\/nodes|zapier\/src|shared\/sdk\/src)\//.test(file)) continue;
    frames.push(`${(m[1] ?? '(callback)').replace(/^Object\./, '')} (${file})`);
  }
  return frames.reverse();
}

it('n8n Issue (one item, Skip Emails Already Issued on): from the node to the HTTP call', async () => {
  const fake = fakeExecute({
    items: [{ json: {} }],
    params: { resource: 'certificate', operation: 'issue', batch: rl('batch_1'), name: 'Ada', email: 'ada@example.com', specifyData: 'fields', dataFields: {}, skipExisting: true },
  });
  let stack = '';
  (fake.context.helpers as { httpRequestWithAuthentication: unknown }).httpRequestWithAuthentication = async (_type: string, options: { method: string; url: string }) => {
    const issuing = options.method === 'POST';
    if (issuing) stack = new Error().stack ?? '';
    return { statusCode: issuing ? 201 : 200, headers: {}, body: issuing ? ISSUED : READ(options.url.split('?')[0]) };
  };
  const [output] = await new CertificateService().execute.call(fake.context);
  expect(output.map((o) => o.json.id)).toEqual(['rec_1']);
  expect(walk(stack)).toEqual([
    'execute (n8n/nodes/CertificateService/CertificateService.node.ts)',
    'router (n8n/nodes/CertificateService/actions/router.ts)',
    'withClient (n8n/nodes/shared/client.ts)',
    'execute (n8n/nodes/CertificateService/actions/certificate/issue.operation.ts)',
    'CertificateServiceClient.#exitOutcomes (shared/sdk/src/client/index.ts)',
    'issueMany (shared/sdk/src/issue/index.ts)',
    'sendCalls (shared/sdk/src/issue/index.ts)',
    'Requester.call (shared/sdk/src/request.ts)',
    'transport (n8n/nodes/shared/client.ts)',
  ]);
});

it('Zapier Issue Certificate: from the perform to the HTTP call', async () => {
  let stack = '';
  const z = {
    request: async (options: { method: string; url: string }) => {
      if (options.method !== 'POST') return { status: 200, headers: {}, content: JSON.stringify(READ(options.url.split('?')[0])) };
      stack = new Error().stack ?? '';
      return { status: 201, headers: {}, content: JSON.stringify(ISSUED) };
    },
    cache: { get: async () => null, set: async () => true },
  };
  const operation = issueCertificate.operation as unknown as { perform: (z: unknown, bundle: unknown) => Promise<{ id: string }> };
  const result = await operation.perform(z, { authData: { apiKey: 'k', baseUrl: 'https://certs.walk.test' }, inputData: { batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com' } });
  expect(result.id).toBe('rec_1');
  expect(walk(stack)).toEqual([
    'perform (zapier/src/lib/client.ts)',
    'issueOne (zapier/src/creates/issue_certificate.ts)',
    'CertificateServiceClient.#exitOutcomes (shared/sdk/src/client/index.ts)',
    'issueMany (shared/sdk/src/issue/index.ts)',
    'sendCalls (shared/sdk/src/issue/index.ts)',
    'Requester.call (shared/sdk/src/request.ts)',
    'transport (zapier/src/lib/client.ts)',
  ]);
});
