// The one loopback rule and the one check of a local server's requests (Host, Origin,
// Sec-Fetch-Site), which the MCP server's --http and the sandbox both run: table-driven.
// Against a real server: test/mcp/http.test.ts, test/sandbox/foreign-requests.test.ts, and in
// Chromium test/sandbox/page-chromium.e2e.test.ts.
import { foreignRequest, isLoopbackHost, isWildcardHost, normaliseBaseUrl, serverHostNames } from '@certificate-service/sdk';

test.each([
  ['127.0.0.1', true],
  ['127.8.9.10', true],
  ['localhost', true],
  ['LOCALHOST', true],
  ['::1', true],
  ['[::1]', true],
  ['0.0.0.0', false],
  ['192.0.2.10', false],
  ['localhost.example', false],
  ['127.0.0.1.nip.io', false],
])('isLoopbackHost(%s) is %s', (host, loopback) => {
  expect(isLoopbackHost(host)).toBe(loopback);
});

test('the base URL rule is the same loopback rule: http:// only on a loopback host', () => {
  expect(normaliseBaseUrl('http://127.8.9.10:4010')).toBe('http://127.8.9.10:4010/api/v1');
  expect(normaliseBaseUrl('http://[::1]:4010')).toBe('http://[::1]:4010/api/v1');
  expect(() => normaliseBaseUrl('http://127.0.0.1.nip.io:4010')).toThrow(/https/);
});

test.each([
  ['0.0.0.0', true],
  ['::', true],
  ['', true],
  ['127.0.0.1', false],
])('isWildcardHost(%j) is %s', (host, wildcard) => {
  expect(isWildcardHost(host)).toBe(wildcard);
});

test.each([
  ['127.0.0.1', 4010, [], ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010']],
  ['0.0.0.0', 4010, [], ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010']],
  ['127.0.0.2', 4010, [], ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010', '127.0.0.2:4010']],
  ['192.0.2.10', 4010, ['Host.Docker.Internal'], ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010', '192.0.2.10:4010', 'host.docker.internal:4010']],
  ['fe80::1', 4010, [], ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010', '[fe80::1]:4010']],
  ['::1', 4010, [], ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010']],
  // Port 80: a client leaves it out of Host and Origin.
  ['127.0.0.1', 80, [], ['127.0.0.1:80', '127.0.0.1', 'localhost:80', 'localhost', '[::1]:80', '[::1]']],
])('serverHostNames(%s, %i, %j)', (host, port, extra, names) => {
  expect(serverHostNames(host, port, extra)).toEqual(names);
});

describe('foreignRequest', () => {
  const allowed = serverHostNames('127.0.0.1', 4010);
  const own = { host: '127.0.0.1:4010' };

  test.each<[string, string, Record<string, string | string[]>]>([
    ['no Origin, no Sec-Fetch (curl, an SDK, a test client)', 'POST', own],
    ['another loopback name', 'POST', { host: 'LOCALHOST:4010' }],
    ['its own Origin', 'POST', { ...own, origin: 'http://127.0.0.1:4010' }],
    ['its own Origin under another of its names', 'POST', { ...own, origin: 'http://localhost:4010' }],
    ['a same-origin fetch', 'POST', { ...own, origin: 'http://127.0.0.1:4010', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' }],
    ['a typed address or a bookmark', 'GET', { ...own, 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }],
    ['a link followed from another site (a top-level GET navigation)', 'GET', { ...own, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }],
  ])('answered: %s', (_, method, headers) => {
    expect(foreignRequest(method, headers, allowed)).toBeUndefined();
  });

  test.each<[string, string, Record<string, string | string[]>, string]>([
    ['no Host', 'GET', {}, 'Host'],
    ['a rebound name (DNS rebinding)', 'GET', { host: 'evil.example:4010' }, 'Host'],
    ['its own name on another port', 'GET', { host: '127.0.0.1:4011' }, 'Host'],
    ['its name without the port', 'GET', { host: '127.0.0.1' }, 'Host'],
    ['a repeated Host', 'GET', { host: ['127.0.0.1:4010', '127.0.0.1:4010'] }, 'Host'],
    ['another site', 'POST', { ...own, origin: 'https://evil.example' }, 'Origin'],
    ['another port of this machine', 'POST', { ...own, origin: 'http://127.0.0.1:3000' }, 'Origin'],
    ['"null" (a sandboxed frame, a privacy setting)', 'POST', { ...own, origin: 'null' }, 'Origin'],
    ['an Origin on a GET', 'GET', { ...own, origin: 'http://evil.example' }, 'Origin'],
    ['a cross-site request without Origin (no-cors GET, an image)', 'GET', { ...own, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }, 'Sec-Fetch-Site'],
    ['a same-site one (localhost:3000 → localhost:4010)', 'GET', { ...own, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' }, 'Sec-Fetch-Site'],
    ['a cross-site POST navigation (a form) even without Origin', 'POST', { ...own, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, 'Sec-Fetch-Site'],
  ])('refused: %s, on its %s', (_, method, headers, header) => {
    const refused = foreignRequest(method, headers, allowed);
    expect(refused).toMatchObject({ header });
    expect(refused!.message).toMatch(header === 'Host' ? /^Host ".*" is not this server \(allowed: 127\.0\.0\.1:4010, localhost:4010, \[::1\]:4010\)\.$/ : /is not allowed/);
  });
});
