// The searches and the search-or-create: a 404 is "nothing found", not an error.
import { app, api, asOutput, caught, recipient, run, setupNock } from './mock-api';

setupNock();

const search = (key: string, inputData: Record<string, unknown>) => run<unknown[]>(`searches.${key}.operation.perform`, { inputData });
const notFound = { error: 'NOT_FOUND', message: 'Not found.', detail: {} };

describe('find_certificate', () => {
  it('looks the certificate up by its ID', async () => {
    const r = recipient({ certificateId: 'CERT-2025-000001-1234' });
    api().get('/api/v1/certificates/CERT-2025-000001-1234').reply(200, r);
    await expect(search('find_certificate', { certificate_id: ' CERT-2025-000001-1234 ' })).resolves.toEqual([asOutput(r)]);
  });

  it('with a Batch, finds only a certificate of that batch', async () => {
    const r = recipient({ certificateId: 'CERT-2025-000001-1234', batchId: 'batch_1' });
    api().get('/api/v1/certificates/CERT-2025-000001-1234').times(2).reply(200, r);
    await expect(search('find_certificate', { batch_id: 'batch_1', certificate_id: 'CERT-2025-000001-1234' })).resolves.toEqual([asOutput(r)]);
    await expect(search('find_certificate', { batch_id: 'batch_2', certificate_id: 'CERT-2025-000001-1234' })).resolves.toEqual([]);
  });

  it('offers the certificates of the chosen batch as a dropdown, and the batch is optional', () => {
    const fields = app.searches.find_certificate.operation.inputFields as Array<Record<string, unknown>>;
    expect(fields.find((f) => f.key === 'certificate_id')).toMatchObject({ required: true, dynamic: 'recipient_list.certificateId.label' });
    expect(fields.find((f) => f.key === 'batch_id')).toMatchObject({ required: false, dynamic: 'batch_list.id.title' });
  });

  it('escapes the ID in the path', async () => {
    api().get('/api/v1/certificates/a%2Fb%3F').reply(404, notFound);
    await expect(search('find_certificate', { certificate_id: 'a/b?' })).resolves.toEqual([]);
  });

  it('returns [] on a 404', async () => {
    api().get('/api/v1/certificates/CERT-X').reply(404, notFound);
    await expect(search('find_certificate', { certificate_id: 'CERT-X' })).resolves.toEqual([]);
  });

  it('other errors still fail', async () => {
    api().get('/api/v1/certificates/CERT-X').reply(401, { error: 'INVALID_API_KEY', message: 'bad', detail: {} });
    expect((await caught(search('find_certificate', { certificate_id: 'CERT-X' }))).name).toBe('ExpiredAuthError');
  });
});

describe('find_certificate_by_token', () => {
  it('looks the certificate up by its share token', async () => {
    api().get('/api/v1/certificates/by-token/tok_1').reply(200, { data: recipient() });
    await expect(search('find_certificate_by_token', { share_token: 'tok_1' })).resolves.toEqual([asOutput(recipient())]);
  });

  it.each([
    ['https://certs.example.com/v/tok_1'],
    ['https://certs.example.com/v/tok_1/'],
    [' https://viewer.example.org/some/prefix/v/tok_1?utm_source=mail '],
  ])('takes the share token from a certificate URL: %s', async (url) => {
    api().get('/api/v1/certificates/by-token/tok_1').reply(200, { data: recipient() });
    await expect(search('find_certificate_by_token', { share_token: url })).resolves.toEqual([asOutput(recipient())]);
  });

  it.each([
    ['https://certs.example.com/certificates/tok_1', /certificate URL ends in \/v\/<share token>/],
    ['tok/1', /neither a share token nor a certificate URL/],
    ['', /required/],
  ])('refuses %p before any request, naming the field', async (value, why) => {
    const error = await caught(search('find_certificate_by_token', { share_token: value }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(why);
    expect(error.firstLine).toMatch(/Share Token/);
  });

  it('returns [] on a 404', async () => {
    api().get('/api/v1/certificates/by-token/nope').reply(404, notFound);
    await expect(search('find_certificate_by_token', { share_token: 'nope' })).resolves.toEqual([]);
  });
});

describe('find_recipient', () => {
  it('pages through the batch until the email matches (ignoring case) and stops there', async () => {
    api()
      .get('/api/v1/batches/batch_1/recipients')
      .query({ limit: '100' })
      .reply(200, { data: [recipient({ id: 'rec_a', email: 'a@example.com' })], nextCursor: 'p2' });
    api()
      .get('/api/v1/batches/batch_1/recipients')
      .query({ limit: '100', cursor: 'p2' })
      .reply(200, { data: [recipient({ id: 'rec_b', email: 'Grace@Example.com' }), recipient({ id: 'rec_c', email: 'grace@example.com' })], nextCursor: 'p3' });
    await expect(search('find_recipient', { batch_id: 'batch_1', email: 'GRACE@example.com' })).resolves.toEqual([
      asOutput(recipient({ id: 'rec_b', email: 'Grace@Example.com' })),
    ]);
  });

  it('returns [] when no recipient has the email', async () => {
    api().get('/api/v1/batches/batch_1/recipients').query(true).reply(200, { data: [recipient()], nextCursor: null });
    await expect(search('find_recipient', { batch_id: 'batch_1', email: 'nobody@example.com' })).resolves.toEqual([]);
  });

  it('returns [] when the batch does not exist', async () => {
    api().get('/api/v1/batches/batch_x/recipients').query(true).reply(404, notFound);
    await expect(search('find_recipient', { batch_id: 'batch_x', email: 'a@example.com' })).resolves.toEqual([]);
  });

  it('halts on an invalid email before sending anything', async () => {
    const error = await caught(search('find_recipient', { batch_id: 'batch_1', email: 'not-an-email' }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/Recipient Email/);
  });
});

describe('search-or-create', () => {
  it('pairs Find Certificate by Email with Issue Certificate', () => {
    expect(app.searchOrCreates.find_recipient).toMatchObject({ key: 'find_recipient', search: 'find_recipient', create: 'issue_certificate' });
    // Shared input keys let Zapier carry the search's values into the create.
    const keys = (fields: unknown[] | undefined) => (fields ?? []).map((f) => (f as { key: string }).key);
    expect(keys(app.creates.issue_certificate.operation.inputFields)).toEqual(expect.arrayContaining(keys(app.searches.find_recipient.operation.inputFields)));
  });

  it.each(Object.keys(app.searches))('%s has a "Finds ..." description, a sample and output fields', (key) => {
    const s = app.searches[key];
    expect(s.display.description).toMatch(/^Finds .*\.$/);
    expect(s.operation.sample).toBeTruthy();
    expect(s.operation.outputFields?.length).toBeGreaterThan(0);
  });
});
