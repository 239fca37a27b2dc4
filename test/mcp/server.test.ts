// The MCP server in-process, driven by the official MCP client, against the sandbox: the tool
// list and its switches, bulk issue with skip-existing, progress, a 429 waited out,
// confirmation by elicitation and by token, cancellation, unreadable answers.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import path from 'node:path';
import { CONFIRMATION_TTL_MS, ConfirmationTokens, selectTools, TOOLS, UsageError } from '@certificate-service/mcp';
import { connect, observingClient, recipients, sandboxClient, stateFolder, writeCount, writes, type Harness, type User } from './harness';
import { until } from '../support/until';
import { createClient } from '@certificate-service/sdk';
import { sentEmails, startStub } from '../sdk/stub-service';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

jest.setTimeout(60_000);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, timeScale: 0.001 });
});
afterAll(() => sb.close());
afterEach(() => {
  sb.controls.clearFaults();
  sb.controls.setListShape('default');
});

/** A fresh workspace with one batch, and a harness on it. */
async function setup(options: { user?: User; confirmAbove?: number; readOnly?: boolean; tools?: string[] } = {}) {
  const ws = sb.controls.createWorkspace();
  const client = sandboxClient(sb, ws.apiKey);
  const batch = await client.createBatch({ title: 'MCP', designId: 'design_classic' });
  const h = await connect({ client, observedClient: (observe) => observingClient(sb, ws.apiKey, observe), ...options });
  sb.controls.resetCounters();
  return { ws, client, batch, h };
}
let open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.close()));
  open = [];
});
const track = <T extends { h: Harness }>(s: T): T => (open.push(s.h), s);

describe('tools/list', () => {
  test('every tool of the list, at most 20, each described and annotated with all four hints', async () => {
    const { h } = track(await setup());
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(tools.length).toBeLessThanOrEqual(20);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(60);
      expect(t.annotations).toEqual(expect.objectContaining({ readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean), openWorldHint: true }));
      expect(JSON.stringify(t.inputSchema)).not.toMatch(/apiKey|api_key|baseUrl/i); // the key never comes from arguments
    }
    expect(tools.find((t) => t.name === 'list_subscriptions')!.description).toMatch(/Create them with the CLI/);
  });

  test('--read-only lists no write tool, whatever --tools says', async () => {
    const { h } = track(await setup({ readOnly: true, tools: ['list_batches', 'delete_certificate', 'issue_certificates', 'find_certificate'] }));
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['list_batches', 'find_certificate']);
    const all = selectTools({ readOnly: true }).map((t) => t.name);
    expect(all).toEqual(['list_batches', 'get_batch', 'list_designs', 'find_certificate', 'find_certificate_by_email', 'list_subscriptions', 'doctor']);
    for (const t of selectTools({ readOnly: true })) expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    // A write tool that is not listed cannot be called either.
    const refused = await h.call('delete_certificate', { certificateId: 'CERT-1' }).catch((e: Error) => e);
    expect(String((refused as Error).message ?? JSON.stringify(refused))).toMatch(/delete_certificate not found/);
  });

  test('--tools allow-lists; an unknown name is refused at start, naming it', async () => {
    const { h } = track(await setup({ tools: ['issue_certificates', 'list_batches'] }));
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['list_batches', 'issue_certificates']);
    expect(() => selectTools({ tools: ['list_batches', 'drop_everything'] })).toThrow(/^Unknown tool in --tools: drop_everything\. The tools are: list_batches, /);
    expect(() => selectTools({ tools: ['drop_everything'] })).toThrow(UsageError);
  });
});

