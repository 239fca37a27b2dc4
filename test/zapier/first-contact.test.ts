// Issue 18 in Zapier: when the batch's list comes back in a shape the core cannot read, the
// skip paths (Find Certificate by Email, Find or Issue, Issue with skip, bulk with skip) stop
// with a HaltedError that says what the service returned, and nothing is issued.
import nock from 'nock';
import { api, caught, designCached, run, setupNock } from './mock-api';

setupNock();
beforeEach(() => designCached());

const unknownBodies: Array<[string, () => nock.Interceptor, (i: nock.Interceptor) => nock.Scope, RegExp]> = [
  ['{entries: [...]}', () => api().get('/api/v1/batches/batch_1/recipients').query(true), (i) => i.reply(200, { entries: [{ id: 'rec_1', email: 'a@example.com' }] }), /an object with keys "entries"/],
  ['{payload: {rows: [...]}}', () => api().get('/api/v1/batches/batch_1/recipients').query(true), (i) => i.reply(200, { payload: { rows: [] } }), /an object with keys "payload"/],
  ['a 200 HTML page', () => api().get('/api/v1/batches/batch_1/recipients').query(true), (i) => i.reply(200, '<html><body>Sign in</body></html>', { 'Content-Type': 'text/html' }), /\(text\/html\) with an HTML page/],
];

describe.each(unknownBodies)('the batch list answers %s', (_name, list, answer, said) => {
  // Any POST would be an issue. None is mocked, so one would show up as an unmatched request.
  const unmatched: string[] = [];
  const record = (req: { method: string; path: string }) => unmatched.push(`${req.method} ${req.path}`);
  beforeEach(() => {
    unmatched.length = 0;
    nock.emitter.on('no match', record);
  });
  afterEach(() => void nock.emitter.removeListener('no match', record));
  const noIssue = () => ({ isDone: () => unmatched.some((r) => r.startsWith('POST')) });

  it('Find Certificate by Email (and so Find or Issue) halts instead of answering "not found"', async () => {
    answer(list());
    const error = await caught(run('searches.find_recipient.operation.perform', { inputData: { batch_id: 'batch_1', email: 'a@example.com' } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(said);
    expect(error.firstLine).toMatch(/Check the API Base URL of your Certificate Service connection/);
  });

  it('Issue Certificate with skip on halts and issues nothing', async () => {
    answer(list());
    const post = noIssue();
    const error = await caught(run('creates.issue_certificate.operation.perform', { inputData: { batch_id: 'batch_1', name: 'A', email: 'a@example.com', skip_existing: 'true' } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/not issued, because batch batch_1 could not be read to skip the certificates it already has/);
    expect(error.firstLine).toMatch(said);
    expect(post.isDone()).toBe(false);
  });

  it('Issue Certificates in Bulk (skip on by default) halts and issues nothing', async () => {
    answer(list());
    const post = noIssue();
    const recipients = [0, 1, 2].map((i) => ({ name: `P${i}`, email: `p${i}@example.com` }));
    const error = await caught(run('creates.issue_certificates_bulk.operation.perform', { inputData: { batch_id: 'batch_1', recipients } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/^No certificate was issued\. lines 1-3: GET \/batches\/\{batchId\}\/recipients answered 200/); // said once, for every line
    expect(post.isDone()).toBe(false);
  });
});
