// The base URL a user types: one ending in `/api` (the API's folder, without the version) is
// completed to `/api/v1`, not `/api/api/v1`. (The other forms: test/sdk/validation.test.ts.)
import { createClient, normaliseBaseUrl } from '@certificate-service/sdk';
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
