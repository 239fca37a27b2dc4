// The made-up service the unit tests talk to (nock or a fake transport answers it): one origin,
// one API path, one key, for the SDK, n8n, Zapier and MCP tests alike; the local stubs
// (test/sdk/stub-service.ts, test/mcp/stub.ts) check no key and are called with this one too.
// The sandbox's demo key is the sandbox's own (DEMO_API_KEY from @certificate-service/sandbox).
export const ORIGIN = 'https://certs.example.com';
export const API_PATH = '/api/v1';
export const BASE_URL = `${ORIGIN}${API_PATH}`;
export const API_KEY = 'sk_live_test_key_0123456789abcdef';
