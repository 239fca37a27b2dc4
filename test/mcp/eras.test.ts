// One endpoint, both protocol eras: a 2026-07-28 client (the official SDK v2 client, pinned to
// that revision: no session, per-request _meta, confirmation by an input-required result) and a
// 2025-11-25 client (SDK 1.32.2's Client, with an Mcp-Session-Id), against the same --http
// server and a stub service that counts the writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@certificate-service/sdk';
import { createSandbox } from '@certificate-service/sandbox';
import { ConfirmationTokens, serveHttp, TOOLS, type RunningHttp } from '@certificate-service/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LIST_BUDGET, overBudget, sandboxClient } from './harness';
import { startStub, type Stub } from './stub';

// Like the other MCP suites: under load (2 cores, other suites) a first 2026 round can pass jest's 5 s default.
jest.setTimeout(60_000);
const TOKEN = 'eras-token-0123456789abcdefghij';
const silent = { info: () => undefined, warn: () => undefined };
let stub: Stub;
let server: RunningHttp;
const auth = { Authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  stub = await startStub();
  const tokens = new ConfirmationTokens(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-mcp-eras-')), 'mcp', 'confirmations'));
  server = await serveHttp({ port: 0, token: TOKEN, server: { client: createClient({ baseUrl: stub.baseUrl, apiKey: 'key_eras' }), tokens, secrets: [TOKEN] }, log: silent, announce: () => undefined });
});
afterAll(async () => {
  await server.close();
  await stub.close();
});

/** The tools a 2026-07-28 client was given: a 2025 client must get the very same entries. */
let modernTools: unknown[] = [];

type User = 'accept' | 'decline' | 'cancel' | 'untick' | undefined;

/** The SDK v2 client pinned to 2026-07-28; `user` answers the confirmation (undefined: no elicitation declared). */
async function modernClient(user: User) {
  const v2 = await import('@modelcontextprotocol/client');
  const asked: string[] = [];
  const client = new v2.Client({ name: 'era-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: user ? { elicitation: { form: {} } } : {} });
  if (user) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      if (user === 'accept') return { action: 'accept', content: { confirm: true } };
      if (user === 'untick') return { action: 'accept', content: { confirm: false } };
      return { action: user };
    });
  }
  const transport = new v2.StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: auth } });
  await client.connect(transport);
  return { client, asked, transport };
}

const data = (result: unknown) => (result as { structuredContent: Record<string, any> }).structuredContent;
const archives = () => stub.requests.filter((r) => r === 'POST /batches/b1/archive').length;

test('a 2026-07-28 client without elicitation: no session, tools/list within budget, the resources and the prompt, a read-only tool, and the dry run + token confirming once', async () => {
  const { client, transport } = await modernClient(undefined);
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(transport.sessionId).toBeUndefined();
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(listed.tools.every((t) => t.outputSchema)).toBe(true);
    expect(overBudget(listed.tools)).toEqual([]);
    expect(JSON.stringify(listed).length).toBeLessThanOrEqual(LIST_BUDGET);
    modernTools = listed.tools;
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
    const prompt = await client.getPrompt({ name: 'issue_from_csv', arguments: { csv: 'name,email\nA,a@example.com' } });
    expect(JSON.stringify(prompt.messages)).toContain('a@example.com');
    const result = await client.callTool({ name: 'list_batches', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(data(result))).toContain('"b1"');
    // No elicitation declared: the dry run and the token, as for a 2025 client; the token confirms once.
    const before = archives();
    const dry = data(await client.callTool({ name: 'archive_batch', arguments: { batchId: 'b1' } }));
    expect(dry).toMatchObject({ done: false, reason: 'confirmationRequired', confirmationToken: expect.stringMatching(/^ct2\./) });
    expect(archives()).toBe(before);
    await client.callTool({ name: 'archive_batch', arguments: { batchId: 'b1', confirmationToken: dry.confirmationToken } });
    expect(archives()).toBe(before + 1);
    expect(data(await client.callTool({ name: 'archive_batch', arguments: { batchId: 'b1', confirmationToken: dry.confirmationToken } }))).toMatchObject({ done: false, tokenProblem: 'used' });
    expect(archives()).toBe(before + 1);
  } finally {
    await client.close();
  }
});

test('a 2026-07-28 client with elicitation: the confirmation is an input-required round; yes writes exactly once, no/cancel/untick write nothing', async () => {
  for (const user of ['decline', 'cancel', 'untick'] as const) {
    const before = stub.writes().length;
    const { client, asked } = await modernClient(user);
    try {
      const result = await client.callTool({ name: 'archive_batch', arguments: { batchId: 'b1' } });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/Go ahead\?/);
      expect(data(result)).toMatchObject({ done: false, reason: user === 'cancel' ? 'cancelled' : 'declined' });
      expect(stub.writes().length).toBe(before);
    } finally {
      await client.close();
    }
  }
  const before = archives();
  const { client, asked } = await modernClient('accept');
  try {
    const result = await client.callTool({ name: 'archive_batch', arguments: { batchId: 'b1' } });
    expect(asked).toHaveLength(1);
    expect(result.isError).toBeFalsy();
    expect(data(result).done).not.toBe(false);
    expect(archives()).toBe(before + 1);
  } finally {
    await client.close();
  }
});

