/**
 * R6 safe re-run (issue 11, item 4): running the same issuance again after a failure issues
 * only what is missing, through "Skip Emails Already Issued in This Batch" (on by
 * default in n8n Issue and the Zapier bulk create). Real HTTP against the sandbox.
 *
 * n8n (fake execution context, the node's real code, Continue On Fail off):
 *   - 1,000 items, one request per item: the sandbox commits item 650 and then drops the
 *     connection, so the execution fails at item 650 (outcome unknown) and sends nothing
 *     after it. Running it again ends with exactly 1,000 certificates and 1,000 quota units.
 *   - the same with the default bulk calls, the 7th call (items 600-699) dropped before the
 *     service commits it.
 * Zapier (the app tester, the app's real code): a bulk step whose second call (lines
 * 100-149) is committed but its answer lost, then the step replayed: it issues 0.
 */
import zapier from 'zapier-platform-core';
import { NodeApiError, type INodeExecutionData } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import App from '../../zapier/src';
import { fakeExecute, inputItems, rl, type Credentials, type Params } from '../n8n/fake-context';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';

jest.setTimeout(120_000);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, quota: 10_000 });
});
afterAll(() => sb.close());

async function newBatch(title: string) {
  const ws = sb.controls.createWorkspace({ quota: 10_000 });
  const credentials: Credentials = { apiKey: ws.apiKey, baseUrl: sb.url };
  const response = await fetch(`${sb.baseUrl}/batches`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ws.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ title, designId: 'design_classic' }),
  });
  const body = (await response.json()) as { id?: string; data?: { id: string } };
  return { ws, credentials, batchId: body.id ?? body.data!.id };
}

/** What the service holds for a batch, read by the sandbox itself (not through the code under test). */
function certificates(workspaceId: string, batchId: string) {
  const recipients = sb.controls.certificates(batchId);
  return { count: recipients.length, emails: new Set(recipients.map((r) => r.email)).size, quotaUsed: sb.controls.quota(workspaceId).used };
}

const N = 1_000;
const emailOf = (i: number) => `rerun.learner${i}@example.com`;

async function runNode(credentials: Credentials, params: (i: number) => Params) {
  const fake = fakeExecute({ params, credentials, items: inputItems(N), continueOnFail: false });
  try {
    const [output] = await new CertificateService().execute.call(fake.context);
    return { output, error: undefined, requests: fake.requests };
  } catch (error) {
    return { output: undefined as INodeExecutionData[] | undefined, error, requests: fake.requests };
  }
}

const issueParams = (batchId: string, extra: Params) => (i: number): Params => ({
  resource: 'certificate',
  operation: 'issue',
  batch: rl(batchId),
  name: `Learner ${i}`,
  email: emailOf(i),
  specifyData: 'json',
  dataJson: { score: i }, // design_classic lists course and score: any other key is refused
  ...extra,
});

