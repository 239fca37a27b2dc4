// One fingerprint of the service for every user (in-flight holds, MCP confirmation tokens,
// Zapier's cache keys): the base URL as the client normalises it and the trimmed key, hashed.
import { serviceFingerprint } from '@certificate-service/sdk';
import { connectionCacheKey } from '../../zapier/src/lib/cache-key';

const KEY = 'sk_live_fingerprint_0123456789';

test('the same service however its base URL and key are written: trailing slashes, the /api/v1 suffix, spaces', () => {
  const one = serviceFingerprint('https://api.example.com/api/v1', KEY);
  for (const baseUrl of ['https://api.example.com/api/v1/', ' https://api.example.com ', 'https://api.example.com/api', 'https://api.example.com//']) {
    expect([baseUrl, serviceFingerprint(baseUrl, ` ${KEY}\n`)]).toEqual([baseUrl, one]);
  }
});

test('another key or another base URL is another service; the key is nowhere in it', () => {
  const one = serviceFingerprint('https://api.example.com/api/v1', KEY);
  expect(serviceFingerprint('https://api.example.com/api/v1', `${KEY}x`)).not.toBe(one);
  expect(serviceFingerprint('https://staging.example.com/api/v1', KEY)).not.toBe(one);
  expect(serviceFingerprint('https://api.example.com/api/v1', undefined)).not.toBe(one);
  expect(one).toMatch(/^[0-9a-f]{32}$/);
  // A base URL the client would refuse is still fingerprinted, by its own text.
  expect(serviceFingerprint('http://api.example.com', KEY)).not.toBe(serviceFingerprint('http://api.example.org', KEY));
});

test("Zapier's cache keys follow the fingerprint: equal services share a key, others never", () => {
  const key = (baseUrl: string, apiKey: string) => connectionCacheKey('design-variables:v1', { baseUrl, apiKey }, 'batch_1');
  expect(key('https://api.example.com/', ` ${KEY}`)).toBe(key('https://api.example.com/api/v1', KEY));
  expect(key('https://api.example.com/api/v1', `${KEY}x`)).not.toBe(key('https://api.example.com/api/v1', KEY));
  expect(key('https://api.example.com/api/v1', KEY)).not.toContain(KEY);
});
