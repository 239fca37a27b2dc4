// No key or signing secret in any tool list, result, error, progress message or log line,
// whatever the service echoes: the planted-secret fuzz of test/sdk/fuzz.test.ts, through the
// MCP server and the official client. Random JSON and text bodies carrying the key and a
// signing secret answer every call of every tool (the "user" accepts every confirmation, so
// the write paths run too). RUNS runs; fast-check prints the seed of any counterexample.
import fc from 'fast-check';
import { CertificateServiceClient, type HttpResponse } from '@certificate-service/sdk';
import type { ExampleTargets } from '@certificate-service/mcp';
import { plantedBodies } from '../support/planted';
import { API_KEY as KEY, BASE_URL } from '../support/service';
import { connect, examples } from './harness';

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

/** What the examples act on: fixed ids (the answers are the fuzz's, whatever was asked). */
const TARGETS: ExampleTargets = {
  batch: async () => 'b1',
  archivedBatch: async () => 'b1',
  design: async () => 'd1',
  certificate: async () => ({ certificateId: 'CERT-1', batchId: 'b1', recipientId: 'rec_1', email: 'a@x.test' }),
  subscription: async () => 'whs_1',
};
/** Each tool's own example, and the key planted in an argument the confirmation question repeats. */
let ARGS: Record<string, Record<string, unknown>> = {};
beforeAll(async () => {
  const own = await examples(TARGETS);
  ARGS = { ...own, update_certificate: { ...own.update_certificate, name: `N ${KEY}` } };
});

const leaks = (view: string) => [KEY, SECRET].some((s) => view.includes(s));

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
