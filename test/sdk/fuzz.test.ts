/**
 * Fuzzing the one call path with fast-check: random JSON and text bodies (with the API key and
 * a signing secret planted in them) answer list, bulk and single calls. Properties:
 * - no run issues after a read of the batch that the core could not read;
 * - no error or outcome contains the key or the secret (message, detail, cause, JSON, inspect);
 * - nothing throws anything but a CertificateServiceError, whatever the transport throws itself;
 * - an issue call whose transport threw is never repeated.
 * RUNS runs per property; the seed is printed by fast-check on a failure, so any counterexample replays.
 */
import fc from 'fast-check';
import { inspect } from 'node:util';
import { CertificateServiceClient, CertificateServiceError, type HttpRequest, type HttpResponse, type IssueOutcome } from '@certificate-service/sdk/core';
import { describeList } from '../../shared/sdk/src/decode';

const RUNS = 1500;
const KEY = 'sk_live_fuzz_key_0123456789';
const SECRET = 'wh_sec_fuzz_secret_abcdefghij';
const HOST_SECRET = 'host-only-secret-42';

const planted = fc.constantFrom(KEY, ` ${KEY} `, SECRET, `Bearer ${KEY}`, HOST_SECRET, `x${KEY}x`, `${SECRET.slice(0, 12)}`);
const text = fc.oneof(fc.string(), planted, fc.tuple(fc.string(), planted, fc.string()).map((p) => p.join('')));
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.constantFrom('data', 'items', 'results', 'recipients', 'nextCursor', 'next', 'id', 'email', 'error', 'message', 'detail', 'index', 'recipient', 'errors', 'hasMore'), text), tie('value'), { maxKeys: 5 }),
})).value;
const recipientish = fc.record({ id: fc.oneof(fc.constant('rec_1'), text), email: fc.oneof(fc.constant('a@x.test'), text), certificateId: text, name: text }, { requiredKeys: [] });
const listish = fc.oneof(
  fc.array(recipientish, { maxLength: 3 }),
  fc.record({ data: fc.array(recipientish, { maxLength: 3 }), nextCursor: fc.option(text) }),
  fc.record({ items: fc.array(json, { maxLength: 3 }), next_cursor: fc.option(text) }),
);
/** A body as it comes over the wire: JSON text of anything, or text that is not JSON. */
const wireBody = fc.oneof(
  json.map((v) => JSON.stringify(v)),
  listish.map((v) => JSON.stringify(v)),
  text,
  fc.constant('<html><body>Sign in</body></html>'),
  json.map((v) => JSON.stringify(v).slice(0, -1)), // truncated
);
const answer = fc.record({
  status: fc.oneof(fc.constantFrom(200, 201), fc.constantFrom(200, 201, 204, 400, 401, 404, 409, 422, 429, 500, 503)),
  body: wireBody,
  contentType: fc.constantFrom('application/json', 'text/html', '', `text/plain; ${KEY}`),
});
type Answer = { status: number; body: string; contentType: string };

function clientFor(answers: Answer[]) {
  const requests: HttpRequest[] = [];
  const client = new CertificateServiceClient({
    baseUrl: 'https://certs.example.com',
    apiKey: ` ${KEY}\n`, // pasted with whitespace: both forms must be redacted
    secrets: [HOST_SECRET],
    sleep: async () => undefined,
    transport: async (request): Promise<HttpResponse> => {
      requests.push(request);
      // The first answer is for every GET (retries included), the second for every other call.
      const a = answers[request.method === 'GET' ? 0 : Math.min(1, answers.length - 1)];
      return { status: a.status, headers: a.contentType ? { 'Content-Type': a.contentType } : {}, body: a.body };
    },
  });
  return { client, requests };
}

function clean(value: unknown): void {
  for (const view of [JSON.stringify(value instanceof CertificateServiceError ? value.toJSON() : value) ?? '', inspect(value, { depth: 12 }), String(value)]) {
    for (const secret of [KEY, SECRET, HOST_SECRET]) if (view.includes(secret)) throw new Error(`leaked ${secret === KEY ? 'the key' : 'a secret'}: ${view.slice(0, 300)}`);
  }
}

/** Runs a call: it resolves, or rejects with a CertificateServiceError; either way nothing leaks. */
async function settle<T>(call: () => Promise<T>): Promise<T | CertificateServiceError> {
  try {
    const value = await call();
    return value;
  } catch (error) {
    if (!(error instanceof CertificateServiceError)) throw new Error(`threw a non-CertificateServiceError: ${inspect(error)}`);
    clean(error);
    return error;
  }
}

