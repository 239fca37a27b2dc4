// Issue 33 in Zapier: Issue Certificate and Issue Certificates (Bulk) check the design's required
// variables by default, whatever fields the step uses. The stub service (nock) issues whatever
// it is sent: it does NOT enforce the design. The design read is kept in z.cache between runs.
import type { ZObject } from 'zapier-platform-core';
import { CertificateServiceClient } from '@certificate-service/sdk/core';
import { createFetchTransport } from '../../shared/sdk/src/fetch-transport';
import { DESIGN_CACHE_TTL_SECONDS, designCacheKey, designVariables } from '../../zapier/src/lib/design-check';
import { API_KEY, BASE_URL, api, appTester, authData, caught, recipient, run, setupNock } from './mock-api';

setupNock();

const requiredCourse = { id: 'design_req', variables: [{ name: 'course', label: 'Course', required: true }] };
/** The design check's two reads, against a stub that answers them once. */
function designReads(design: Record<string, unknown> = requiredCourse) {
  api().get('/api/v1/batches/batch_1').reply(200, { id: 'batch_1', title: 'B', designId: design.id, status: 'active' });
  api().get('/api/v1/designs').reply(200, { data: [design], nextCursor: null });
}
/** The single-issue POST, recording what was sent and issuing it as it is. */
function answerSingleIssue(sent: Array<Record<string, unknown>>, times = 1) {
  api()
    .post('/api/v1/batches/batch_1/recipients')
    .times(times)
    .reply(201, (_uri, body) => {
      const b = body as Record<string, unknown>;
      sent.push(b);
      return recipient({ id: `rec_${sent.length}`, email: b.email as string, data: b.data as Record<string, string> });
    });
}
const issue = (inputData: Record<string, unknown>, clearCache = false) => run<Record<string, unknown>>('creates.issue_certificate.operation.perform', { inputData }, clearCache);