describe('issue_certificates', () => {
  test('250 recipients: 3 bulk calls, progress to 250; the same call again: 0 issued, 250 skipped, 0 bulk calls; a 429 mid-way is waited out', async () => {
    const { ws, batch, h } = track(await setup({ user: 'accept' }));
    sb.controls.injectFaults({ kind: '429', match: { method: 'POST', path: '^/api/v1/batches/[^/]+/recipients/bulk' }, every: 2, count: 1, retryAfterSeconds: 1 });
    const progress: Array<{ progress: number; total?: number }> = [];
    const first = await h.call('issue_certificates', { batchId: batch.id, recipients: recipients(250) }, { onprogress: (p) => progress.push(p) });
    expect(first.isError).toBeFalsy();
    expect(first.data.counts).toEqual({ total: 250, issued: 250, skipped: 0, invalid: 0, failed: 0, unknown: 0, notSent: 0 });
    expect(first.data.summary).toBe('Of 250 items, 250 certificates were issued, 0 skipped (already issued), 0 invalid, 0 failed, 0 with an unknown outcome and 0 not sent.');
    expect(first.data.issued).toHaveLength(10);
    expect(first.data.moreIssued).toBe(240);
    expect(first.text.length).toBeLessThan(4000); // counts and ids, not 250 records
    expect(h.asked).toEqual([expect.stringMatching(/^Issue 250 certificates into batch .* \(250 quota units; 0 skipped/)]);
    expect(writes(sb)).toEqual({ 'POST /batches/:id/recipients/bulk': 4 }); // 3 calls + the one answered 429, repeated
    expect(sb.controls.quota(ws.workspaceId).used).toBe(250);
    expect(progress[progress.length - 1]).toEqual({ progress: 250, total: 250, message: "250 of 250 recipients have an outcome" });
    expect(progress.length).toBeGreaterThanOrEqual(3);

    sb.controls.resetCounters();
    const again = await h.call('issue_certificates', { batchId: batch.id, recipients: recipients(250) });
    expect(again.data.counts).toMatchObject({ issued: 0, skipped: 250 });
    expect(again.data.note).toMatch(/Nothing to issue/);
    expect(writeCount(sb)).toBe(0);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(250);
    expect(h.asked).toHaveLength(1); // nothing to confirm the second time
  });

  test('up to the threshold issues without asking; a repeated email is issued once; a required variable left empty stops that recipient before any write', async () => {
    const ws = sb.controls.createWorkspace();
    const client = sandboxClient(sb, ws.apiKey);
    const batch = await client.createBatch({ title: 'Minimal', designId: 'design_minimal' }); // requires "course"
    const h = await connect({ client, user: 'decline' });
    open.push(h);
    const list = [...recipients(3), { name: 'Again', email: 'LEARNER0@example.com', data: { course: 'Math' } }, { name: 'No course', email: 'nc@example.com' }];
    const result = await h.call('issue_certificates', { batchId: batch.id, recipients: list });
    expect(result.data.counts).toMatchObject({ issued: 3, skipped: 1, invalid: 1 });
    expect(result.data.errors).toEqual([expect.objectContaining({ kind: 'invalid', code: 'VALIDATION_ERROR', emails: ['nc@example.com'], message: expect.stringContaining('data.course') })]);
    expect(h.asked).toEqual([]);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(3);
  });

  test('a data key the design does not list is refused with the closest variable, in the dry run and the issue, before any write; `Course` fills `course`; a key matching two variables names both; allowUnknownVariables sends it', async () => {
    const ws = sb.controls.createWorkspace();
    const client = sandboxClient(sb, ws.apiKey);
    const batch = await client.createBatch({ title: 'Minimal', designId: 'design_minimal' }); // course (required), completedOn
    const h = await connect({ client, user: 'accept' });
    open.push(h);
    sb.controls.resetCounters();
    const typo = [{ name: 'Ada', email: 'ada@example.com', data: { Course: 'Math', compeltedOn: '2026-11-01' } }];
    const why = 'Invalid "data.compeltedOn": "compeltedOn" is not a variable of the certificate design; did you mean "completedOn"?';
    const dry = await h.call('issue_certificates', { batchId: batch.id, recipients: typo, dryRun: true });
    expect(dry.data).toMatchObject({ dryRun: true, wouldIssue: 0, invalid: 1, firstInvalid: [{ email: 'ada@example.com', code: 'VALIDATION_ERROR', message: why }] });
    expect(dry.data.hint).toMatch(/allowUnknownVariables: true sends such keys as given; use it only if the user says so/);
    const issued = await h.call('issue_certificates', { batchId: batch.id, recipients: [...typo, { name: 'Bo', email: 'bo@example.com', data: { Course: 'Math' } }] });
    expect(issued.data.counts).toMatchObject({ issued: 1, invalid: 1 });
    expect(issued.data.errors).toEqual([expect.objectContaining({ kind: 'invalid', emails: ['ada@example.com'], message: why })]);
    expect(issued.data.hint).toMatch(/allowUnknownVariables: true/);
    expect(writeCount(sb)).toBe(1); // Bo alone (one item: the single-issue endpoint)
    expect(sb.controls.certificates(batch.id).map((c) => [c.email, c.data])).toEqual([['bo@example.com', { course: 'Math' }]]);

    const allowed = await h.call('issue_certificates', { batchId: batch.id, recipients: typo, allowUnknownVariables: true });
    expect(allowed.data.counts).toMatchObject({ issued: 1, invalid: 0 });
    expect(sb.controls.certificates(batch.id).find((c) => c.email === 'ada@example.com')?.data).toEqual({ course: 'Math', compeltedOn: '2026-11-01' });
  });

  test('a key matching two variables of the design is refused naming both; a design that lists none refuses no key (a stub service that checks nothing)', async () => {
    const stub = await startStub({ batches: { b_twins: 'twins', b_none: 'none' }, designs: [{ id: 'twins', variables: [{ name: 'Course' }, { name: 'course' }] }, { id: 'none' }] });
    try {
      const h = await connect({ client: createClient({ baseUrl: stub.baseUrl, apiKey: 'sk_test_stub_key_0123456789' }), user: 'accept' });
      open.push(h);
      const twins = await h.call('issue_certificates', { batchId: 'b_twins', recipients: [{ name: 'Ada', email: 'ada@example.com', data: { course: 'Math' } }], allowUnknownVariables: true });
      expect(twins.data.counts).toMatchObject({ issued: 0, invalid: 1 });
      expect(twins.data.errors[0].message).toBe('Invalid "data.course": "course" matches 2 variables of the certificate design ("Course", "course"), which differ only in letter case or spaces, so it is not sent');
      expect(sentEmails(stub)).toEqual([]);
      const free = await h.call('issue_certificates', { batchId: 'b_none', recipients: [{ name: 'Ada', email: 'ada@example.com', data: { anything: 'x' } }] });
      expect(free.data.counts).toMatchObject({ issued: 1, invalid: 0 });
      expect(stub.issued.get('b_none')![0].data).toEqual({ anything: 'x' });
    } finally {
      await stub.close();
    }
  });

  test('send: true asks first; declined, nothing is written', async () => {
    const { ws, batch, h } = track(await setup({ user: 'decline' }));
    const result = await h.call('issue_certificates', { batchId: batch.id, recipients: recipients(2), send: true });
    expect(result.data).toMatchObject({ done: false, reason: 'declined' });
    expect(h.asked[0]).toMatch(/Issue 2 certificates into batch .* and email each one now/);
    expect(writeCount(sb)).toBe(0);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(0);
  });

  test('dryRun reads only and says what would happen', async () => {
    const { client, batch, h } = track(await setup({ user: 'accept' }));
    await client.issueCertificate(batch.id, { name: 'A', email: 'learner1@example.com' });
    sb.controls.resetCounters();
    const result = await h.call('issue_certificates', { batchId: batch.id, recipients: [...recipients(3), { name: 'Bad', email: 'not-an-email' }], dryRun: true });
    expect(result.data).toMatchObject({ done: false, dryRun: true, wouldIssue: 2, wouldSkip: 1, invalid: 1, issueCalls: 1 });
    expect(result.data.firstInvalid[0]).toMatchObject({ email: 'not-an-email', code: 'VALIDATION_ERROR' });
    expect(writeCount(sb)).toBe(0);
    expect(h.asked).toEqual([]);
  });

  test('a cancelled issue finishes the bulk call in flight, sends nothing more, and logs the outcomes so far', async () => {
    const { ws, batch, h } = track(await setup({ user: 'accept' }));
    sb.controls.injectFaults({ kind: 'delay', delayMs: 400, match: { method: 'POST', path: '^/api/v1/batches/[^/]+/recipients/bulk' }, count: Infinity });
    const controller = new AbortController();
    const call = h.call('issue_certificates', { batchId: batch.id, recipients: recipients(250) }, { signal: controller.signal });
    // Cancel while the first bulk call is in flight.
    await until('the first bulk call', () => (sb.controls.counters().requests.byRoute['POST /batches/:id/recipients/bulk'] ?? 0) > 0, 20_000, 10);
    controller.abort();
    await expect(call).rejects.toThrow();
    await h.idle();
    expect(writes(sb)).toEqual({ 'POST /batches/:id/recipients/bulk': 1 });
    expect(sb.controls.quota(ws.workspaceId).used).toBe(100);
    expect(h.logs.join('\n')).toMatch(/issue_certificates into .* was cancelled; the call in flight finished and nothing more was sent\. Outcomes: \{"issued":100,"skipped":0,"invalid":0,"failed":0,"unknown":0,"notSent":150/);
  });
});

// Issue 44, item 3: a confirmed call reads each batch and its design once (the preview's design
// variables go to the issue), and the certificates again at issue time, once the run holds its
// emails: one issued between the preview and the issue (another client, while the user is asked)
// is skipped, never issued twice.
describe('issue_certificates: what a confirmed call reads', () => {
  /** The sandbox's reads by route (writes left out), since the last reset. */
  const reads = (s: Sandbox) => Object.fromEntries(Object.entries(s.controls.counters().requests.byRoute).filter(([route]) => route.startsWith('GET ')));

  test('confirmed by elicitation: the batch and its design read once, the certificates twice (preview, then at issue time)', async () => {
    const s = track(await setup({ user: 'accept' }));
    const result = await s.h.call('issue_certificates', { batchId: s.batch.id, recipients: recipients(3), send: true });
    expect(result.data).toMatchObject({ done: true, counts: { issued: 3 } });
    expect(s.h.asked).toHaveLength(1);
    expect(reads(sb)).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1, 'GET /batches/:id/recipients': 2 });
  });

  test('confirmed by token: the confirming call reads the batch and its design once, the certificates twice', async () => {
    const s = track(await setup());
    const args = { batchId: s.batch.id, recipients: recipients(3), send: true };
    const dry = await s.h.call('issue_certificates', args);
    expect(dry.data).toMatchObject({ done: false, reason: 'confirmationRequired' });
    // The dry run's reads stay with it (the token may come back to another process, minutes later).
    sb.controls.resetCounters();
    const done = await s.h.call('issue_certificates', { ...args, confirmationToken: dry.data.confirmationToken });
    expect(done.data).toMatchObject({ done: true, counts: { issued: 3 } });
    expect(reads(sb)).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1, 'GET /batches/:id/recipients': 2 });
  });

  test('a certificate issued while the user is asked (after the preview read the batch) is skipped: the issue reads the certificates again', async () => {
    const s = track(await setup({ user: 'accept' }));
    const list = recipients(3);
    s.h.client.setRequestHandler(ElicitRequestSchema, async () => {
      // Another client issues one of the emails after the preview's read, before the issue.
      await s.client.issueCertificate(s.batch.id, { name: list[1].name, email: list[1].email });
      return { action: 'accept', content: { confirm: true } };
    });
    const result = await s.h.call('issue_certificates', { batchId: s.batch.id, recipients: list, send: true });
    expect(result.data).toMatchObject({ done: true, counts: { issued: 2, skipped: 1 } });
    expect(sb.controls.quota(s.ws.workspaceId).used).toBe(3); // one certificate per email
    const inBatch = (await s.client.recipientsByEmail(s.batch.id)).get(list[1].email)!;
    expect(inBatch).toHaveLength(1);
  });
});