test('a 2026-07-28 round needs the bearer token and cannot be replayed or forged: its requestState is the sealed single-use token', async () => {
  const raw = (id: number, params: Record<string, unknown>, authorization: Record<string, string> = auth) =>
    fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'archive_batch', ...authorization },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'archive_batch', arguments: { batchId: 'b1' }, ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } } } }),
    });
  const post = (id: number, params: Record<string, unknown>) =>
    raw(id, params).then(async (res) => {
      const text = await res.text();
      const json = /^data: (.*)$/m.exec(text)?.[1] ?? text;
      return JSON.parse(json) as { result?: Record<string, any>; error?: unknown };
    });
  const before = archives();
  // The guard comes first for either era: no bearer token, no call.
  expect((await raw(0, {}, {})).status).toBe(401);
  const first = await post(1, {});
  expect(first.result).toMatchObject({ resultType: 'input_required' });
  const state = first.result!.requestState as string;
  expect(state).toMatch(/^ct2\./);
  expect(archives()).toBe(before);
  const yes = { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } };
  const forged = await post(2, { ...yes, requestState: state.slice(0, -2) + (state.endsWith('AA') ? 'BB' : 'AA') });
  expect(forged.result?.structuredContent).toMatchObject({ done: false, tokenProblem: 'forged' });
  expect(archives()).toBe(before);
  const confirmed = await post(3, { ...yes, requestState: state });
  expect(confirmed.result?.structuredContent?.done).not.toBe(false);
  expect(archives()).toBe(before + 1);
  const replayed = await post(4, { ...yes, requestState: state });
  expect(replayed.result?.structuredContent).toMatchObject({ done: false, tokenProblem: 'used' });
  expect(archives()).toBe(before + 1);
});

test('a 2025-11-25 client on the same endpoint gets an Mcp-Session-Id and the same tool entries as the 2026 client; without elicitation, the dry run and token', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: auth } });
  const client = new Client({ name: 'era-2025', version: '1' }, { capabilities: {} });
  await client.connect(transport);
  try {
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');
    const listed = await client.listTools();
    expect(listed.tools).toEqual(modernTools);
    const result = await client.callTool({ name: 'archive_batch', arguments: { batchId: 'b1' } });
    expect(result.structuredContent).toMatchObject({ done: false, reason: 'confirmationRequired' });
  } finally {
    await client.close();
  }
});

test('an unknown tool is the protocol error -32602 in both eras, naming it; a tool --read-only leaves out is unknown too', async () => {
  const readOnly = await serveHttp({ port: 0, token: TOKEN, server: { client: createClient({ baseUrl: stub.baseUrl, apiKey: 'key_eras' }), readOnly: true, secrets: [TOKEN] }, log: silent, announce: () => undefined });
  const { client: modern } = await modernClient(undefined);
  const legacy = new Client({ name: 'era-2025', version: '1' }, { capabilities: {} });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: auth } }));
  const v2 = await import('@modelcontextprotocol/client');
  const modernReadOnly = new v2.Client({ name: 'era-2026-ro', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modernReadOnly.connect(new v2.StreamableHTTPClientTransport(new URL(readOnly.url), { requestInit: { headers: auth } }));
  const legacyReadOnly = new Client({ name: 'era-2025-ro', version: '1' }, { capabilities: {} });
  await legacyReadOnly.connect(new StreamableHTTPClientTransport(new URL(readOnly.url), { requestInit: { headers: auth } }));
  const refusal = (call: Promise<unknown>) => call.then((result) => ({ result }), (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }));
  try {
    const before = stub.requests.length;
    for (const [client, name] of [[modern, 'drop_everything'], [legacy, 'drop_everything'], [modernReadOnly, 'delete_certificate'], [legacyReadOnly, 'delete_certificate']] as const) {
      const answer = await refusal(client.callTool({ name, arguments: { certificateId: 'CERT-1' } }));
      expect(answer).toEqual({ code: -32602, message: expect.stringContaining(`Tool ${name} not found`) });
    }
    expect(stub.requests.length).toBe(before);
    // A known tool still runs through the SDK's own handler: its input is checked (an isError result, as the spec wants for a model to correct).
    const invalid = (await legacy.callTool({ name: 'get_batch', arguments: {} })) as { isError?: boolean; content: Array<{ text?: string }> };
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0].text).toMatch(/batchId/);
  } finally {
    await Promise.all([modern.close(), legacy.close(), modernReadOnly.close(), legacyReadOnly.close()]);
    await readOnly.close();
  }
});

test('a 2026-07-28 call sends progress notifications (issue_certificates against the sandbox)', async () => {
  const sb = await createSandbox({ rateLimit: false });
  const onSandbox = await serveHttp({ port: 0, token: TOKEN, server: { client: sandboxClient(sb, sb.apiKey), secrets: [TOKEN, sb.apiKey] }, log: silent, announce: () => undefined });
  const v2 = await import('@modelcontextprotocol/client');
  const client = new v2.Client({ name: 'era-2026-progress', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new v2.StreamableHTTPClientTransport(new URL(onSandbox.url), { requestInit: { headers: auth } }));
  try {
    const batch = data(await client.callTool({ name: 'create_batch', arguments: { title: 'Eras', designId: 'design_classic' } })).batch as { id: string };
    const progress: Array<{ progress: number; total?: number }> = [];
    const recipients = Array.from({ length: 20 }, (_, i) => ({ name: `R${i}`, email: `r${i}@example.com` }));
    const issued = data(await client.callTool({ name: 'issue_certificates', arguments: { batchId: batch.id, recipients } }, { onprogress: (p) => void progress.push(p) }));
    expect(issued.counts).toMatchObject({ issued: 20, total: 20 });
    expect(progress[progress.length - 1]).toMatchObject({ progress: 20, total: 20 });
  } finally {
    await client.close();
    await onSandbox.close();
    await sb.close();
  }
});