describe('issue_certificate', () => {
  it('free-form data without the required course: refused before sending, naming data.course; with it: issued', async () => {
    designReads();
    const sent: Array<Record<string, unknown>> = [];
    answerSingleIssue(sent);
    // `room` is allowed here, so the one refusal is the required course's.
    const error = await caught(issue({ batch_id: 'batch_1', name: 'Bad', email: 'bad@example.com', data: { room: 'B2' }, allow_unknown_variables: 'true' }, true));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/data\.course/);
    // The next run takes the design from z.cache: no second read (nock answers each read once).
    await expect(issue({ batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com', data: { course: 'Welding' } })).resolves.toMatchObject({ id: 'rec_1' });
    expect(sent.map((b) => b.email)).toEqual(['ada@example.com']);
  });

  it('a design that lists no variables does not block issuing', async () => {
    designReads({ id: 'design_none' });
    const sent: Array<Record<string, unknown>> = [];
    answerSingleIssue(sent);
    await expect(issue({ batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com' }, true)).resolves.toMatchObject({ id: 'rec_1' });
  });

  it('a name that matches two variables of the design (`Course`, `course`) halts, naming both, even allowed; nothing is sent', async () => {
    // No issue POST is stubbed: one sent would fail the step with nock's "no match" instead.
    designReads({ id: 'design_twins', variables: [{ name: 'Course' }, { name: 'course' }] });
    const error = await caught(issue({ batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com', data: { course: 'x' }, allow_unknown_variables: 'true' }, true));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toContain('"course" matches 2 variables of the certificate design ("Course", "course")');
  });

  it('a variable named __proto__ travels like any other: the named field fills it, and it is sent', async () => {
    designReads({ id: 'design_proto', variables: [{ name: '__proto__', label: 'Proto', required: true }, { name: 'constructor', required: true }] });
    const sent: Array<Record<string, unknown>> = [];
    answerSingleIssue(sent);
    await issue({ batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com', variable____proto__: 'p', variable__constructor: 'c' }, true);
    expect(Object.entries(sent[0].data as object)).toEqual([['__proto__', 'p'], ['constructor', 'c']]);
  });
});

describe('issue_certificates_bulk', () => {
  it('the line without the required course is reported invalid and never sent; the others are issued', async () => {
    designReads();
    const sent: string[] = [];
    api()
      .post('/api/v1/batches/batch_1/recipients/bulk')
      .reply(201, (_uri, body) => {
        const list = (body as { recipients: Array<{ email: string }> }).recipients;
        sent.push(...list.map((r) => r.email));
        return { data: list.map((r, i) => recipient({ id: `rec_${i}`, email: r.email })) };
      });
    const lines = [
      { name: 'Ada', email: 'ada@example.com', data_json: '{"course": "Welding"}' },
      { name: 'Bad', email: 'bad@example.com', data_json: '{"course": " "}' },
      { name: 'Cy', email: 'cy@example.com', data_json: '{"course": "Rigging"}' },
    ];
    const result = await run<{ results: Array<{ status: string; outcome: string; errorMessage: string }> }>(
      'creates.issue_certificates_bulk.operation.perform',
      { inputData: { batch_id: 'batch_1', skip_existing: 'false', recipients: lines } },
      true,
    );
    expect(result.results.map((r) => r.outcome)).toEqual(['issued', 'invalid', 'issued']);
    expect(result.results[1].errorMessage).toMatch(/data\.course/);
    expect(sent).toEqual(['ada@example.com', 'cy@example.com']);
  });
});

describe('the design cache', () => {
  it('is keyed per connection and batch by a hash: another key or base URL never shares an entry, and the key is nowhere in it', async () => {
    const a = designCacheKey(authData, 'batch_1');
    expect(designCacheKey({ ...authData, apiKey: `${API_KEY}x` }, 'batch_1')).not.toBe(a);
    expect(designCacheKey({ ...authData, baseUrl: 'https://staging.example.com/api/v1' }, 'batch_1')).not.toBe(a);
    expect(designCacheKey(authData, 'batch_2')).not.toBe(a);
    designReads();
    answerSingleIssue([]);
    await issue({ batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com', data: { course: 'C' } }, true);
    const cache = (appTester as unknown as { zcacheTestObj: Record<string, string> }).zcacheTestObj;
    expect(Object.keys(cache)).toEqual([a]);
    expect(JSON.stringify(cache)).not.toContain(API_KEY);
  });

  it('is set for five minutes; without a working z.cache (local runs have no RPC) it reads every time', async () => {
    const client = new CertificateServiceClient({ baseUrl: BASE_URL, apiKey: API_KEY, transport: createFetchTransport(), sleep: async () => undefined });
    const sets: unknown[][] = [];
    const working = { cache: { get: async () => null, set: async (...args: unknown[]) => sets.push(args) } } as unknown as ZObject;
    designReads();
    await expect(designVariables(working, { authData }, client, 'batch_1')).resolves.toEqual(new Map([['batch_1', [expect.objectContaining({ name: 'course', required: true })]]]));
    expect(sets).toEqual([[designCacheKey(authData, 'batch_1'), expect.any(Array), DESIGN_CACHE_TTL_SECONDS]]);
    expect(DESIGN_CACHE_TTL_SECONDS).toBe(300);

    const broken = { cache: { get: () => Promise.reject(new Error('No token found - cannot call RPC')), set: () => { throw new Error('rpc is not available'); } } } as unknown as ZObject;
    designReads();
    designReads();
    for (let i = 0; i < 2; i++) await expect(designVariables(broken, { authData }, client, 'batch_1')).resolves.toBeInstanceOf(Map);
  });

  it('an entry that is not a list of variables is read again, never trusted', async () => {
    const client = new CertificateServiceClient({ baseUrl: BASE_URL, apiKey: API_KEY, transport: createFetchTransport(), sleep: async () => undefined });
    const odd = { cache: { get: async () => [{ name: 'course' }], set: async () => true } } as unknown as ZObject;
    designReads();
    const map = await designVariables(odd, { authData }, client, 'batch_1');
    expect(map?.get('batch_1')).toEqual([expect.objectContaining({ name: 'course', required: true })]);
  });
});
