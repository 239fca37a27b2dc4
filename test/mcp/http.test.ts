// --http: the guard in front of every request (bearer token, Host, Origin), the remote-host
// rule, and a real session through the official client's streamable HTTP transport.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ELICITATION_TIMEOUT_MS, serveHttp, TOOLS, type RunningHttp } from '@certificate-service/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { sandboxClient } from './harness';

const silentLoggerForTests = { info: () => undefined, warn: () => undefined };

let sb: Sandbox;
let server: RunningHttp;
const TOKEN = 'test-token-0123456789abcdefghij';
let announced = '';
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
  const client = sandboxClient(sb, sb.apiKey);
  server = await serveHttp({ port: 0, token: TOKEN, server: { client, secrets: [sb.apiKey, TOKEN] }, log: silentLoggerForTests, announce: (t) => void (announced += t) });
});
afterAll(async () => {
  await server.close();
  await sb.close();
});

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const post = (headers: Record<string, string>, url = server.url) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });

test('every request needs the bearer token: none, a wrong one or another scheme is 401, and nothing is served', async () => {
  for (const auth of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]) {
    const res = await post(auth ? { Authorization: auth } : {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.text()).not.toContain(TOKEN);
  }
  expect((await fetch(server.url, { method: 'GET' })).status).toBe(401);
  expect((await fetch(server.url, { method: 'DELETE' })).status).toBe(401);
  expect(announced).toBe(''); // a token from the environment is never printed
});

test('Host must name this server and Origin, when sent, must be its own (DNS rebinding)', async () => {
  const port = new URL(server.url).port;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  // fetch sets Host from the URL; a rebinding attack reaches 127.0.0.1 under another name.
  expect((await post(auth, server.url.replace('127.0.0.1', 'localhost'))).status).toBe(200);
  const rebound = await new Promise<number>((resolve, reject) => {
    const req = require('node:http').request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...auth, Host: `evil.example:${port}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } }, (res: { statusCode: number; resume(): void }) => (res.resume(), resolve(res.statusCode)));
    req.on('error', reject);
    req.end(JSON.stringify(initialize));
  });
  expect(rebound).toBe(403);
  expect((await post({ ...auth, Origin: 'https://evil.example' })).status).toBe(403);
  expect((await post({ ...auth, Origin: 'null' })).status).toBe(403);
  expect((await post({ ...auth, Origin: `http://127.0.0.1:${port}` })).status).toBe(200);
});

test('the official client over streamable HTTP with the token lists the tools and calls one', async () => {
  const client = new Client({ name: 'http-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  const result = await client.callTool({ name: 'list_designs', arguments: {} });
  expect(JSON.stringify(result)).toContain('design_classic');
  await client.close();
  const refused = new Client({ name: 'no-token', version: '1' });
  await expect(refused.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow(/401|token/i);
});

test('a host that is not loopback is refused without --allow-remote, and a short token always; a token made at start is printed once', async () => {
  const opts = { server: { client: () => { throw new Error('not reached'); } }, log: silentLoggerForTests, announce: () => undefined };
  await expect(serveHttp({ ...opts, host: '192.0.2.10', port: 0 })).rejects.toThrow(/--host 192\.0\.2\.10 is not a loopback address.*--allow-remote/);
  await expect(serveHttp({ ...opts, host: '0.0.0.0', port: 0, allowRemote: true })).rejects.toThrow(/listens on every address/);
  await expect(serveHttp({ ...opts, port: 0, token: 'short' })).rejects.toThrow(/CERTSVC_MCP_TOKEN is too short/);
  let printed = '';
  const made = await serveHttp({ ...opts, port: 0, announce: (t) => void (printed += t) });
  try {
    expect(made.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(printed).toBe(`certsvc-mcp: bearer token for ${made.url} (shown once; set CERTSVC_MCP_TOKEN to choose your own): ${made.token}\n`);
  } finally {
    await made.close();
  }
});

test('over HTTP, a client with elicitation that never answers: after the wait (30 s by default, short here) nothing is written', async () => {
  const ws = sb.controls.createWorkspace();
  const client = sandboxClient(sb, ws.apiKey);
  const batch = await client.createBatch({ title: 'Silent', designId: 'design_classic' });
  const quiet = await serveHttp({ port: 0, token: TOKEN, server: { client, askTimeoutMs: 300 }, log: silentLoggerForTests, announce: () => undefined });
  const mcp = new Client({ name: 'silent', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  mcp.setRequestHandler(ElicitRequestSchema, () => new Promise<never>(() => undefined));
  try {
    await mcp.connect(new StreamableHTTPClientTransport(new URL(quiet.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    sb.controls.resetCounters();
    const result = await mcp.callTool({ name: 'archive_batch', arguments: { batchId: batch.id } });
    expect(result.structuredContent).toMatchObject({ done: false, reason: 'cancelled' });
    expect(Object.keys(sb.controls.counters().requests.byRoute).filter((r) => !r.startsWith('GET ') && r !== 'POST /auth')).toEqual([]);
    expect(ELICITATION_TIMEOUT_MS).toBe(30_000);
  } finally {
    await mcp.close();
    await quiet.close();
  }
});

test('every protocol version accepted before is still accepted, each with an Mcp-Session-Id; an initialize asking for 2026-07-28 (which has no initialize) is offered 2025-11-25', async () => {
  const auth = { Authorization: `Bearer ${TOKEN}` };
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']) {
    const res = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...auth }, body: JSON.stringify({ ...initialize, params: { ...initialize.params, protocolVersion: version } }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = await res.text();
    expect(JSON.parse(/^data: (.*)$/m.exec(body)![1]).result.protocolVersion).toBe(version === '2026-07-28' ? '2025-11-25' : version);
  }
});

test('a client of the 2026-07-28 era (the official SDK v2 client with versionNegotiation auto) finds 2026-07-28 by server/discover and works without a session', async () => {
  const v2 = await import('@modelcontextprotocol/client');
  const transport = new v2.StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
  const auto = new v2.Client({ name: 'era-2026', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await auto.connect(transport);
  try {
    expect(auto.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(transport.sessionId).toBeUndefined();
    expect((await auto.listTools()).tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(JSON.stringify(await auto.callTool({ name: 'list_designs', arguments: {} }))).toContain('design_classic');
  } finally {
    await auto.close();
  }
});
