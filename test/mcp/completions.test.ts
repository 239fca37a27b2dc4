// completion/complete: the prompt's batchId completes to the ids of the active batches, from one
// list request that serves the next keystrokes, in both protocol eras, with the official
// clients (SDK 1.x's Client on 2025-11-25, the v2 client pinned to 2026-07-28) against the
// sandbox over --http. Also: the spec's cap of 100 values with hasMore/total, what is not
// completable, unknown references (-32602), and a failure that carries no secret.
import { CertificateServiceClient, type HttpResponse } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { COMPLETION_CACHE_MS, completer, completionOf, ISSUE_FROM_CSV, serveHttp, type RunningHttp, type ServerOptions } from '@certificate-service/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandboxClient, writes } from './harness';

jest.setTimeout(60_000);
const TOKEN = 'completions-token-0123456789abcdef';
const auth = { Authorization: `Bearer ${TOKEN}` };
const silent = { info: () => undefined, warn: () => undefined };
const batchRef = (value: string) => ({ ref: { type: 'ref/prompt' as const, name: ISSUE_FROM_CSV }, argument: { name: 'batchId', value } });

/** One client of each era on one --http server; `complete` asks both and expects the same answer. */
async function clients(url: string) {
  const legacy = new Client({ name: 'completions-2025', version: '1' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }));
  const v2 = await import('@modelcontextprotocol/client');
  const modern = new v2.Client({ name: 'completions-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }));
  const refusal = (call: Promise<unknown>) => call.then((result) => ({ result }), (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }));
  return {
    legacy,
    modern,
    /** Both eras' answers (or errors), which must agree. */
    async complete(params: Parameters<Client['complete']>[0]) {
      const [a, b] = await Promise.all([refusal(legacy.complete(params)), refusal(modern.complete(params as never))]);
      const strip = (r: any) => ('result' in r ? { result: { completion: r.result.completion } } : { code: r.code, message: String(r.message).replace(/^(MCP error -?\d+: )+/, '') });
      expect(strip(b)).toEqual(strip(a));
      return strip(a) as { result?: { completion: { values: string[]; total?: number; hasMore?: boolean } }; code?: number; message?: string };
    },
    close: () => Promise.all([legacy.close(), modern.close()]),
  };
}

let sb: Sandbox;
let server: RunningHttp;
/** What the test started, closed after it. */
const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close();
});

async function sandbox() {
  sb = await createSandbox({ rateLimit: false });
  started.push(sb);
  return sb;
}

async function serve(options: ServerOptions) {
  server = await serveHttp({ port: 0, token: TOKEN, server: options, log: silent, announce: () => undefined });
  started.push(server);
  return server;
}

async function start(options: Partial<ServerOptions> = {}) {
  await sandbox();
  await serve({ client: sandboxClient(sb, sb.apiKey), secrets: [TOKEN, sb.apiKey], ...options });
  return clients(server.url);
}

test('both eras declare completions; batchId completes to the active batches by prefix (any case), from one list request, and writes nothing', async () => {
  const c = await start();
  const client = sandboxClient(sb, sb.apiKey);
  try {
    expect(c.legacy.getServerCapabilities()?.completions).toEqual({});
    expect(c.modern.getServerCapabilities()?.completions).toEqual({});
    const made = [];
    for (const title of ['Math', 'Physics', 'Chemistry']) made.push((await client.createBatch({ title, designId: 'design_classic' })).id);
    const archived = (await client.createBatch({ title: 'Old', designId: 'design_classic' })).id;
    await client.archiveBatch(archived);
    const listed = (await client.listBatches({ status: 'active', limit: 100 })).items.map((b) => b.id);
    expect(listed.sort()).toEqual([...made].sort());
    sb.controls.resetCounters();
    const writesBefore = writes(sb);

    const all = await c.complete(batchRef(''));
    expect(all.result?.completion).toEqual({ values: expect.arrayContaining(made), total: 3, hasMore: false });
    expect(all.result?.completion.values).toHaveLength(3);
    expect(all.result?.completion.values).not.toContain(archived);
    const one = made[1];
    for (const typed of [one.slice(0, 12), one.slice(0, 12).toUpperCase(), one]) {
      expect((await c.complete(batchRef(typed))).result?.completion).toEqual({ values: [one], total: 1, hasMore: false });
    }
    expect((await c.complete(batchRef('nothing_starts_so'))).result?.completion).toEqual({ values: [], total: 0, hasMore: false });
    // Eleven answers in each era, within the cache's window: one list request, no write.
    expect(sb.controls.counters().requests.byRoute['GET /batches']).toBe(1);
    expect(writes(sb)).toEqual(writesBefore);
  } finally {
    await c.close();
  }
});

test('more active batches than one page: the first 100 values and hasMore, no total (the service has more)', async () => {
  const c = await start();
  const client = sandboxClient(sb, sb.apiKey);
  try {
    for (let i = 0; i < 101; i++) await client.createBatch({ title: `B${i}`, designId: 'design_classic' });
    const answer = await c.complete(batchRef('batch_'));
    expect(answer.result?.completion.values).toHaveLength(100);
    expect(answer.result?.completion).toEqual({ values: expect.any(Array), hasMore: true });
  } finally {
    await c.close();
  }
});

