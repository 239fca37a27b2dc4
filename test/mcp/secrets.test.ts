// No key or signing secret in any tool list, result, error, progress message or log line,
// whatever the service echoes: the planted-secret fuzz of test/sdk/fuzz.test.ts, through the
// MCP server and the official client. Random JSON and text bodies carrying the key and a
// signing secret answer every call of every tool (the "user" accepts every confirmation, so
// the write paths run too). RUNS runs; fast-check prints the seed of any counterexample.
import fc from 'fast-check';
import { CertificateServiceClient, type HttpResponse } from '@certificate-service/sdk';
import { TOOLS } from '@certificate-service/mcp';
import { plantedBodies } from '../support/planted';
import { API_KEY as KEY, BASE_URL } from '../support/service';
import { connect } from './harness';

const RUNS = 300;
const SECRET = 'wh_sec_mcp_fuzz_secret_abcdefghij';

const { text, json } = plantedBodies(
  [KEY, ` ${KEY} `, SECRET, `Bearer ${KEY}`, `x${KEY}x`],
  ['data', 'items', 'id', 'email', 'error', 'message', 'detail', 'secret', 'url', 'events', 'certificateId', 'title', 'status', 'variables', 'nextCursor'],
  3,
);
// Bodies shaped enough to get past the first read sometimes (a batch, a certificate, a list of them).
const recipientish = fc.record({ id: fc.oneof(fc.constant('rec_1'), text), batchId: fc.constant('b1'), email: fc.oneof(fc.constant('a@x.test'), text), certificateId: text, name: text, url: text, events: fc.constant(['certificate.issued']), secret: text, title: text, designId: text, status: fc.constant('active') });
const body = fc.oneof(json.map((v) => JSON.stringify(v)), recipientish.map((v) => JSON.stringify(v)), fc.array(recipientish, { maxLength: 3 }).map((v) => JSON.stringify({ data: v, nextCursor: null })), text);
const answer = fc.record({ status: fc.constantFrom(200, 201, 200, 400, 401, 404, 429, 500), body, contentType: fc.constantFrom('application/json', 'text/html', `text/plain; ${KEY}`) });

const ARGS: Record<string, Record<string, unknown>> = {
  list_batches: {},
  get_batch: { batchId: 'b1' },
  list_designs: {},
  create_batch: { title: 'T', designId: 'd1' },
  archive_batch: { batchId: 'b1' },
  unarchive_batch: { batchId: 'b1' },
  issue_certificates: { batchId: 'b1', recipients: [{ name: 'A', email: 'a@x.test' }, { name: 'B', email: `b@x.test` }], send: true },
  send_certificate: { certificateId: 'CERT-1' },
  find_certificate: { shareToken: 'tok' },
  find_certificate_by_email: { batchId: 'b1', email: 'a@x.test' },
  update_certificate: { batchId: 'b1', recipientId: 'rec_1', name: `N ${KEY}` },
  delete_certificate: { batchId: 'b1', recipientId: 'rec_1' },
  list_subscriptions: {},
  test_subscription: { subscriptionId: 'whs_1' },
  delete_subscription: { subscriptionId: 'whs_1' },
  doctor: {},
};

const leaks = (view: string) => [KEY, SECRET].some((s) => view.includes(s));

test('every tool has fuzz arguments', () => expect(Object.keys(ARGS).sort()).toEqual(TOOLS.map((t) => t.name).sort()));

test(`no key or signing secret in any result, error, progress message or log line (${RUNS} runs)`, async () => {
  let answers: Array<{ status: number; body: string; contentType: string }> = [];
  let n = 0;
  const transport = async (): Promise<HttpResponse> => {
    const a = answers[n++ % answers.length];
    return { status: a.status, headers: { 'Content-Type': a.contentType, 'Retry-After': '0' }, body: a.body };
  };
  const client = new CertificateServiceClient({ baseUrl: BASE_URL, apiKey: ` ${KEY}\n`, sleep: async () => undefined, transport, retry: { maxRetries: 1, maxWaitMs: 10, baseDelayMs: 0 } });
  const h = await connect({ client, observedClient: () => client, user: 'accept', secrets: [KEY], confirmAbove: 0 });
  const listed = JSON.stringify(await h.client.listTools());
  expect(leaks(listed)).toBe(false);
  let toolErrors = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(ARGS)), fc.array(answer, { minLength: 1, maxLength: 4 }), async (tool, script) => {
        answers = script;
        n = 0;
        const progress: unknown[] = [];
        const result = await h.call(tool, ARGS[tool], { onprogress: (p) => progress.push(p) });
        if (result.isError) toolErrors++;
        for (const view of [JSON.stringify(result), JSON.stringify(progress), h.logs.join('\n'), h.asked.join('\n')]) {
          if (leaks(view)) throw new Error(`${tool} leaked: ${view.slice(0, 400)}`);
        }
      }),
      { numRuns: RUNS },
    );
  } finally {
    await h.close();
  }
  expect(toolErrors).toBeGreaterThan(0); // the error paths ran
  expect(toolErrors).toBeLessThan(RUNS); // and so did answers read as success
});
