// The one error mapping (zapier/src/lib/errors.ts), exercised through real operations:
// service envelopes, the core's pre-send validation, 401s, 429s and unknown outcomes.
import nock from 'nock';
import { API_KEY, api, caught, designCached, freshCache, run, setupNock } from './mock-api';
import { DEFAULT_THROTTLE_SECONDS, MAX_JITTER_SECONDS, fieldLabel, throttleDelay } from '../../zapier/src/lib/errors';
import { ZAPIER_RETRY } from '../../zapier/src/lib/client';

setupNock();
// A fresh cache: an unknown outcome leaves a lost-answer marker that would make the next issue look the email up.
beforeEach(() => {
  freshCache();
  designCached();
});

const issue = (inputData: Record<string, unknown>) => run('creates.issue_certificate.operation.perform', { inputData });
const validIssue = { batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com' };
const envelope = (error: string, message: string, detail: Record<string, unknown> = {}) => ({ error, message, detail });

describe('error mapping', () => {
  it.each(['INVALID_API_KEY', 'EXPIRED_API_KEY', 'MISSING_API_KEY'])(
    'a 401 %s during an action is an ExpiredAuthError (Zapier holds the runs and asks the user to reconnect)',
    async (code) => {
      api().get('/api/v1/certificates/CERT-1').reply(401, envelope(code, 'no'));
      const error = await caught(run('searches.find_certificate.operation.perform', { inputData: { certificate_id: 'CERT-1' } }));
      expect(error.name).toBe('ExpiredAuthError');
      expect(error.message).toContain(code);
      expect(error.message).toMatch(/API keys/);
    },
  );

  it('a service VALIDATION_ERROR is a HaltedError naming the field', async () => {
    api().post('/api/v1/batches').reply(400, envelope('VALIDATION_ERROR', 'designId "x" is not a design of this workspace', { field: 'designId' }));
    const error = await caught(run('creates.create_batch.operation.perform', { inputData: { title: 'T', design_id: 'x' } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toBe('designId "x" is not a design of this workspace. Check the Design field.');
  });

  it('the core validates before sending: a bad email is a HaltedError and no request is made', async () => {
    const error = await caught(issue({ ...validIssue, email: 'not-an-email' }));
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(/"not-an-email" is not a valid email address/);
    expect(error.message).toMatch(/Check the Recipient Email field/);
  });

  it.each([
    [404, 'NOT_FOUND', 'Batch batch_1 not found.'],
    [409, 'CONFLICT', 'Batch batch_1 is already archived.'],
    [409, 'BATCH_ARCHIVED', 'Batch batch_1 is archived.'],
  ])('a %i %s on an action is a HaltedError (never turns the Zap off)', async (status, code, message) => {
    api().post('/api/v1/batches/batch_1/archive').reply(status, envelope(code, message));
    const error = await caught(run('creates.archive_batch.operation.perform', { inputData: { batch_id: 'batch_1' } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toBe(message);
  });

  it.each([
    [402, 'QUOTA_EXCEEDED'],
    [403, 'PLAN_LIMIT_EXCEEDED'],
  ])('a %i %s is a z.errors.Error with code and status', async (status, code) => {
    api().post('/api/v1/batches/batch_1/recipients').reply(status, envelope(code, 'Limit reached.'));
    const error = await caught(issue(validIssue));
    expect(error.name).toBe('AppError');
    expect(error.json).toEqual({ message: 'Limit reached.', code, status });
  });

  it('a 429 with a long Retry-After is a ThrottledError with that delay plus a little jitter, not a long sleep', async () => {
    api().post('/api/v1/batches/batch_1/recipients').reply(429, envelope('RATE_LIMITED', 'Too many requests.'), { 'Retry-After': '30' });
    const started = Date.now();
    const error = await caught(issue(validIssue));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.name).toBe('ThrottledError');
    const delay = Number(error.json?.delay);
    expect(delay).toBeGreaterThanOrEqual(31);
    expect(delay).toBeLessThanOrEqual(30 + MAX_JITTER_SECONDS);
    expect(String(error.json?.message)).toMatch(/rate limit/);
  });

  it('a 429 with an HTTP-date Retry-After is read by the core', async () => {
    const at = new Date(Date.now() + 90_000).toUTCString();
    api().get('/api/v1/certificates/CERT-1').reply(429, envelope('RATE_LIMITED', 'Slow down.'), { 'Retry-After': at });
    const error = await caught(run('searches.find_certificate.operation.perform', { inputData: { certificate_id: 'CERT-1' } }));
    expect(error.name).toBe('ThrottledError');
    expect(Number(error.json?.delay)).toBeGreaterThanOrEqual(89);
    expect(Number(error.json?.delay)).toBeLessThanOrEqual(91 + MAX_JITTER_SECONDS);
  });

  it('a 429 without Retry-After is throttled for the default delay', async () => {
    // Retry-After missing: the core waits ~1 s per retry within its short budget, then gives up.
    const scope = api().get('/api/v1/certificates/CERT-1').times(ZAPIER_RETRY.maxRetries + 1).reply(429, envelope('RATE_LIMITED', 'Slow down.'));
    const error = await caught(run('searches.find_certificate.operation.perform', { inputData: { certificate_id: 'CERT-1' } }));
    expect(scope.isDone()).toBe(true);
    expect(error.name).toBe('ThrottledError');
    expect(Number(error.json?.delay)).toBeGreaterThan(DEFAULT_THROTTLE_SECONDS);
  }, 15_000);

  it('a 429 with a short Retry-After is retried by the core within the step', async () => {
    api().post('/api/v1/batches/batch_1/recipients').reply(429, envelope('RATE_LIMITED', 'wait'), { 'Retry-After': '0' });
    api().post('/api/v1/batches/batch_1/recipients').reply(201, { id: 'rec_1', certificateId: 'CERT-1' });
    await expect(issue(validIssue)).resolves.toMatchObject({ id: 'rec_1' });
  });

  it('a 5xx on issue is "outcome unknown": not retried, a plain error naming the recipient', async () => {
    const scope = api().post('/api/v1/batches/batch_1/recipients').once().reply(502, 'Bad gateway');
    const error = await caught(issue(validIssue));
    expect(scope.isDone()).toBe(true);
    expect(error.name).toBe('AppError');
    expect(String(error.json?.message)).toMatch(/^Outcome unknown: .*ada@example\.com/);
    expect(error.json?.status).toBe(502);
  });

  it('a 5xx on a GET is retried by the core (safe to repeat)', async () => {
    api().get('/api/v1/certificates/CERT-1').reply(503, '');
    api().get('/api/v1/certificates/CERT-1').reply(200, { id: 'rec_1', batchId: 'batch_1', certificateId: 'CERT-1' });
    await expect(run('searches.find_certificate.operation.perform', { inputData: { certificate_id: 'CERT-1' } })).resolves.toEqual([
      { id: 'rec_1', batchId: 'batch_1', certificateId: 'CERT-1' },
    ]);
  });

  it('a network failure on issue is "outcome unknown" too, and never leaks the API key', async () => {
    nock('https://certs.example.com').post('/api/v1/batches/batch_1/recipients').replyWithError(`socket hang up (${API_KEY})`);
    const error = await caught(issue(validIssue));
    expect(error.name).toBe('AppError');
    expect(error.message).toMatch(/Outcome unknown/);
    expect(error.message).not.toContain(API_KEY);
  });
});

describe('error helpers', () => {
  it('throttleDelay adds 1 to MAX_JITTER_SECONDS seconds', () => {
    expect(throttleDelay(10, () => 0)).toBe(11);
    expect(throttleDelay(10, () => 0.999)).toBe(10 + MAX_JITTER_SECONDS);
    expect(throttleDelay(undefined, () => 0)).toBe(DEFAULT_THROTTLE_SECONDS + 1);
  });

  it('fieldLabel names Zapier input fields, including bulk lines and variables', () => {
    expect(fieldLabel('batchId')).toBe('Batch');
    expect(fieldLabel('recipients[3].email')).toBe('Recipient Email (line 4)');
    expect(fieldLabel('data.score')).toBe('Certificate Variables (score)');
    expect(fieldLabel('somethingElse')).toBe('somethingElse');
  });
});
