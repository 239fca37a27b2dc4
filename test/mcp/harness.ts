// The official MCP client (@modelcontextprotocol/sdk's Client) connected in-process to our
// server, against a sandbox or any core client. Each harness can answer elicitation (a
// scripted "user") or not declare it (the client then gets dry runs and tokens).
import { createClient, createUndiciTransport, type CertificateServiceClient, type HeaderBag } from '@certificate-service/sdk';
import type { Sandbox } from '@certificate-service/sandbox';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfirmationTokens, createServer, TOOLS, type ExampleTargets, type ServerOptions } from '@certificate-service/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export type User = 'accept' | 'decline' | 'cancel' | 'untick';

export interface Harness {
  client: Client;
  /** The questions the scripted user was asked. */
  asked: string[];
  /** Lines the server logged (what stderr would get). */
  logs: string[];
  call(name: string, args?: Record<string, unknown>, options?: { onprogress?: (p: { progress: number; total?: number; message?: string }) => void; signal?: AbortSignal }): Promise<CallToolResult & { data: Record<string, any>; text: string }>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function sandboxClient(sb: Pick<Sandbox, 'baseUrl'>, apiKey: string): CertificateServiceClient {
  return createClient({ baseUrl: sb.baseUrl, apiKey });
}

/** A client whose transport reports every answer, as the bin's doctor gets it. */
export function observingClient(sb: Pick<Sandbox, 'baseUrl'>, apiKey: string, observe: (status: number, headers: HeaderBag, body: unknown) => void): CertificateServiceClient {
  const undici = createUndiciTransport();
  return createClient({ baseUrl: sb.baseUrl, apiKey, transport: async (request) => {
    const response = await undici(request);
    observe(response.status, response.headers, response.body);
    return response;
  } });
}

/** A state folder of this test file's own: harnesses share its confirmation key and memory, as processes share the user's. */
export const stateFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-mcp-state-'));
// The issue tool's in-flight markers too (it reads the folder when it runs): never the user's ~/.local/state.
process.env.CERTSVC_STATE_DIR = stateFolder;
export const sharedTokens = new ConfirmationTokens(path.join(stateFolder, 'mcp', 'confirmations'));

export async function connect(options: Omit<ServerOptions, 'log'> & { user?: User }): Promise<Harness> {
  const logs: string[] = [];
  const mcp = createServer({ tokens: sharedTokens, ...options, log: { info: (m) => void logs.push(m), warn: (m) => void logs.push(m) } });
  const asked: string[] = [];
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: options.user ? { elicitation: { form: {} } } : {} });
  if (options.user) {
    const user = options.user;
    client.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
      asked.push(request.params.message);
      if (user === 'accept') return { action: 'accept', content: { confirm: true } };
      if (user === 'untick') return { action: 'accept', content: { confirm: false } };
      return { action: user };
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([mcp.server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    asked,
    logs,
    async call(name, args = {}, opts = {}) {
      const result = (await client.callTool({ name, arguments: args }, undefined, { onprogress: opts.onprogress, signal: opts.signal, resetTimeoutOnProgress: true })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { ...result, text, data: (result.structuredContent ?? {}) as Record<string, any> };
    },
    idle: () => mcp.idle(),
    async close() {
      await client.close();
      await mcp.idle();
    },
  };
}

/** Requests the sandbox saw that change something (everything but reads and POST /auth). */
export function writes(sb: Sandbox): Record<string, number> {
  return Object.fromEntries(Object.entries(sb.controls.counters().requests.byRoute).filter(([route]) => !route.startsWith('GET ') && route !== 'POST /auth'));
}
export const writeCount = (sb: Sandbox): number => Object.values(writes(sb)).reduce((a, b) => a + b, 0);

export const recipients = (n: number, domain = 'example.com') => Array.from({ length: n }, (_, i) => ({ name: `Learner ${i}`, email: `learner${i}@${domain}`, data: { course: 'Math' } }));

/** What the tools' examples act on, made in the sandbox: a new batch, certificate or subscription for each. */
export function sandboxTargets(client: CertificateServiceClient): ExampleTargets {
  const batch = async () => (await client.createBatch({ title: 'Example', designId: 'design_classic' })).id;
  return {
    batch,
    archivedBatch: async () => (await client.archiveBatch(await batch())).id,
    design: async () => 'design_classic',
    certificate: async () => {
      const r = await client.issueCertificate(await batch(), { name: 'Ada Lovelace', email: 'ada@example.com' });
      return { certificateId: r.certificateId, batchId: r.batchId, recipientId: r.id, email: r.email };
    },
    subscription: async () => (await client.createSubscription({ url: 'http://127.0.0.1:9/hook', events: ['certificate.issued'] })).id,
  };
}

/** Each tool's own example arguments (its definition's `example`), by tool name. */
export async function examples(on: ExampleTargets): Promise<Record<string, Record<string, unknown>>> {
  return Object.fromEntries(await Promise.all(TOOLS.map(async (t) => [t.name, await t.example(on)] as const)));
}

/**
 * The tools/list budget, per tool: a model pays for every character of the list on every turn.
 * issue_certificates carries the recipients' schema and its options, hence its own bound.
 */
export const TOOL_BUDGET = (name: string): number => (name === 'issue_certificates' ? 2_100 : 1_000);
/** The whole default list (either era's result): the per-tool entries plus the result's own fields, with room for about two more tools. */
export const LIST_BUDGET = 14_000;
/** Tools over their budget, with their size (an empty list when all fit). */
export const overBudget = (tools: ReadonlyArray<{ name: string }>) => tools.map((t) => ({ name: t.name, size: JSON.stringify(t).length })).filter((t) => t.size > TOOL_BUDGET(t.name));
