// The built bin as per-call clients use it, against a stub service written here: a dry run in
// one process (or HTTP session) and its confirmation in the next writes exactly once, the same
// token a third time writes nothing; a client with elicitation is asked, and decline or cancel
// writes nothing. --http is a daemon: stdin closed, it still answers; SIGTERM lets the call in
// flight finish first. Spawns processes, so it is left out of test:unit.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serviceFingerprint } from '@certificate-service/sdk';
import { ConfirmationTokens, TOOLS } from '@certificate-service/mcp';
import { MCP, ensureBuilt } from '../support/built';
import { API_KEY as KEY } from '../support/service';
import { startStub, type Stub } from './stub';

jest.setTimeout(90_000);
const ROOT = path.resolve(__dirname, '../..');
const TOKEN = 'process-test-token-0123456789abcdef';

let stub: Stub;
let env: Record<string, string>;
beforeAll(async () => {
  await ensureBuilt();
  stub = await startStub();
  env = { PATH: process.env.PATH ?? '', CERTSVC_BASE_URL: stub.baseUrl, CERTSVC_API_KEY: KEY, CERTSVC_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-mcp-proc-')) };
}, 120_000);
afterAll(() => stub.close());
beforeEach(() => void (stub.requests.length = 0));

type User = 'decline' | 'cancel' | undefined;
const data = (r: unknown) => ((r as CallToolResult).structuredContent ?? {}) as Record<string, any>;

function newClient(user: User): Client {
  const client = new Client({ name: 'process-test', version: '1' }, { capabilities: user ? { elicitation: { form: {} } } : {} });
  if (user) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: user }));
  return client;
}

/** One tool call in a process of its own, as a per-call client makes it. */
async function callInNewProcess(name: string, args: Record<string, unknown>, user?: User, extraEnv: Record<string, string> = {}) {
  const client = newClient(user);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCP], env: { ...env, ...extraEnv }, stderr: 'ignore' }));
  try {
    return data(await client.callTool({ name, arguments: args }));
  } finally {
    await client.close();
  }
}

const target = { batchId: 'b1', recipientId: 'rec_1' };

test('stdio, one process per call: the dry run in one, the confirmation in the next deletes once; the token in a third process writes nothing', async () => {
  const dry = await callInNewProcess('delete_certificate', target);
  expect(dry).toMatchObject({ done: false, reason: 'confirmationRequired', confirmationToken: expect.stringMatching(/^ct2\./), expiresAt: expect.any(String) });
  expect(stub.writes()).toEqual([]);
  const wrong = await callInNewProcess('delete_certificate', { batchId: 'b1', recipientId: 'rec_2', confirmationToken: dry.confirmationToken });
  expect(wrong).toMatchObject({ done: false, tokenProblem: 'target' });
  const otherService = await callInNewProcess('delete_certificate', { ...target, confirmationToken: dry.confirmationToken }, undefined, { CERTSVC_API_KEY: 'sk_live_other_key_000000000' });
  expect(otherService).toMatchObject({ done: false, tokenProblem: 'service' });
  expect(stub.writes()).toEqual([]);
  expect(await callInNewProcess('delete_certificate', { ...target, confirmationToken: dry.confirmationToken })).toMatchObject({ done: true });
  expect(await callInNewProcess('delete_certificate', { ...target, confirmationToken: dry.confirmationToken })).toMatchObject({ done: false, tokenProblem: 'used' });
  expect(stub.writes()).toEqual(['DELETE /batches/b1/recipients/rec_1']);
});

test('stdio, a client with elicitation is always asked, token or not: decline and cancel write nothing', async () => {
  const dry = await callInNewProcess('delete_certificate', target);
  for (const user of ['decline', 'cancel'] as const) {
    expect(await callInNewProcess('delete_certificate', { ...target, confirmationToken: dry.confirmationToken }, user)).toMatchObject({ done: false, reason: user === 'decline' ? 'declined' : 'cancelled' });
  }
  expect(stub.writes()).toEqual([]);
});

