/**
 * R2 faults during issuance: 1,000 certificates through the n8n node's Issue operation
 * (fake n8n context, real HTTP, Continue On Fail on) while the sandbox injects
 *   - a 429 on every 3rd request (Retry-After: 0, so retries wait only the core's jitter),
 *   - a 500 on every 2nd GET,
 *   - one connection reset AFTER the sandbox committed a bulk call (the 4th bulk POST it sees).
 * Afterwards: no duplicate issuance (quota used == certificates that exist), and every
 * input item ends with its certificate or an "outcome unknown" error naming the item;
 * results + errors == 1,000, the reset chunk's 100 items are the outcome-unknown ones.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { createClient } from '@certificate-service/sdk';
import { fakeExecute, inputItems, rl, type Credentials } from '../n8n/fake-context';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';

jest.setTimeout(60_000);

// The node waits with n8n-workflow's sleep (429 Retry-After, GET 5xx backoff). The waits stay
// real but are scaled down 20× so the suite is fast; the requested durations are recorded.
jest.mock('n8n-workflow', () => {
  const actual = jest.requireActual('n8n-workflow');
  return { ...actual, sleep: jest.fn(async (ms: number) => await actual.sleep(Math.ceil(ms / 20))) };
});
const sleepMock = sleep as jest.MockedFunction<typeof sleep>;

const N = 1_000;
// Bulk POSTs in the order the sandbox sees them: chunk 0, chunk 1, chunk 2 (3rd request: 429),
// chunk 2 again (4th bulk POST: processed, then its socket is dropped). So chunk 2 is the one.
const RESET_ON_BULK_POST = 4;
const RESET_CHUNK = 2;
let sb: Sandbox;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, quota: 10_000 });
});
afterAll(() => sb.close());

async function runNode(params: Record<string, unknown> | ((i: number) => Record<string, unknown>), credentials: Credentials, items: number) {
  const fake = fakeExecute({ params, credentials, items: inputItems(items), continueOnFail: true });
  const [output] = await new CertificateService().execute.call(fake.context);
  return { output, requests: fake.requests };
}

it('1,000 issued through 429s, GET 5xx and a reset after commit: nothing doubled, nothing lost', async () => {
  const ws = sb.controls.createWorkspace({ quota: 10_000 });
  const credentials: Credentials = { apiKey: ws.apiKey, baseUrl: sb.url };
  const batchId = (await createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey }).createBatch({ title: 'R2', designId: 'design_classic' })).id;

  // First matching fault wins, so the reset is listed first: it sees every bulk POST.
  sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: /\/recipients\/bulk$/ }, every: RESET_ON_BULK_POST, count: 1 });
  sb.controls.injectFaults({ kind: '429', every: 3, count: -1, retryAfterSeconds: 0 });
  sb.controls.injectFaults({ kind: '500', match: { method: 'GET' }, every: 2, count: -1 });
  sb.controls.resetCounters();

  const emails = Array.from({ length: N }, (_, i) => `r2.learner${i}@example.com`);
  const { output, requests } = await runNode(
    (i) => ({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: `Learner ${i}`, email: emails[i], specifyData: 'json', dataJson: { score: i } }),
    credentials,
    N,
  );
  const issueCounters = sb.controls.counters();
  const issueWaits = sleepMock.mock.calls.map(([ms]) => ms);

  // The faults really happened.
  const faults = sb.controls.faults();
  expect(faults.find((f) => f.kind === '429')!.fired).toBeGreaterThanOrEqual(3);
  expect(issueCounters.faultsInjected).toBeGreaterThanOrEqual(4);
  // 10 bulk calls after three reads (the batch and its design for the design check, its
  // certificates for skip-existing); each 429 and each GET 500 retried; the reset one never repeated.
  const bulkPosts = requests.filter((r) => r.method === 'POST' && r.url.endsWith('/recipients/bulk'));
  expect(requests.length).toBe(3 + 10 + faults.find((f) => f.kind === '429')!.fired + faults.find((f) => f.kind === '500')!.fired);
  expect(bulkPosts.length).toBeGreaterThan(10);
  // Each 429 waited Retry-After (0 s) plus the core's jitter (< 250 ms), nothing longer; a GET's
  // 500 (the reads before sending meet them too) backed off 500 ms and up.
  expect(issueWaits).toHaveLength(faults.find((f) => f.kind === '429')!.fired + faults.find((f) => f.kind === '500')!.fired);
  expect(issueWaits.filter((ms) => ms < 250)).toHaveLength(faults.find((f) => f.kind === '429')!.fired);
  expect(issueWaits.filter((ms) => ms >= 250).every((ms) => ms >= 500)).toBe(true);

  // Every input item has exactly one output item, paired with it.
  expect(output).toHaveLength(N);
  expect(output.map((o) => o.pairedItem)).toEqual(Array.from({ length: N }, (_, item) => ({ item })));
  const isIssued = (o: INodeExecutionData) => typeof o.json.certificateId === 'string';
  const issued = output.filter(isIssued);
  const errors = output.filter((o) => !isIssued(o));
  expect(issued.length + errors.length).toBe(N);

  // The reset chunk: items 200..299 are "outcome unknown", each naming its item.
  const resetChunk = Array.from({ length: 100 }, (_, k) => RESET_CHUNK * 100 + k);
  expect(errors.map((o) => (o.pairedItem as { item: number }).item)).toEqual(resetChunk);
  for (const i of resetChunk) {
    const json = output[i].json;
    expect(json.outcomeUnknown).toBe(true);
    expect(String(json.error)).toMatch(/^r2\.learner\d+@example\.com: Outcome unknown/);
    expect(String(json.error)).toContain(emails[i]);
    // What to do is said once, in the core's hint, which n8n shows as the description.
    expect(String(json.description)).toMatch(/It was not repeated, so nothing is applied twice/);
    expect(String(json.error)).not.toMatch(/not repeated|not retried/);
  }
  // Everything else was issued, to the right person.
  for (const o of issued) expect(o.json.email).toBe(emails[(o.pairedItem as { item: number }).item]);

  // What exists on the service, read back through the node (GETs meet a 500 every 2nd time and retry).
  const listed = await runNode({ resource: 'certificate', operation: 'getMany', batch: rl(batchId), returnAll: true }, credentials, 1);
  const faults500 = sb.controls.faults().find((f) => f.kind === '500')!;
  sb.controls.clearFaults();
  const existing = listed.output.map((o) => o.json);
  expect(existing.every((r) => typeof r.certificateId === 'string')).toBe(true);
  const quotaUsed = sb.controls.quota(ws.workspaceId).used;
  // The reset chunk WAS committed by the service: it exists, it was charged, and it was not sent twice.
  expect(existing).toHaveLength(N);
  expect(quotaUsed).toBe(existing.length);
  expect(sb.controls.counters().certificatesIssued).toBe(N);
  expect(new Set(existing.map((r) => r.email)).size).toBe(N);
  expect(new Set(existing.map((r) => r.certificateId)).size).toBe(N);
  // The GET retries really happened: 500s answered, backed off (500 ms and up), retried.
  expect(faults500.fired).toBeGreaterThanOrEqual(5);
  expect(sleepMock.mock.calls.slice(issueWaits.length).some(([ms]) => ms >= 500)).toBe(true);
});
