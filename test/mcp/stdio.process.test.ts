// The built bin over stdio, as a client starts it: the official MCP client's StdioClientTransport
// spawns `certsvc-mcp` (and `certsvc mcp`) with the key in its environment, against the sandbox
// and against a stub service written here (answers in shapes the core reads, and in one it
// cannot). The MCP Inspector's CLI (pinned) lists the tools. Kept to a few spawns: they cost.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from '@certificate-service/mcp';
import { CLI, MCP } from '../support/built';
import { sandboxWorld } from '../support/sandbox';
import { API_KEY } from '../support/service';

jest.setTimeout(90_000);
const ROOT = path.resolve(__dirname, '../..');
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-mcp-stdio-')); // dry runs keep their key here, not in ~/.local/state

const world = sandboxWorld({ rateLimit: false }, { built: true });

/** The official client over stdio to a spawned server; stderr is collected, and stdout is checked to be protocol only by the client itself. */
async function spawnClient(command: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({ command: process.execPath, args: command, env: { PATH: process.env.PATH ?? '', CERTSVC_STATE_DIR: stateDir, ...env }, stderr: 'pipe' });
  let stderr = '';
  const errors: string[] = [];
  (transport.stderr as PassThrough).on('data', (c) => (stderr += c));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  client.onerror = (e) => void errors.push(e.message);
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { ...r, text: r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'), data: (r.structuredContent ?? {}) as Record<string, any> };
  };
  return { client, call, stderr: () => stderr, errors, close: () => client.close() };
}

