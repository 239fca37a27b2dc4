// The base URL a user types: one ending in `/api` (the API's folder, without the version) is
// completed to `/api/v1`, not `/api/api/v1`. (The other forms: test/sdk/validation.test.ts.)
import { CertificateServiceError, createClient, normaliseBaseUrl } from '@certificate-service/sdk';
import { createSandbox } from '@certificate-service/sandbox';

test.each([
  ['https://certs.example.com/api', 'https://certs.example.com/api/v1'],
  ['https://certs.example.com/api/', 'https://certs.example.com/api/v1'],
  ['https://certs.example.com/tenant/api', 'https://certs.example.com/tenant/api/v1'],
  ['https://certs.example.com/myapi', 'https://certs.example.com/myapi/api/v1'],
  ['https://certs.example.com/api/v1', 'https://certs.example.com/api/v1'],
])('base URL %s is normalised to %s', (input, expected) => {
  expect(normaliseBaseUrl(input)).toBe(expected);
});

test('a client given <origin>/api reaches the service', async () => {
  const sandbox = await createSandbox({ rateLimit: false });
  try {
    const client = createClient({ baseUrl: `${sandbox.url}/api`, apiKey: sandbox.apiKey! });
    await expect(client.auth()).resolves.toMatchObject({ workspaceId: 'ws_demo' });
  } finally {
    await sandbox.close();
  }
});

// A base URL that names another version of the API is refused, naming the setting, not
// completed to `/api/v2/api/v1` (a 404 on every call, far from its cause).
test.each([
  ['https://certs.example.com/api/v2', 'https://certs.example.com/api/v1'],
  ['https://certs.example.com/tenant/api/v10/', 'https://certs.example.com/tenant/api/v1'],
  ['http://127.0.0.1:4010/api/v0', 'http://127.0.0.1:4010/api/v1'],
])('base URL %s is refused, naming the setting and the /api/v1 address to use', (input, suggested) => {
  let error: unknown;
  try {
    normaliseBaseUrl(input, 'baseUrl');
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(CertificateServiceError);
  expect(error).toMatchObject({ code: 'VALIDATION_ERROR', phase: 'validation', detail: { field: 'baseUrl' } });
  expect((error as Error).message).toBe(`Invalid "baseUrl": ends in /api/${/\/api\/(v\d+)\/?$/.exec(input)![1]}, but these connectors speak version 1 of the API: use ${suggested}`);
});

test('the CLI refuses CERTSVC_BASE_URL=…/api/v2 before sending anything, naming it', async () => {
  const sandbox = await createSandbox({ rateLimit: false });
  try {
    const { connect } = await import('../../shared/cli/src/connect');
    expect(() => connect({}, { CERTSVC_API_KEY: sandbox.apiKey!, CERTSVC_BASE_URL: `${sandbox.url}/api/v2` })).toThrow(/Invalid "baseUrl": ends in \/api\/v2/);
    expect(sandbox.controls.counters().requests.total).toBe(0);
  } finally {
    await sandbox.close();
  }
});