const outcomesClean = (outcomes: IssueOutcome[] | CertificateServiceError) => {
  if (Array.isArray(outcomes)) for (const o of outcomes) if (!o.ok) clean(o.error);
};
const parse = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
};

test(`skipExisting never issues after a read it could not read (${RUNS} runs)`, async () => {
  let refused = 0;
  let issued = 0;
  await fc.assert(
    fc.asyncProperty(answer, answer, async (list, issue) => {
      const { client, requests } = clientFor([list, issue]);
      const items = [{ batchId: 'b1', name: 'A', email: 'a@x.test' }, { batchId: 'b1', name: 'Z', email: 'z@x.test' }];
      const outcomes = await settle(() => client.issueMany(items, { skipExisting: true, variables: false }));
      outcomesClean(outcomes);
      const posts = requests.filter((r) => r.method === 'POST').length;
      const readable = list.status >= 200 && list.status < 300 && describeList(parse(list.body)) !== undefined;
      if (!readable) expect(posts).toBe(0);
      if (posts > 0) issued++;
      else refused++;
    }),
    { numRuns: RUNS },
  );
  // Both sides were exercised (fast-check found readable lists too).
  expect(refused).toBeGreaterThan(0);
  expect(issued).toBeGreaterThan(0);
});

test(`lists: read or refused, never a guess, never a leak (${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(answer, async (a) => {
      const { client } = clientFor([a]);
      const found = await settle(() => client.findRecipientByEmail('b1', 'z@x.test'));
      if (found === null) expect(describeList(parse(a.body))).toBeDefined(); // "not there" only after a list was read
      clean(found);
      clean(await settle(() => client.listBatches()));
    }),
    { numRuns: RUNS },
  );
});

test(`bulk: each item ends with its certificate or its error, and no error leaks (${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(answer, async (a) => {
      const { client } = clientFor([a]);
      const outcomes = await settle(() => client.issueBulk('b1', [{ name: 'A', email: 'a@x.test' }, { name: 'B', email: 'b@x.test' }]));
      if (Array.isArray(outcomes)) expect(outcomes).toHaveLength(2);
      outcomesClean(outcomes);
    }),
    { numRuns: RUNS },
  );
});

test(`single resources: a value with an id, or an error (${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(answer, async (a) => {
      const { client } = clientFor([a, a]);
      for (const result of [await settle(() => client.getCertificate('CERT-1')), await settle(() => client.issueCertificate('b1', { name: 'A', email: 'a@x.test' }))]) {
        if (!(result instanceof CertificateServiceError)) expect(typeof result.id).toBe('string');
        clean(result);
      }
    }),
    { numRuns: RUNS },
  );
});

/** What a host's HTTP function may throw of its own: any value, often quoting the request it was given. */
const thrown: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(text, fc.option(fc.string({ maxLength: 12 })), fc.constantFrom('Error', 'TypeError', 'ThrottledError', 'NodeApiError')).map(([message, code, name]) => {
    const error = new Error(message);
    error.name = name;
    if (code !== null) Object.assign(error, { code, config: { headers: { Authorization: `Bearer ${KEY}` } } });
    return error;
  }),
  text,
  json,
  fc.constant(undefined),
);

test(`a transport's own error leaves as a CertificateServiceError, redacted, and an issue call is not repeated (${RUNS} runs)`, async () => {
  let transportErrors = 0;
  await fc.assert(
    fc.asyncProperty(thrown, async (value) => {
      const requests: HttpRequest[] = [];
      const client = new CertificateServiceClient({
        baseUrl: 'https://certs.example.com',
        apiKey: KEY,
        secrets: [HOST_SECRET],
        sleep: async () => undefined,
        transport: async (request) => {
          requests.push(request);
          throw value;
        },
      });
      const got = await settle(() => client.getBatch('b1'));
      if (got instanceof CertificateServiceError && got.code === 'TRANSPORT_ERROR') transportErrors++;
      requests.length = 0;
      const [outcome] = (await settle(() => client.issueMany([{ batchId: 'b1', name: 'A', email: 'a@x.test' }], { skipExisting: false, variables: false }))) as IssueOutcome[];
      outcomesClean([outcome]);
      expect(requests).toHaveLength(1); // a POST whose fate is unknown is never sent again
      expect(outcome.ok).toBe(false);
    }),
    { numRuns: RUNS },
  );
  expect(transportErrors).toBeGreaterThan(RUNS / 2);
});
