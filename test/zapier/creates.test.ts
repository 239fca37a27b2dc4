// Every create: the request it sends through the core and what a Zap can map from it.
import { app, api, caught, designCached, recipient, run, setupNock } from './mock-api';

setupNock();
beforeEach(() => designCached());

const create = <T = Record<string, unknown>>(key: string, inputData: Record<string, unknown>) =>
  run<T>(`creates.${key}.operation.perform`, { inputData });

describe('create_batch', () => {
  it('POSTs the title and design and returns the batch', async () => {
    const batch = { id: 'batch_1', title: 'Spring', designId: 'design_classic', status: 'active', createdAt: '2025-06-01T00:00:00Z' };
    api().post('/api/v1/batches', { title: 'Spring', designId: 'design_classic' }).reply(201, batch);
    await expect(create('create_batch', { title: ' Spring ', design_id: 'design_classic' })).resolves.toEqual(batch);
  });

  it('refuses a missing title before sending', async () => {
    const error = await caught(create('create_batch', { title: '', design_id: 'design_classic' }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/Check the Title field/);
  });
});

describe('issue_certificate', () => {
  it('POSTs name, email, variables (as strings) and send, and returns the recipient', async () => {
    const r = recipient({ data: { course: 'Analytics', score: '92' } });
    api()
      .post('/api/v1/batches/batch_1/recipients', { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Analytics', score: '92' }, send: true })
      .reply(201, r);
    const result = await create('issue_certificate', {
      batch_id: 'batch_1',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      data: { course: 'Analytics', score: 92 },
      send: 'true',
    });
    // Unset dates (null) are left out: Zapier's editor expects a date in a datetime field.
    const { expiryDate: _e, emailSentAt: _s, ...withoutUnsetDates } = r;
    expect(result).toEqual({ ...withoutUnsetDates, skipped: false, recovered: false });
  });

  it.each([
    [false, false],
    ['no', false],
    [undefined, false],
    [true, true],
    ['yes', true],
  ])('send %j is sent as %j', async (send, expected) => {
    api()
      .post('/api/v1/batches/batch_1/recipients', (body) => body.send === expected && body.data && Object.keys(body.data).length === 0)
      .reply(201, recipient());
    await create('issue_certificate', { batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com', data: {}, send });
  });
});

describe('issue_certificate: Skip If Already Issued (off by default)', () => {
  it('off: no batch read, one POST', async () => {
    api().post('/api/v1/batches/batch_1/recipients').reply(201, recipient());
    await expect(create('issue_certificate', { batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com' })).resolves.toMatchObject({ skipped: false });
  });

  it('on: an email the batch already has is returned, marked skipped, and nothing is issued', async () => {
    api().get('/api/v1/batches/batch_1/recipients').query({ limit: 100 }).reply(200, { data: [recipient({ id: 'rec_9', email: 'ADA@example.com' })] });
    await expect(create('issue_certificate', { batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com', skip_existing: 'true' })).resolves.toMatchObject({ id: 'rec_9', skipped: true });
  });

  it('its help text says it scans the batch on every run and points to Find or Issue', () => {
    const field = app.creates.issue_certificate.operation.inputFields.find((f: { key: string }) => f.key === 'skip_existing');
    expect(field).toMatchObject({ type: 'boolean', default: 'false' });
    expect(field.helpText).toMatch(/every Zap run/);
    expect(field.helpText).toMatch(/Find or Issue Certificate/);
    const bulkField = app.creates.issue_certificates_bulk.operation.inputFields.find((f: { key: string }) => f.key === 'skip_existing');
    expect(bulkField).toMatchObject({ type: 'boolean', default: 'true' });
  });
});

describe('issue_certificates_bulk', () => {
  // The mechanics below, without the batch read of "Skip Emails Already Issued" (tested at the end).
  const bulk = <T = Record<string, unknown>>(inputData: Record<string, unknown>) => create<T>('issue_certificates_bulk', { skip_existing: 'false', ...inputData });
  const lines = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ name: `Person ${from + i}`, email: `p${from + i}@example.com` }));
  const issued = (body: { recipients: Array<{ name: string; email: string }> }) => ({
    data: body.recipients.map((r, i) => recipient({ id: `rec_${r.email}`, name: r.name, email: r.email, certificateId: `CERT-2025-${i}` })),
  });

  it('splits 150 lines into bulk calls of at most 100 and reports every line', async () => {
    const sizes: number[] = [];
    api()
      .post('/api/v1/batches/batch_1/recipients/bulk')
      .times(2)
      .reply(201, (_uri, body) => {
        const b = body as { recipients: Array<{ name: string; email: string }>; send: boolean };
        sizes.push(b.recipients.length);
        expect(b.send).toBe(false);
        return issued(b);
      });
    const result = await bulk<{ results: Array<Record<string, unknown>>; issuedCount: number; total: number }>({
      batch_id: 'batch_1',
      recipients: lines(150),
    });
    expect(sizes).toEqual([100, 50]);
    expect(result.total).toBe(150);
    expect(result.issuedCount).toBe(150);
    expect(result.results.map((r) => r.line)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(result.results[149]).toMatchObject({ status: 'issued', email: 'p149@example.com', recipientId: 'rec_p149@example.com' });
  });

  it('merges shared variables with each line\'s JSON variables, and reports a bad line without sending it', async () => {
    api()
      .post('/api/v1/batches/batch_1/recipients/bulk', {
        recipients: [
          { name: 'Ada', email: 'ada@example.com', data: { course: 'Analytics', score: '92' } },
          { name: 'Alan', email: 'alan@example.com', data: { course: 'Override' } },
        ],
        send: true,
      })
      .reply(201, (_uri, body) => issued(body as { recipients: Array<{ name: string; email: string }> }));
    const result = await bulk<Record<string, unknown> & { results: Array<Record<string, unknown>> }>({
      batch_id: 'batch_1',
      send: true,
      data: { course: 'Analytics' },
      recipients: [
        { name: 'Ada', email: 'ada@example.com', data_json: '{"score": 92}' },
        { name: 'Grace', email: 'not-an-email' },
        { name: 'Alan', email: 'alan@example.com', data_json: { course: 'Override' } },
        { name: 'Bad JSON', email: 'bad@example.com', data_json: '{oops' },
      ],
    });
    expect(result).toMatchObject({ total: 4, issuedCount: 2, failedCount: 2, outcomeUnknownCount: 0, failedEmails: ['not-an-email', 'bad@example.com'] });
    expect(result.results.map((r) => r.status)).toEqual(['issued', 'failed', 'issued', 'failed']);
    expect(result.results[1]).toMatchObject({ line: 2, errorCode: 'VALIDATION_ERROR', recipientId: '', certificateId: '' });
    expect(String(result.results[3].errorMessage)).toMatch(/JSON/);
    expect(String(result.errorSummary)).toMatch(/^line 2: .*; line 4: /);
    // Every line has the same keys, so mapped line-item columns line up.
    const keys = Object.keys(result.results[0]).sort();
    for (const r of result.results) expect(Object.keys(r).sort()).toEqual(keys);
  });

  it('uses the single-issue endpoint for a lone line', async () => {
    api().post('/api/v1/batches/batch_1/recipients', { name: 'Ada', email: 'ada@example.com', data: {}, send: false }).reply(201, recipient());
    const result = await bulk<{ issuedCount: number }>({ batch_id: 'batch_1', recipients: [{ name: 'Ada', email: 'ada@example.com' }] });
    expect(result.issuedCount).toBe(1);
  });

  it('reads per-item results (partial success) from the service', async () => {
    api()
      .post('/api/v1/batches/batch_1/recipients/bulk')
      .reply(207, {
        results: [
          { index: 0, recipient: recipient({ id: 'rec_a', email: 'a@example.com' }) },
          { index: 1, error: { error: 'VALIDATION_ERROR', message: 'email is on the blocklist', detail: { field: 'email' } } },
        ],
      });
    const result = await bulk<{ results: Array<Record<string, unknown>> }>({ batch_id: 'batch_1', recipients: lines(2) });
    expect(result.results[0]).toMatchObject({ status: 'issued', recipientId: 'rec_a' });
    expect(result.results[1]).toMatchObject({ status: 'failed', errorCode: 'VALIDATION_ERROR', errorMessage: expect.stringMatching(/blocklist/) });
  });

  it('fails the step when nothing was issued: bad lines only → HaltedError listing them', async () => {
    const error = await caught(bulk({ batch_id: 'batch_1', recipients: [{ name: '', email: 'x' }, { name: 'B', email: 'nope' }] }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/^No certificate was issued\. line 1: .*; line 2: /);
  });

  it('fails the step when nothing was issued: a rate limit → ThrottledError (safe to retry, nothing issued)', async () => {
    api().post('/api/v1/batches/batch_1/recipients/bulk').reply(429, { error: 'RATE_LIMITED', message: 'Slow down', detail: {} }, { 'Retry-After': '40' });
    const error = await caught(bulk({ batch_id: 'batch_1', recipients: lines(3) }));
    expect(error.name).toBe('ThrottledError');
    expect(Number(error.json?.delay)).toBeGreaterThan(40);
  });

  it('fails the step when nothing was issued: an archived batch → HaltedError', async () => {
    api().post('/api/v1/batches/batch_1/recipients/bulk').reply(409, { error: 'BATCH_ARCHIVED', message: 'Batch batch_1 is archived.', detail: {} });
    const error = await caught(bulk({ batch_id: 'batch_1', recipients: lines(2) }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/archived/);
  });

  it('an unknown outcome is never retried by the core; the error says what a replay does, and halts when a replay would issue again', async () => {
    // Skip on (the default): a replay skips what landed, so autoreplay may retry it (a plain error).
    api().post('/api/v1/batches/batch_1/recipients/bulk').reply(500, 'oops');
    api().get('/api/v1/batches/batch_1/recipients').query({ limit: 100 }).reply(200, { data: [] });
    const skipping = await caught(create('issue_certificates_bulk', { batch_id: 'batch_1', recipients: lines(2) }));
    expect(skipping.name).toBe('AppError');
    expect(String(skipping.json?.message)).toMatch(/No certificate was issued.*Outcome unknown.*Replaying this step is safe: the lines already in the batch are skipped/);
    // Skip off: a replay would issue every line again, so it is halted (autoreplay never replays halted steps).
    api().post('/api/v1/batches/batch_1/recipients/bulk').reply(500, 'oops');
    const notSkipping = await caught(bulk({ batch_id: 'batch_1', recipients: lines(2) }));
    expect(notSkipping.name).toBe('HaltedError');
    expect(notSkipping.firstLine).toMatch(/No certificate was issued.*Outcome unknown.*"Skip Emails Already Issued in This Batch" is off, so a replay would issue every line again/);
  });

  it('reports a partial failure without failing the step (a retry would issue twice)', async () => {
    api().post('/api/v1/batches/batch_1/recipients/bulk').reply(201, (_uri, body) => issued(body as { recipients: Array<{ name: string; email: string }> }));
    api().post('/api/v1/batches/batch_1/recipients/bulk').reply(429, { error: 'RATE_LIMITED', message: 'Slow down', detail: {} }, { 'Retry-After': '40' });
    const result = await bulk<{ issuedCount: number; failedCount: number; results: Array<Record<string, unknown>> }>({
      batch_id: 'batch_1',
      recipients: lines(120),
    });
    expect(result.issuedCount).toBe(100);
    expect(result.failedCount).toBe(20);
    expect(result.results[119]).toMatchObject({ status: 'failed', errorCode: 'RATE_LIMITED' });
  });

  it('needs at least one line', async () => {
    const error = await caught(bulk({ batch_id: 'batch_1', recipients: [] }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/Recipients/);
  });

  describe('Skip Emails Already Issued in This Batch (on by default)', () => {
    it('reads the batch once, returns lines already issued (any case) as skipped, and counts them', async () => {
      api().get('/api/v1/batches/batch_1/recipients').query({ limit: 100 }).reply(200, { data: [recipient({ id: 'rec_old', email: 'P1@Example.com', certificateId: 'CERT-OLD' })] });
      api().post('/api/v1/batches/batch_1/recipients/bulk', (body) => body.recipients.map((r: { email: string }) => r.email).join() === 'p0@example.com,p2@example.com').reply(201, (_uri, body) => issued(body as { recipients: Array<{ name: string; email: string }> }));
      const result = await create<Record<string, unknown> & { results: Array<Record<string, unknown>> }>('issue_certificates_bulk', {
        batch_id: 'batch_1',
        recipients: [...lines(3), { name: 'Again', email: 'p0@EXAMPLE.com' }],
      });
      expect(result).toMatchObject({ total: 4, issuedCount: 2, skippedCount: 2, failedCount: 0 });
      expect(result.results.map((r) => r.status)).toEqual(['issued', 'skipped', 'issued', 'skipped']);
      expect(result.results[1]).toMatchObject({ certificateId: 'CERT-OLD', recipientId: 'rec_old' });
    });

    it('a replayed step whose lines all exist issues nothing and still succeeds', async () => {
      api().get('/api/v1/batches/batch_1/recipients').query({ limit: 100 }).reply(200, { data: lines(2).map((l, i) => recipient({ id: `rec_${i}`, email: l.email })) });
      const result = await create<Record<string, unknown>>('issue_certificates_bulk', { batch_id: 'batch_1', recipients: lines(2) });
      expect(result).toMatchObject({ issuedCount: 0, skippedCount: 2, failedCount: 0 });
    });
  });

  it('each line is validated and normalised once on its way to the wire (shared variables once in all)', async () => {
    const validation = jest.requireActual('../../shared/sdk/src/validation');
    const validateIssue = jest.spyOn(validation, 'validateIssue');
    const normaliseData = jest.spyOn(validation, 'normaliseData');
    try {
      api().post('/api/v1/batches/batch_1/recipients/bulk').times(2).reply(201, (_uri, body) => issued(body as { recipients: Array<{ name: string; email: string }> }));
      await bulk({ batch_id: 'batch_1', data: { course: 'X' }, recipients: lines(150).map((l) => ({ ...l, data_json: '{"score": 1}' })) });
      expect(validateIssue).toHaveBeenCalledTimes(150);
      expect(normaliseData.mock.calls.filter(([value]) => value !== undefined)).toHaveLength(150 + 1);
    } finally {
      validateIssue.mockRestore();
      normaliseData.mockRestore();
    }
  });
});

describe('recipient actions', () => {
  it('send_certificate POSTs .../send', async () => {
    api().post('/api/v1/batches/batch_1/recipients/rec_1/send').reply(202, recipient({ emailStatus: 'queued' }));
    await expect(create('send_certificate', { batch_id: 'batch_1', recipient_id: 'rec_1' })).resolves.toMatchObject({
      id: 'rec_1',
      emailStatus: 'queued',
      queued: true,
    });
  });

  it('update_recipient PATCHes only the fields given', async () => {
    api().patch('/api/v1/batches/batch_1/recipients/rec_1', { email: 'new@example.com', data: { score: '99' } }).reply(200, recipient({ email: 'new@example.com' }));
    await expect(create('update_recipient', { batch_id: 'batch_1', recipient_id: 'rec_1', name: '', email: 'new@example.com', data: { score: 99 } })).resolves.toMatchObject({
      email: 'new@example.com',
    });
  });

  it('update_recipient with nothing to change halts before sending', async () => {
    const error = await caught(create('update_recipient', { batch_id: 'batch_1', recipient_id: 'rec_1', name: ' ', data: {} }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/at least one of name, email or data/);
  });

  it('delete_recipient DELETEs and reports what was deleted', async () => {
    api().delete('/api/v1/batches/batch_1/recipients/rec_1').reply(204);
    await expect(create('delete_recipient', { batch_id: 'batch_1', recipient_id: 'rec_1' })).resolves.toEqual({ id: 'rec_1', batchId: 'batch_1', deleted: true });
  });
});

describe('batch actions', () => {
  it.each([
    ['archive_batch', 'archive', 'archived'],
    ['unarchive_batch', 'unarchive', 'active'],
  ])('%s POSTs .../%s and returns the batch', async (key, path, status) => {
    api().post(`/api/v1/batches/batch_1/${path}`).reply(200, { id: 'batch_1', title: 'T', designId: 'd', status });
    await expect(create(key, { batch_id: 'batch_1' })).resolves.toMatchObject({ id: 'batch_1', status });
  });

  it('works with an empty response body too', async () => {
    api().post('/api/v1/batches/batch_1/archive').reply(204);
    await expect(create('archive_batch', { batch_id: 'batch_1' })).resolves.toEqual({ id: 'batch_1', status: 'archived' });
  });
});

describe('definitions', () => {
  it.each(Object.keys(app.creates))('%s has a label, a description ending in a period, a sample and output fields', (key) => {
    const c = app.creates[key];
    expect(c.key).toBe(key);
    expect(c.display.label).toMatch(/^[A-Z]/);
    expect(c.display.description).toMatch(/\.$/);
    expect(c.operation.sample).toBeTruthy();
    expect(c.operation.outputFields?.length).toBeGreaterThan(0);
    // Functions are dynamic fields (the design's variables), checked in variables.test.ts.
    for (const field of (c.operation.inputFields ?? []).filter((f: unknown) => typeof f !== 'function')) {
      if (!field.children) expect(field.helpText).toMatch(/\.$/);
    }
  });
});
