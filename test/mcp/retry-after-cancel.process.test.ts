// Issue 35, item 2, through the official MCP client: the client cancels `issue_certificates` on
// its own timeout while the bulk call is still at the service (held 3 s there), and the agent
// calls again 1 s later, in a new session. Before, the new call's skip-existing read ran before
// the cancelled call's 100 landed: 600 certificates for 500 emails. The core's issue plan holds
// the emails of a run until their outcome is known, so the retry waits for them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@certificate-service/sdk';
import { serveHttp } from '@certificate-service/mcp';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MCP, ensureBuilt } from '../support/built';
import { API_KEY as KEY } from '../support/service';
import { until } from '../support/until';
import { connect } from './harness';
import { DESIGN_NONE, startStub, type StubService } from '../sdk/stub-service';

jest.setTimeout(60_000);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const recipients = Array.from({ length: 500 }, (_, i) => ({ name: `P${i}`, email: `p${i}@example.com` }));

let stub: StubService;
/** Waits until the first bulk call reached the stub (where it is held). */
const firstBulkCallHeld = () => until('the first bulk call at the stub', () => stub.requests.some((r) => r.method === 'POST'), 15_000, 20);
/** The stub holds 500 certificates in b1, one per email. */
function expectEachEmailIssuedOnce(): void {
  const emails = (stub.issued.get('b1') ?? []).map((r) => r.email.toLowerCase());
  expect(emails).toHaveLength(500);
  expect(new Set(emails).size).toBe(500);
}
beforeEach(async () => {
  stub = await startStub({ batches: { b1: 'design_none' }, designs: [DESIGN_NONE], holdBulkMs: 3_000 });
});
afterEach(() => stub.close());

test('cancelled while its bulk call is held at the service, called again 1 s later in a new session: 500 certificates for 500 emails', async () => {
  const first = await connect({ client: createClient({ baseUrl: stub.baseUrl, apiKey: KEY }), confirmAbove: 1_000 });
  const stop = new AbortController();
  const cancelled = first.call('issue_certificates', { batchId: 'b1', recipients }, { signal: stop.signal }).catch((e: Error) => e);
  await firstBulkCallHeld();
  stub.holdBulkMs = 0; // later calls are answered at once
  stop.abort(); // the client's own timeout: it sends notifications/cancelled and stops waiting
  expect(await cancelled).toBeInstanceOf(Error);
  await pause(1_000);

  const second = await connect({ client: createClient({ baseUrl: stub.baseUrl, apiKey: KEY }), confirmAbove: 1_000 });
  const retry = await second.call('issue_certificates', { batchId: 'b1', recipients });
  await first.close();
  await second.close();

  expect(retry.data).toMatchObject({ done: true, counts: { issued: 400, skipped: 100, total: 500 } });
  expectEachEmailIssuedOnce();
});

test('over HTTP, two sessions: the first cancelled while its bulk call is held, the second 1 s later: 500 certificates for 500 emails', async () => {
  const TOKEN = 'test-token-0123456789abcdefghij';
  const server = await serveHttp({ port: 0, token: TOKEN, server: { client: createClient({ baseUrl: stub.baseUrl, apiKey: KEY }), confirmAbove: 1_000 }, log: { info: () => undefined, warn: () => undefined }, announce: () => undefined });
  const session = async () => {
    const client = new Client({ name: 'http-retry', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    return client;
  };
  try {
    const first = await session();
    const stop = new AbortController();
    const cancelled = first.callTool({ name: 'issue_certificates', arguments: { batchId: 'b1', recipients } }, undefined, { signal: stop.signal }).catch((e: Error) => e);
    await firstBulkCallHeld();
    stub.holdBulkMs = 0;
    stop.abort();
    expect(await cancelled).toBeInstanceOf(Error);
    await pause(1_000);
    const second = await session();
    const retry = (await second.callTool({ name: 'issue_certificates', arguments: { batchId: 'b1', recipients } })) as CallToolResult;
    await first.close();
    await second.close();
    expect(retry.structuredContent).toMatchObject({ done: true, counts: { issued: 400, skipped: 100, total: 500 } });
    expectEachEmailIssuedOnce();
  } finally {
    await server.close();
  }
});

// The same timing with a per-call stdio client, the worst case: the first server process is killed
// (SIGKILL) while its bulk call is held at the service, and a new process takes the retry 1 s
// later. The first process's in-flight markers (in the state folder both share) hold those
// emails: the retry issues the rest and never one of them again.
test('per-call stdio: the first server process killed while its bulk call is held, a new process 1 s later: 500 certificates for 500 emails', async () => {
  await ensureBuilt();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-mcp-retry-'));
  const env = { PATH: process.env.PATH ?? '', CERTSVC_STATE_DIR: stateDir, CERTSVC_BASE_URL: stub.baseUrl, CERTSVC_API_KEY: KEY };
  const spawnClient = async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP, '--confirm-above', '1000'], env, stderr: 'pipe' });
    const client = new Client({ name: 'per-call', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  };
  const first = await spawnClient();
  const cancelled = first.client.callTool({ name: 'issue_certificates', arguments: { batchId: 'b1', recipients } }).catch((e: Error) => e);
  await firstBulkCallHeld();
  stub.holdBulkMs = 0;
  process.kill(first.transport.pid!, 'SIGKILL');
  expect(await cancelled).toBeInstanceOf(Error);
  await pause(1_000);

  const second = await spawnClient();
  const retry = (await second.client.callTool({ name: 'issue_certificates', arguments: { batchId: 'b1', recipients } })) as CallToolResult;
  await second.client.close();
  const counts = (retry.structuredContent as { counts: Record<string, number> }).counts;
  // The 100 of the killed call: skipped once the service has them, or `unknown` while its markers
  // still hold them (the retry waits 30 s at most); never issued again. The other 400 are issued.
  expect(counts).toMatchObject({ issued: 400, total: 500 });
  expect(counts.skipped + counts.unknown).toBe(100);
  expectEachEmailIssuedOnce();
}, 90_000);