describe('confirmation', () => {
  /** Each destructive tool, with arguments made against a fresh workspace. */
  const cases: Array<[tool: string, make: (s: Awaited<ReturnType<typeof setup>>) => Promise<Record<string, unknown>>, write: string]> = [
    ['delete_certificate', async ({ client, batch }) => ({ certificateId: (await client.issueCertificate(batch.id, { name: 'A', email: 'a@example.com' })).certificateId }), 'DELETE /batches/:id/recipients/:rid'],
    ['archive_batch', async ({ client }) => ({ batchId: (await client.createBatch({ title: 'To archive', designId: 'design_classic' })).id }), 'POST /batches/:id/archive'],
    ['send_certificate', async ({ client, batch }) => ({ certificateId: (await client.issueCertificate(batch.id, { name: 'A', email: 'a@example.com' })).certificateId }), 'POST /batches/:id/recipients/:rid/send'],
    ['update_certificate', async ({ client, batch }) => ({ certificateId: (await client.issueCertificate(batch.id, { name: 'A', email: 'a@example.com' })).certificateId, name: 'B' }), 'PATCH /batches/:id/recipients/:rid'],
    ['delete_subscription', async ({ client }) => ({ subscriptionId: (await client.createSubscription({ url: 'http://127.0.0.1:9/hook', events: ['certificate.issued'] })).id }), 'DELETE /webhooks/subscriptions/:id'],
  ];

  test.each(cases)('%s: declined or unticked makes 0 write requests; accepted makes 1', async (tool, make, write) => {
    for (const user of ['decline', 'cancel', 'untick'] as const) {
      const s = track(await setup({ user }));
      const args = await make(s);
      sb.controls.resetCounters();
      const result = await s.h.call(tool, args);
      expect(result.data).toMatchObject({ done: false });
      expect(s.h.asked).toHaveLength(1);
      expect(writeCount(sb)).toBe(0);
    }
    const s = track(await setup({ user: 'accept' }));
    const args = await make(s);
    sb.controls.resetCounters();
    const result = await s.h.call(tool, args);
    expect(result.isError).toBeFalsy();
    expect(result.data).toMatchObject({ done: true });
    expect(writes(sb)).toEqual({ [write]: 1 });
  });

  test.each(cases)('%s without elicitation: a dry run with a token (0 writes); the token once makes 1 write; again, or for other arguments, 0', async (tool, make, write) => {
    const s = track(await setup());
    const args = await make(s);
    sb.controls.resetCounters();
    const dry = await s.h.call(tool, args);
    expect(dry.data).toMatchObject({ done: false, reason: 'confirmationRequired', confirmationToken: expect.stringMatching(/^ct2\./), action: expect.any(String) });
    expect(writeCount(sb)).toBe(0);
    const token = dry.data.confirmationToken;
    // The token for other arguments (another certificate, batch or subscription).
    const otherArgs = await make(s);
    sb.controls.resetCounters();
    const other = await s.h.call(tool, { ...otherArgs, confirmationToken: token });
    expect(other.data).toMatchObject({ done: false, tokenProblem: expect.stringMatching(/^(arguments|target)$/) });
    expect(writeCount(sb)).toBe(0);
    sb.controls.resetCounters();
    // The same arguments in another key order are the same arguments.
    const done = await s.h.call(tool, Object.fromEntries(Object.entries({ confirmationToken: token, ...args }).reverse()));
    expect(done.data).toMatchObject({ done: true });
    expect(writes(sb)).toEqual({ [write]: 1 });
    if (tool === 'archive_batch' || tool === 'update_certificate' || tool === 'send_certificate') {
      const reused = await s.h.call(tool, { ...args, confirmationToken: token });
      expect(reused.data).toMatchObject({ done: false, tokenProblem: 'used', tokenProblemMessage: expect.stringMatching(/already used/) });
      expect(writes(sb)).toEqual({ [write]: 1 });
    }
  });

  test('through the official client: an expired, a forged and a tampered token write nothing and say which', async () => {
    let now = Date.now();
    const tokens = new ConfirmationTokens(path.join(stateFolder, 'clock'), CONFIRMATION_TTL_MS, () => now);
    const a = track(await setup());
    const h = await connect({ client: a.client, tokens });
    open.push(h);
    const dry = await h.call('archive_batch', { batchId: a.batch.id });
    sb.controls.resetCounters();
    expect((await h.call('archive_batch', { batchId: a.batch.id, confirmationToken: 'ct2.made.up' })).data).toMatchObject({ done: false, tokenProblem: 'forged' });
    const tampered = dry.data.confirmationToken.replace(/\.([^.]+)\.([^.]+)$/, (_: string, nonce: string, mac: string) => `.${nonce}x.${mac}`);
    expect((await h.call('archive_batch', { batchId: a.batch.id, confirmationToken: tampered })).data).toMatchObject({ done: false, tokenProblem: 'forged' });
    now += CONFIRMATION_TTL_MS + 1;
    expect((await h.call('archive_batch', { batchId: a.batch.id, confirmationToken: dry.data.confirmationToken })).data).toMatchObject({ done: false, tokenProblem: 'expired', confirmationToken: expect.any(String) });
    expect(writeCount(sb)).toBe(0);
  });

  test('a token is bound to what it confirms, not to the session: another session redeems it once; a third time writes nothing', async () => {
    const a = track(await setup());
    const b = await connect({ client: a.client });
    const c = await connect({ client: a.client });
    open.push(b, c);
    const dry = await a.h.call('archive_batch', { batchId: a.batch.id });
    sb.controls.resetCounters();
    expect((await b.call('archive_batch', { batchId: a.batch.id, confirmationToken: dry.data.confirmationToken })).data).toMatchObject({ done: true });
    expect((await c.call('archive_batch', { batchId: a.batch.id, confirmationToken: dry.data.confirmationToken })).data).toMatchObject({ done: false, tokenProblem: 'used' });
    expect(writes(sb)).toEqual({ 'POST /batches/:id/archive': 1 });
  });
});

