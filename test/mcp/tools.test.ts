// The tool list: its size (per tool and in all), the snapshot in the repository, an output schema on
// every tool that each answer meets (checked with ajv, a real JSON Schema validator), and the
// four annotations checked against the HTTP methods each tool sends to the service.
import fs from 'node:fs';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { TOOLS } from '@certificate-service/mcp';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { SNAPSHOT, snapshot } from '../../shared/mcp/scripts/snapshot';
import { connect, LIST_BUDGET, observingClient, overBudget, recipients, sandboxClient, sandboxTargets, type Harness, type User } from './harness';

jest.setTimeout(60_000);
let sb: Sandbox;
beforeAll(async () => void (sb = await createSandbox({ rateLimit: false, timeScale: 0.001 })));
afterAll(() => sb.close());
const open: Harness[] = [];
afterAll(() => Promise.all(open.map((h) => h.close())));

async function harness(options: { user?: User; readOnly?: boolean; confirmAbove?: number } = {}) {
  const ws = sb.controls.createWorkspace();
  const client = sandboxClient(sb, ws.apiKey);
  const h = await connect({ client, observedClient: (observe) => observingClient(sb, ws.apiKey, observe), ...options });
  open.push(h);
  return { ws, client, h };
}

test('tools/list: every tool within its budget (1,000 characters; issue_certificates 2,100), the list within 14,000 and 6,000 read-only; the snapshot in the repository is current', async () => {
  const all = await (await harness()).h.client.listTools();
  const readOnly = await (await harness({ readOnly: true })).h.client.listTools();
  expect(all.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  expect(overBudget(all.tools)).toEqual([]);
  expect(JSON.stringify(all).length).toBeLessThanOrEqual(LIST_BUDGET);
  expect(JSON.stringify(readOnly).length).toBeLessThanOrEqual(6_000);
  const committed = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8'));
  expect(committed.tools).toEqual(all.tools); // stale: npm run snapshot -w shared/mcp
  expect(fs.readFileSync(SNAPSHOT, 'utf8')).toBe(snapshot());
});

test('every tool declares an output schema naming its top-level fields; the confirming ones name done, confirmationToken and expiresAt', async () => {
  const { tools } = await (await harness()).h.client.listTools();
  for (const t of tools) {
    expect(Object.keys(t.outputSchema?.properties ?? {}).length).toBeGreaterThan(0);
    expect(t.annotations).toEqual({ readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean), openWorldHint: expect.any(Boolean) });
    if ('confirmationToken' in (t.inputSchema.properties ?? {})) expect(Object.keys(t.outputSchema!.properties!)).toEqual(expect.arrayContaining(['done', 'confirmationToken', 'expiresAt']));
  }
});

/** What each write route of the service is (spec section 5): these decide the annotations. */
const WRITES: Record<string, { destructive: boolean; idempotent: boolean }> = {
  'POST /batches': { destructive: false, idempotent: false },
  'POST /batches/:id/archive': { destructive: true, idempotent: true },
  'POST /batches/:id/unarchive': { destructive: false, idempotent: true },
  'POST /batches/:id/recipients': { destructive: false, idempotent: false },
  'POST /batches/:id/recipients/bulk': { destructive: false, idempotent: false },
  'POST /batches/:id/recipients/:rid/send': { destructive: false, idempotent: false },
  'PATCH /batches/:id/recipients/:rid': { destructive: true, idempotent: true },
  'DELETE /batches/:id/recipients/:rid': { destructive: true, idempotent: true },
  'POST /webhooks/subscriptions/:id/test': { destructive: false, idempotent: false },
  'DELETE /webhooks/subscriptions/:id': { destructive: true, idempotent: true },
};
/** Requests that change nothing although not GET: the key check. */
const READS = ['POST /auth'];

test('each tool, run for real (and as a dry run): its answer meets its output schema, and its annotations match the methods it sent', async () => {
  const validator = new AjvJsonSchemaValidator();
  const { client, h } = await harness({ user: 'accept', confirmAbove: 0 });
  const { tools } = await h.client.listTools();
  const dryRuns = await connect({ client, confirmAbove: 0 }); // no elicitation: dry runs and tokens
  open.push(dryRuns);
  // Each tool's own example, on new batches, certificates and subscriptions in the sandbox.
  const targets = sandboxTargets(client);
  const example = (name: string) => TOOLS.find((t) => t.name === name)!.example(targets);
  expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  for (const tool of tools) {
    const check = validator.getValidator(tool.outputSchema as Parameters<AjvJsonSchemaValidator['getValidator']>[0]);
    const given = await example(tool.name);
    sb.controls.resetCounters();
    const result = await h.call(tool.name, given);
    expect([tool.name, result.isError ?? false]).toEqual([tool.name, false]);
    expect([tool.name, check(result.structuredContent).errorMessage]).toEqual([tool.name, undefined]);
    const sent = Object.keys(sb.controls.counters().requests.byRoute);
    const writes = sent.filter((r) => !r.startsWith('GET ') && !READS.includes(r));
    for (const w of writes) expect([tool.name, w, WRITES[w] ? 'known' : 'unknown']).toEqual([tool.name, w, 'known']);
    const expected = { readOnlyHint: writes.length === 0, destructiveHint: writes.some((w) => WRITES[w].destructive), idempotentHint: writes.every((w) => WRITES[w].idempotent), openWorldHint: sent.length > 0 };
    expect({ tool: tool.name, ...tool.annotations }).toEqual({ tool: tool.name, ...expected });
    if ('confirmationToken' in (tool.inputSchema.properties ?? {})) {
      const dry = await dryRuns.call(tool.name, await example(tool.name));
      expect(dry.data).toMatchObject({ done: false, confirmationToken: expect.any(String), expiresAt: expect.any(String) });
      expect([tool.name, check(dry.structuredContent).errorMessage]).toEqual([tool.name, undefined]);
    }
  }
});

test('a 250-recipient issue answers in under 2,000 characters', async () => {
  const { client, h } = await harness({ user: 'accept' });
  const batch = await client.createBatch({ title: 'Big', designId: 'design_classic' });
  const result = await h.call('issue_certificates', { batchId: batch.id, recipients: recipients(250) });
  expect(result.data.counts).toMatchObject({ issued: 250 });
  expect(result.text.length).toBeLessThan(2000);
  expect(JSON.stringify(result.structuredContent).length).toBeLessThan(2000);
});
