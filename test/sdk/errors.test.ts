import nock from 'nock';
import { CertificateServiceError } from '@certificate-service/sdk/core';
import { SERVICE_ERROR_CODES } from '../../shared/sdk/src/errors';
import { BASE, KEY, makeClient } from './helpers';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

async function failure(promise: Promise<unknown>): Promise<CertificateServiceError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CertificateServiceError);
  return error as CertificateServiceError;
}

// The statuses our sandbox uses for codes the spec leaves open; the code comes from the body.
const STATUS: Record<string, number> = {
  MISSING_API_KEY: 401, INVALID_API_KEY: 401, EXPIRED_API_KEY: 401, RATE_LIMITED: 429, VALIDATION_ERROR: 400,
  NOT_FOUND: 404, CONFLICT: 409, BATCH_ARCHIVED: 409, QUOTA_EXCEEDED: 402, PLAN_LIMIT_EXCEEDED: 403,
};

test.each([...SERVICE_ERROR_CODES])('maps the %s envelope to a typed error', async (code) => {
  nock(BASE).get('/api/v1/batches/b1').reply(STATUS[code], { error: code, message: `msg ${code}`, detail: { field: 'title' } }, { 'Retry-After': '7' });
  const { client } = makeClient({ retry: { maxRetries: 0 } });
  const error = await failure(client.getBatch('b1'));
  expect(error.code).toBe(code);
  expect(error.status).toBe(STATUS[code]);
  expect(error.message).toContain(`msg ${code}`);
  expect(error.field).toBe('title');
  expect(error.isAuthError).toBe(STATUS[code] === 401);
  if (code === 'RATE_LIMITED') expect(error.retryAfterSeconds).toBe(7);
});

test.each([
  [404, '', 'NOT_FOUND'],
  [409, 'text/plain conflict', 'CONFLICT'],
  [401, '<html>nope</html>', 'INVALID_API_KEY'],
  [418, '', 'UNKNOWN'],
])('a %s with a non-JSON or empty body still gives a clear error', async (status, body, code) => {
  nock(BASE).get('/api/v1/batches/b1').reply(status, body);
  const { client } = makeClient();
  const error = await failure(client.getBatch('b1'));
  expect(error.code).toBe(code);
  expect(error.status).toBe(status);
  expect(error.message.length).toBeGreaterThan(10);
});

test('an unknown future code is kept as the service sent it', async () => {
  nock(BASE).get('/api/v1/batches/b1').reply(422, { error: 'SOMETHING_NEW', message: 'New rule' });
  const error = await failure(makeClient().client.getBatch('b1'));
  expect(error.code).toBe('SOMETHING_NEW');
  expect(error.message).toBe('New rule');
});

test('messages never include the API key, even when the service echoes it', async () => {
  nock(BASE).post('/api/v1/auth').reply(401, { error: 'INVALID_API_KEY', message: `Key ${KEY} is not recognized` });
  const error = await failure(makeClient().client.auth());
  expect(error.message).not.toContain(KEY);
  expect(JSON.stringify(error)).not.toContain(KEY);
  expect(error.message).toContain('[redacted]');
});

test('a timeout is reported as TIMEOUT', async () => {
  nock(BASE).get('/api/v1/designs').delay(200).reply(200, []);
  const { CertificateServiceClient } = await import('@certificate-service/sdk/core');
  const { createFetchTransport } = await import('../../shared/sdk/src/fetch-transport');
  const client = new CertificateServiceClient({ baseUrl: BASE, apiKey: KEY, transport: createFetchTransport({ timeoutMs: 50 }), retry: { maxRetries: 0 }, sleep: async () => {} });
  const error = await failure(client.listDesigns());
  expect(error.code).toBe('TIMEOUT');
});