describe('answers', () => {
  test('an answer the core cannot read is a tool error naming what came back, never an empty list', async () => {
    const { h } = track(await setup());
    sb.controls.setListShape('entries');
    const result = await h.call('list_batches');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^UNEXPECTED_RESPONSE: GET \/batches answered 200 .*keys "entries", "continuation"/);
    expect(result.text).toMatch(/CERTSVC_BASE_URL in this MCP server's environment/);
    sb.controls.setListShape('html_page');
    expect((await h.call('list_subscriptions')).text).toMatch(/UNEXPECTED_RESPONSE: .*HTML page/);
  });

  test('doctor on answers it cannot read: ok false, each failed check naming what came back (the same checks as certsvc doctor)', async () => {
    const { client, batch, h } = track(await setup());
    await client.issueCertificate(batch.id, { name: 'A', email: 'a@example.com' });
    sb.controls.setListShape('payload_rows');
    const doctor = await h.call('doctor');
    expect(doctor.data).toMatchObject({ ok: false, verdict: '4 checks failed: tools cannot rely on these answers.' });
    expect(doctor.data.checks[0]).toEqual({ endpoint: 'POST /auth', status: 200, failed: false, found: ['fields: all 2 the connectors read are present'] });
    expect(doctor.data.checks[1]).toMatchObject({ endpoint: 'GET /batches', status: 200, failed: true, found: [expect.stringMatching(/^FAILED \(UNEXPECTED_RESPONSE\): GET \/batches answered 200 .*keys "payload"/)] });
  });

  test('a refused key is a tool error saying where the key comes from; not found is found: false', async () => {
    const h = await connect({ client: sandboxClient(sb, 'sk_live_not_a_key_000000000') });
    open.push(h);
    const result = await h.call('list_batches');
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toMatch(/INVALID_API_KEY.*\n.*CERTSVC_API_KEY in this MCP server's environment/s);
    expect(result.text).not.toContain('sk_live_not_a_key_000000000');
    const { h: ok } = track(await setup());
    expect((await ok.call('find_certificate', { certificateId: 'CERT-2020-000000-0000' })).data).toEqual({ found: false });
  });

  test('read tools answer from the sandbox: batches, batch variables, designs, find by ID, token URL and email, subscriptions, doctor', async () => {
    const { client, batch, h } = track(await setup());
    const cert = await client.issueCertificate(batch.id, { name: 'Ada', email: 'Ada@Example.com', data: { course: 'Math' } });
    await client.createSubscription({ url: 'http://127.0.0.1:9/hook', events: ['certificate.issued'] });
    expect((await h.call('list_batches')).data.batches).toEqual([{ id: batch.id, title: 'MCP', designId: 'design_classic', status: 'active' }]);
    expect((await h.call('get_batch', { batchId: batch.id })).data).toMatchObject({ variablesSource: 'design', variables: [{ name: 'course', required: false, label: 'Course' }, { name: 'score', required: false, label: 'Score' }] });
    expect((await h.call('list_designs')).data.designs.map((d: { id: string }) => d.id).sort()).toEqual(['design_classic', 'design_minimal', 'design_modern']);
    expect((await h.call('find_certificate', { shareToken: cert.certUrl })).data.certificate).toMatchObject({ certificateId: cert.certificateId });
    expect((await h.call('find_certificate_by_email', { batchId: batch.id, email: 'ada@example.COM' })).data.certificate).toMatchObject({ id: cert.id });
    expect((await h.call('find_certificate_by_email', { batchId: batch.id, email: 'bob@example.com' })).data).toEqual({ found: false });
    const subs = await h.call('list_subscriptions');
    expect(subs.data).toMatchObject({ count: 1, limit: 20 });
    expect(subs.text).not.toMatch(/wh_sec_|secret"/);
    const doctor = await h.call('doctor');
    expect(doctor.data).toMatchObject({ ok: true, verdict: 'Every answer has a shape this server reads.' });
    expect(doctor.data.checks).toHaveLength(5);
  });

  test('resources: the event types and error codes; the prompt walks through batch, variables, dry run and issue', async () => {
    const { h } = track(await setup());
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['certsvc://spec/event-types', 'certsvc://spec/error-codes']);
    const events = JSON.parse(((await h.client.readResource({ uri: 'certsvc://spec/event-types' })).contents[0] as { text: string }).text);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['certificate.issued', 'certificate.sent', 'certificate.failed', 'certificate.viewed']);
    const errors = JSON.parse(((await h.client.readResource({ uri: 'certsvc://spec/error-codes' })).contents[0] as { text: string }).text);
    expect(errors.filter((e: { from: string }) => e.from === 'service').map((e: { code: string }) => e.code)).toHaveLength(10);
    const prompt = await h.client.getPrompt({ name: 'issue_from_csv', arguments: { csv: 'name,email\nAda,ada@example.com' } });
    const text = (prompt.messages[0].content as { text: string }).text;
    for (const step of ['list_batches', 'get_batch', 'dryRun: true', 'issue_certificates', 'Ada,ada@example.com']) expect(text).toContain(step);
  });
});