describe('n8n: an execution that failed part-way, run again', () => {
  it('fails at item 650 of 1,000 (committed, answer lost); the re-run ends with exactly 1,000 certificates and 1,000 quota units', async () => {
    const { ws, credentials, batchId } = await newBatch('R6 one by one');
    const params = issueParams(batchId, { options: { batchRequests: false } });
    sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: /\/recipients$/ }, every: 651, count: 1 });

    const first = await runNode(credentials, params);
    expect(first.error).toBeInstanceOf(NodeApiError);
    const error = first.error as NodeApiError;
    expect(error.context.itemIndex).toBe(650);
    expect(error.message).toMatch(new RegExp(`^Outcome unknown: POST .* for ${emailOf(650).replace(/\./g, '\\.')} was sent`));
    expect(error.description).toContain('Of 1000 items, 650 certificates were issued, 0 skipped (already issued), 0 invalid, 0 failed, 1 with an unknown outcome and 349 not sent');
    // The run stopped at the failure: item 650's request was the last one sent.
    const posts1 = first.requests.filter((r) => r.method === 'POST');
    expect(posts1).toHaveLength(651);
    expect((posts1.at(-1)!.body as { email: string }).email).toBe(emailOf(650));
    // Item 650 was committed before the connection dropped: 651 exist.
    expect(certificates(ws.workspaceId, batchId)).toEqual({ count: 651, emails: 651, quotaUsed: 651 });

    const second = await runNode(credentials, params);
    expect(second.error).toBeUndefined();
    // The design check's two reads (the batch, its design), one read of the batch's certificates
    // (651, 100 a page), then only the 349 missing.
    expect(second.requests.filter((r) => r.method === 'GET')).toHaveLength(9);
    expect(second.requests.filter((r) => r.method === 'POST')).toHaveLength(349);
    expect(second.output).toHaveLength(N);
    expect(second.output!.map((o) => o.pairedItem)).toEqual(Array.from({ length: N }, (_, item) => ({ item })));
    const skipped = second.output!.filter((o) => o.json.skipped === true).map((o) => (o.pairedItem as { item: number }).item);
    expect(skipped).toEqual(Array.from({ length: 651 }, (_, i) => i));
    second.output!.forEach((o, i) => expect(o.json.email).toBe(emailOf(i)));

    expect(certificates(ws.workspaceId, batchId)).toEqual({ count: N, emails: N, quotaUsed: N });
  });

  it('with the default bulk calls: the 7th call is lost before commit; the re-run issues exactly the 400 missing', async () => {
    const { ws, credentials, batchId } = await newBatch('R6 bulk');
    const params = issueParams(batchId, {});
    sb.controls.injectFaults({ kind: 'reset-before-commit', match: { method: 'POST', path: /\/recipients\/bulk$/ }, every: 7, count: 1 });

    const first = await runNode(credentials, params);
    expect(first.error).toBeInstanceOf(NodeApiError);
    expect((first.error as NodeApiError).context.itemIndex).toBe(600);
    expect((first.error as NodeApiError).description).toContain('Of 1000 items, 600 certificates were issued, 0 skipped (already issued), 0 invalid, 0 failed, 100 with an unknown outcome and 300 not sent');
    expect(certificates(ws.workspaceId, batchId)).toEqual({ count: 600, emails: 600, quotaUsed: 600 });

    const second = await runNode(credentials, params);
    expect(second.error).toBeUndefined();
    const bulkSizes = second.requests.filter((r) => r.method === 'POST').map((r) => (r.body as { recipients: unknown[] }).recipients.length);
    expect(bulkSizes).toEqual([100, 100, 100, 100]);
    expect(second.output!.filter((o) => o.json.skipped === true)).toHaveLength(600);
    expect(certificates(ws.workspaceId, batchId)).toEqual({ count: N, emails: N, quotaUsed: N });
  });
});

describe('Zapier: a replayed bulk step', () => {
  it('issues 0 the second time, after a first run whose second call was committed but its answer lost', async () => {
    const { ws, batchId } = await newBatch('R6 Zapier');
    const authData = { apiKey: ws.apiKey, baseUrl: sb.baseUrl };
    const lines = Array.from({ length: 150 }, (_, i) => ({ name: `Line ${i}`, email: emailOf(i) }));
    const bundle = { authData, inputData: { batch_id: batchId, recipients: lines } };
    const appTester = zapier.createAppTester(App);
    const perform = App.creates.issue_certificates_bulk.operation.perform as never;
    type Result = { issuedCount: number; skippedCount: number; failedCount: number; outcomeUnknownCount: number; results: Array<{ status: string }> };

    sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: /\/recipients\/bulk$/ }, every: 2, count: 1 });
    const first = (await appTester(perform, bundle as never)) as Result;
    expect(first).toMatchObject({ issuedCount: 100, skippedCount: 0, failedCount: 50, outcomeUnknownCount: 50 });
    expect(certificates(ws.workspaceId, batchId)).toEqual({ count: 150, emails: 150, quotaUsed: 150 });

    const replay = (await appTester(perform, bundle as never)) as Result;
    expect(replay).toMatchObject({ issuedCount: 0, skippedCount: 150, failedCount: 0 });
    expect(replay.results.every((r) => r.status === 'skipped')).toBe(true);
    expect(certificates(ws.workspaceId, batchId)).toEqual({ count: 150, emails: 150, quotaUsed: 150 });
  });
});