test('what does not name a batch completes to nothing; an unknown prompt or resource template is -32602', async () => {
  const c = await start();
  try {
    expect((await c.complete({ ref: { type: 'ref/prompt', name: ISSUE_FROM_CSV }, argument: { name: 'csv', value: 'na' } })).result?.completion).toEqual({ values: [], hasMore: false });
    expect((await c.complete({ ref: { type: 'ref/resource', uri: 'certsvc://spec/error-codes' }, argument: { name: 'x', value: '' } })).result?.completion).toEqual({ values: [], hasMore: false });
    expect(await c.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } })).toEqual({ code: -32602, message: 'Prompt test_prompt_with_arguments not found' });
    expect(await c.complete({ ref: { type: 'ref/resource', uri: 'certsvc://batches/{id}' }, argument: { name: 'id', value: '' } })).toEqual({ code: -32602, message: 'Resource template certsvc://batches/{id} not found' });
    expect(sb.controls.counters().requests.byRoute['GET /batches'] ?? 0).toBe(0);
  } finally {
    await c.close();
  }
});

test('a refused key: an error naming the service\'s code, without the key; the next keystroke asks again', async () => {
  const wrongKey = 'sk_live_wrong_key_0000000000000000';
  await sandbox();
  await serve({ client: sandboxClient(sb, wrongKey), secrets: [TOKEN, wrongKey] });
  const d = await clients(server.url);
  try {
    for (let i = 0; i < 2; i++) {
      const answer = await d.complete(batchRef(''));
      expect(answer).toEqual({ code: -32603, message: expect.stringMatching(/^Could not list the batches to complete batchId: INVALID_API_KEY: /) });
      expect(answer.message).not.toContain(wrongKey);
    }
    expect(sb.controls.counters().requests.byRoute['GET /batches']).toBe(2);
  } finally {
    await d.close();
  }
});

test('whatever the service echoes, a completion error carries neither the key nor the HTTP token', async () => {
  const key = 'sk_live_planted_key_1234567890abcdef';
  const answers: HttpResponse[] = [
    { status: 400, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ error: 'VALIDATION_ERROR', message: `key ${key} token ${TOKEN}`, detail: { field: key } }) },
    { status: 500, headers: { 'Content-Type': `text/plain; ${key}` }, body: `Bearer ${key} ${TOKEN}` },
    { status: 200, headers: { 'Content-Type': 'text/html' }, body: `<html>${key} Bearer ${TOKEN}</html>` },
  ];
  let answer = answers[0];
  const client = new CertificateServiceClient({ baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: key, transport: async () => answer, sleep: async () => undefined, retry: { maxRetries: 0 } });
  await serve({ client, secrets: [TOKEN, key] });
  const c = await clients(server.url);
  try {
    for (answer of answers) {
      const said = await c.complete(batchRef(''));
      expect(said).toEqual({ code: -32603, message: expect.stringMatching(/^Could not list the batches to complete batchId: (VALIDATION_ERROR|UNKNOWN|UNEXPECTED_RESPONSE): /) });
      expect(said.message).not.toContain(key);
      expect(said.message).not.toContain(TOKEN);
    }
  } finally {
    await c.close();
  }
});

test('the cap: at most 100 values, total when the list was whole, hasMore when more match or may', () => {
  const ids = Array.from({ length: 150 }, (_, i) => `batch_${String(i).padStart(3, '0')}`);
  expect(completionOf(ids, 'BATCH_', false)).toEqual({ values: ids.slice(0, 100), total: 150, hasMore: true });
  expect(completionOf(ids, 'batch_1', false)).toEqual({ values: ids.slice(100), total: 50, hasMore: false });
  expect(completionOf(ids.slice(0, 3), '', true)).toEqual({ values: ids.slice(0, 3), hasMore: true });
});

test('one list serves COMPLETION_CACHE_MS; after it, or after a failure, the next completion lists again', async () => {
  let now = 0;
  let lists = 0;
  let fail = false;
  const client = { listBatches: async () => {
    lists++;
    if (fail) throw new Error('down');
    return { items: [{ id: 'batch_a' }, { id: 'batch_b' }], nextCursor: null };
  } } as unknown as CertificateServiceClient;
  const complete = completer({ client, log: silent }, () => now);
  const ask = () => complete(batchRef('batch_'));
  await Promise.all([ask(), ask(), ask()]);
  expect(lists).toBe(1);
  now = COMPLETION_CACHE_MS - 1;
  expect(await ask()).toEqual({ completion: { values: ['batch_a', 'batch_b'], total: 2, hasMore: false } });
  expect(lists).toBe(1);
  now = COMPLETION_CACHE_MS;
  fail = true;
  await expect(ask()).rejects.toThrow(/^Could not list the batches to complete batchId: an unexpected error/);
  fail = false;
  await ask();
  expect(lists).toBe(3);
});