test('the MCP Inspector CLI (a new process per call): dry run, then the confirmation, writes once', async () => {
  const inspector = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  const call = (args: Record<string, string>) =>
    new Promise<Record<string, any>>((resolve, reject) =>
      execFile(process.execPath, [inspector, '--cli', '--method', 'tools/call', '--tool-name', 'archive_batch', ...Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]), ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), '--', process.execPath, MCP], { timeout: 60_000, env: { PATH: env.PATH } }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}\n${stdout}`)) : resolve(JSON.parse(stdout).structuredContent),
      ),
    );
  const dry = await call({ batchId: 'b1' });
  expect(dry).toMatchObject({ done: false, confirmationToken: expect.any(String) });
  expect(stub.writes()).toEqual([]);
  expect(await call({ batchId: 'b1', confirmationToken: dry.confirmationToken })).toMatchObject({ done: true });
  expect(stub.writes()).toEqual(['POST /batches/b1/archive']);
});

/** The bin with --http on a free port, stdin closed (as `cmd </dev/null &`); resolves with its URL. */
async function startHttp(): Promise<{ child: ChildProcess; url: string; stderr: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [MCP, '--http', '--port', '0'], { env: { ...env, CERTSVC_MCP_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c) => {
      stderr += c;
      const m = /listening on (\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    void exit.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr, exit };
}

async function httpClient(url: string, user?: User): Promise<Client> {
  const client = newClient(user);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

test('--http with stdin closed still answers after 2 s; a token from one session confirms once in another; SIGTERM during a slow call: the call completes, then exit 0', async () => {
  const server = await startHttp();
  try {
    await new Promise((r) => setTimeout(r, 2000));
    expect(server.child.exitCode).toBeNull();
    const sessions = await Promise.all([httpClient(server.url), httpClient(server.url), httpClient(server.url), httpClient(server.url, 'decline'), httpClient(server.url, 'cancel')]);
    const [a, b, c, asks, cancels] = sessions;
    const dry = data(await a.callTool({ name: 'delete_certificate', arguments: { batchId: 'b1', recipientId: 'rec_2' } }));
    expect(dry).toMatchObject({ done: false, confirmationToken: expect.any(String) });
    const confirm = { name: 'delete_certificate', arguments: { batchId: 'b1', recipientId: 'rec_2', confirmationToken: dry.confirmationToken } };
    expect(data(await asks.callTool(confirm))).toMatchObject({ done: false, reason: 'declined' });
    expect(data(await cancels.callTool(confirm))).toMatchObject({ done: false, reason: 'cancelled' });
    expect(data(await b.callTool({ ...confirm, arguments: { ...confirm.arguments, recipientId: 'rec_1' } }))).toMatchObject({ done: false, tokenProblem: 'target' });
    expect(stub.writes()).toEqual([]);
    expect(data(await b.callTool(confirm))).toMatchObject({ done: true });
    expect(data(await c.callTool(confirm))).toMatchObject({ done: false, tokenProblem: 'used' });
    expect(stub.writes()).toEqual(['DELETE /batches/b1/recipients/rec_2']);

    stub.slowList = 1500;
    const slow = a.callTool({ name: 'list_batches', arguments: {} });
    await new Promise((r) => setTimeout(r, 400));
    server.child.kill('SIGTERM');
    expect(data(await slow).batches).toEqual([{ id: 'b1', title: 'Stub', designId: 'd1', status: 'active' }]);
    expect(await server.exit).toBe(0);
    expect(server.stderr()).toMatch(/stopping: finishing the calls in flight/);
    for (const s of sessions) await s.close().catch(() => undefined);
  } finally {
    stub.slowList = 0;
    server.child.kill('SIGKILL');
  }
});

test('stdio still stops when its stdin closes', async () => {
  const child = spawn(process.execPath, [MCP], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
});

const binding = { tool: 'delete_certificate', args: { certificateId: 'CERT-1' }, target: ['b1', 'rec_1'], service: serviceFingerprint('https://api.example/api/v1', 'sk_live_a') };

test('two processes racing to redeem one token: exactly one wins', async () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-race-')), 'mcp', 'confirmations');
  const { token } = new ConfirmationTokens(dir).issue(binding);
  const script = `
    const { ConfirmationTokens } = require(${JSON.stringify(path.resolve(__dirname, '../../shared/mcp/dist/confirm.js'))});
    const t = new ConfirmationTokens(process.argv[1]);
    const b = JSON.parse(process.argv[3]);
    const start = Number(process.argv[4]);
    while (Date.now() < start) {}
    process.stdout.write(String(t.redeem(process.argv[2], b) ?? 'ok'));`;
  const start = String(Date.now() + 1500);
  const run = () => new Promise<string>((resolve, reject) => execFile(process.execPath, ['-e', script, dir, token, JSON.stringify(binding), start], (e, out) => (e ? reject(e) : resolve(out))));
  const answers = await Promise.all([run(), run(), run(), run()]);
  expect(answers.sort()).toEqual(['ok', 'used', 'used', 'used']);
}, 30_000);

test('stdio, a 2026-07-28 client (the SDK v2 client pinned to it): tools listed, and a confirmation by input-required writes once on yes, nothing on no', async () => {
  const v2 = await import('@modelcontextprotocol/client');
  const { StdioClientTransport: V2Stdio } = await import('@modelcontextprotocol/client/stdio');
  const run = async (answer: 'accept' | 'decline') => {
    const client = new v2.Client({ name: 'era-2026-stdio', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
    await client.connect(new V2Stdio({ command: process.execPath, args: [MCP], env, stderr: 'pipe' }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      const result = await client.callTool({ name: 'archive_batch', arguments: { batchId: 'b1' } });
      expect(asked).toHaveLength(1);
      return data(result);
    } finally {
      await client.close();
    }
  };
  expect(await run('decline')).toMatchObject({ done: false, reason: 'declined' });
  expect(stub.writes()).toEqual([]);
  expect(await run('accept')).not.toMatchObject({ done: false });
  expect(stub.writes()).toEqual(['POST /batches/b1/archive']);
});
