// One way to build a client from the environment (the CLI and the MCP server both use it).
import { clientFromEnv, CertificateServiceError } from '@certificate-service/sdk';

const KEY = 'sk_live_env_test_key_000000000001';

test('reads CERTSVC_API_KEY and CERTSVC_BASE_URL; given values win; a missing one is an error naming the variable', () => {
  const env = { CERTSVC_API_KEY: KEY, CERTSVC_BASE_URL: 'https://env.example/api/v1' };
  expect(clientFromEnv(env).baseUrl).toBe('https://env.example/api/v1');
  expect(clientFromEnv(env, { baseUrl: 'https://flag.example/api/v1' }).baseUrl).toBe('https://flag.example/api/v1');

  const noKey = (() => { try { clientFromEnv({ CERTSVC_BASE_URL: 'https://env.example/api/v1', CERTSVC_API_KEY: '  ' }); } catch (e) { return e; } })();
  expect(noKey).toBeInstanceOf(CertificateServiceError);
  expect((noKey as CertificateServiceError).message).toMatch(/CERTSVC_API_KEY/);
  expect(() => clientFromEnv({ CERTSVC_API_KEY: KEY })).toThrow(/CERTSVC_BASE_URL/);
  // The host's own words for a missing variable.
  expect(() => clientFromEnv({}, { missing: (v) => new Error(`set ${v}, please`) })).toThrow('set CERTSVC_API_KEY, please');
  // The key never appears in the error for a missing URL.
  expect(() => clientFromEnv({ CERTSVC_API_KEY: KEY })).not.toThrow(new RegExp(KEY));
});

test('one UsageError: the CLI and the MCP server throw the SDK\'s class', async () => {
  const { UsageError } = await import('@certificate-service/sdk');
  const mcp = await import('@certificate-service/mcp');
  expect(mcp.UsageError).toBe(UsageError);
  expect(() => mcp.selectTools({ tools: ['no_such_tool'] })).toThrow(UsageError);
});