test('certsvc-mcp over stdio against the sandbox: issue, issue again (skipped), a tool error; stdout carries only protocol, stderr no key', async () => {
  const ws = world.sb.controls.createWorkspace();
  const s = await spawnClient([MCP, '--confirm-above', '5'], { CERTSVC_BASE_URL: world.sb.baseUrl, CERTSVC_API_KEY: ws.apiKey });
  try {
    expect((await s.client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    const batch = (await s.call('create_batch', { title: 'Over stdio', designId: 'design_classic' })).data.batch;
    const list = Array.from({ length: 5 }, (_, i) => ({ name: `P${i}`, email: `p${i}@example.com` }));
    expect((await s.call('issue_certificates', { batchId: batch.id, recipients: list })).data.counts).toMatchObject({ issued: 5 });
    expect((await s.call('issue_certificates', { batchId: batch.id, recipients: list })).data.counts).toMatchObject({ issued: 0, skipped: 5 });
    expect(world.sb.controls.quota(ws.workspaceId).used).toBe(5);
    // No elicitation declared: a dry run and a token, nothing deleted.
    const dry = await s.call('delete_certificate', { batchId: batch.id, recipientId: world.sb.controls.certificates(batch.id)[0].id });
    expect(dry.data).toMatchObject({ done: false, reason: 'confirmationRequired' });
    expect(world.sb.controls.certificates(batch.id)).toHaveLength(5);
    const missing = await s.call('get_batch', { batchId: 'batch_missing' });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toMatch(/^NOT_FOUND/);
  } finally {
    await s.close();
  }
  expect(s.errors).toEqual([]); // a non-protocol line on stdout would be a parse error here
  expect(s.stderr()).toContain(`certsvc-mcp info: ready on stdio with ${TOOLS.length} tools`);
  expect(s.stderr()).not.toContain(ws.apiKey);
});

test('without CERTSVC_API_KEY it still lists its tools; a call is a tool error naming the variable', async () => {
  const s = await spawnClient([MCP, '--read-only'], { CERTSVC_BASE_URL: world.sb.baseUrl });
  try {
    expect((await s.client.listTools()).tools.map((t) => t.name)).toEqual(['list_batches', 'get_batch', 'list_designs', 'find_certificate', 'find_certificate_by_email', 'list_subscriptions', 'doctor']);
    const r = await s.call('list_batches');
    expect(r).toMatchObject({ isError: true });
    expect(r.text).toMatch(/Invalid "CERTSVC_API_KEY": is not set in this MCP server's environment/);
  } finally {
    await s.close();
  }
});

test('against a stub service written here: shapes the core reads are used, one it cannot read is a tool error naming what came back; nobody is issued twice', async () => {
  const recipients: Array<Record<string, unknown>> = [];
  let mode: 'known' | 'unknown' = 'known';
  let bulkCalls = 0;
  const batch = { id: 'b1', title: 'Stub', designId: 'd1', status: 'active' };
  const cert = (i: number, r: { name: string; email: string; data?: Record<string, string> }) => ({ id: `rec_${i}`, batchId: 'b1', name: r.name, email: r.email, certificateId: `CERT-2026-000001-${String(i).padStart(4, '0')}`, shareToken: `tok${i}`, certUrl: `https://v.test/v/tok${i}`, issueDate: '2026-01-01T00:00:00Z', expiryDate: null, data: r.data ?? {}, emailStatus: 'pending', emailSentAt: null, createdAt: '2026-01-01T00:00:00Z' });
  const stub = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c)).on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const send = (status: number, value: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
      const route = `${req.method} ${url.pathname.replace('/api/v1', '')}`;
      if (route === 'GET /batches') return send(200, mode === 'known' ? { data: [batch], nextCursor: null } : { entries: [batch], continuation: 'x' });
      if (route === 'GET /batches/b1') return send(200, batch);
      if (route === 'GET /designs') return send(200, [{ id: 'd1', name: 'Stub design', fields: { course: { required: true } } }]);
      if (route === 'GET /batches/b1/recipients') return send(200, { results: [...recipients].reverse(), next: null });
      if (route === 'POST /batches/b1/recipients/bulk') {
        bulkCalls++;
        const created = (JSON.parse(body).recipients as Array<{ name: string; email: string; data?: Record<string, string> }>).map((r) => cert(recipients.length + 1, r));
        recipients.push(...created);
        return send(200, { created });
      }
      if (route === 'POST /batches/b1/recipients') {
        const created = cert(recipients.length + 1, JSON.parse(body));
        recipients.push(created);
        return send(201, created);
      }
      send(404, { error: 'NOT_FOUND', message: `No route ${route}` });
    });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/api/v1`;
  const s = await spawnClient([MCP], { CERTSVC_BASE_URL: baseUrl, CERTSVC_API_KEY: API_KEY });
  try {
    expect((await s.call('list_batches')).data.batches).toEqual([batch]);
    expect((await s.call('get_batch', { batchId: 'b1' })).data).toMatchObject({ variablesSource: 'design', variables: [{ name: 'course', required: true }] });
    const list = [1, 2, 3].map((i) => ({ name: `S${i}`, email: `s${i}@example.com`, data: { course: 'Logic' } }));
    const refused = await s.call('issue_certificates', { batchId: 'b1', recipients: [{ name: 'No course', email: 'nc@example.com' }] });
    expect(refused.data.counts).toMatchObject({ invalid: 1, issued: 0 });
    expect(bulkCalls).toBe(0);
    expect((await s.call('issue_certificates', { batchId: 'b1', recipients: list })).data.counts).toMatchObject({ issued: 3 });
    const second = await s.call('issue_certificates', { batchId: 'b1', recipients: [...list, { name: 'S4', email: 'S4@example.com', data: { course: 'x' } }] });
    expect(second.data.counts).toMatchObject({ issued: 1, skipped: 3 });
    expect(bulkCalls).toBe(1); // the lone new one went through the single-issue endpoint
    expect(recipients.map((r) => r.email)).toEqual(['s1@example.com', 's2@example.com', 's3@example.com', 'S4@example.com']);
    mode = 'unknown';
    const unreadable = await s.call('list_batches');
    expect(unreadable).toMatchObject({ isError: true });
    expect(unreadable.text).toMatch(/UNEXPECTED_RESPONSE: GET \/batches answered 200.*keys "entries", "continuation"/);
  } finally {
    await s.close();
    stub.close();
  }
  expect(s.stderr()).not.toContain(API_KEY);
});

test('certsvc mcp starts the same server', async () => {
  const s = await spawnClient([CLI, 'mcp', '--tools', 'list_batches,doctor'], { CERTSVC_BASE_URL: world.sb.baseUrl, CERTSVC_API_KEY: world.sb.apiKey });
  try {
    expect((await s.client.listTools()).tools.map((t) => t.name)).toEqual(['list_batches', 'doctor']);
    expect((await s.call('doctor')).data).toMatchObject({ ok: true });
  } finally {
    await s.close();
  }
});

test('the MCP Inspector CLI (pinned) lists the tools', async () => {
  const inspector = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
    execFile(process.execPath, [inspector, '--cli', '--method', 'tools/list', '-e', `CERTSVC_BASE_URL=${world.sb.baseUrl}`, '--', process.execPath, MCP, '--read-only'], { timeout: 60_000, env: { PATH: process.env.PATH } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}\n${stdout}`)) : resolve({ stdout }),
    ),
  );
  const listed = JSON.parse(stdout);
  expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(['list_batches', 'get_batch', 'list_designs', 'find_certificate', 'find_certificate_by_email', 'list_subscriptions', 'doctor']);
  expect(listed.tools[0].annotations).toMatchObject({ readOnlyHint: true });
});
