// The issue plan, step by step (plan → read → plan the calls → send → assemble), each step on
// its own, then the whole plan against the sandbox for the facts it must compute once.
import { CertificateServiceError, countOutcomes, outcomeProblems, type DesignVariable, type IssueOutcome } from '@certificate-service/sdk/core';
import { createClient } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { assembleOutcomes } from '../../shared/sdk/src/issue/assemble';
import { noReads, planCalls, planItems, type BatchReads } from '../../shared/sdk/src/issue/plan';
import { sendCalls } from '../../shared/sdk/src/issue';
import { redactAnswer, SecretSet } from '../../shared/sdk/src/redact';
import { Requester } from '../../shared/sdk/src/request';
import type { Api } from '../../shared/sdk/src/client/api';
import { recipient } from './helpers';
import { netError, reply, scripted } from './scripted';

const v = (name: string, required = true): DesignVariable => ({ name, label: name, required, source: 'design' });
const item = (i: number, extra: Record<string, unknown> = {}) => ({ batchId: 'b1', name: `P${i}`, email: `p${i}@example.com`, ...extra });

describe('1. planItems: every fact about an item, once', () => {
  test('the batch id is trimmed, the email keyed (trimmed, lower-cased), shared data under the item\'s own', () => {
    const plan = planItems([item(0, { batchId: ' b1 ', email: ' P0@Example.COM ', data: { course: 'Own' } }), item(1, { batchId: 'b1' })], { course: 'Shared', year: 2026 });
    expect(plan.batchIds).toEqual(['b1']);
    expect(plan.items.map((i) => [i.batchId, i.emailKey])).toEqual([
      ['b1', 'p0@example.com'],
      ['b1', 'p1@example.com'],
    ]);
    expect({ ...plan.items[0].recipient.data }).toEqual({ course: 'Own', year: '2026' });
    expect({ ...plan.items[1].recipient.data }).toEqual({ course: 'Shared', year: '2026' });
  });

  test('a bad item is invalid on its own, naming its field; bad shared data throws before anything', () => {
    const plan = planItems([item(0), item(1, { email: 'nope' }), null as never, item(3, { batchId: '  ' })]);
    expect(plan.items.map((i) => i.index)).toEqual([0]);
    expect([...plan.invalid].map(([i, o]) => [i, o.error.field])).toEqual([
      [1, 'email'],
      [2, 'recipient'],
      [3, 'batchId'],
    ]);
    expect(() => planItems([item(0)], { nested: { x: 1 } })).toThrow(expect.objectContaining({ field: 'data.nested' }));
  });

  test('variables named __proto__, constructor or toString are plain data, in a map without a prototype', () => {
    const plan = planItems([item(0, { data: JSON.parse('{"__proto__": "a", "constructor": "b"}') })], { toString: 'c' });
    const data = plan.items[0].recipient.data;
    expect(Object.getPrototypeOf(data)).toBeNull();
    expect(Object.keys(data).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(JSON.parse(JSON.stringify(data))).toEqual(JSON.parse('{"__proto__": "a", "constructor": "b", "toString": "c"}'));
  });
});

describe('3. planCalls: what is decided before sending, and the calls for the rest', () => {
  const reads = (over: Partial<BatchReads> = {}): BatchReads => ({ ...noReads(), ...over });

  test('already in the batch: skipped with the existing certificate; a repeat in the call waits for its first', () => {
    const existing = new Map([['b1', new Map([['p1@example.com', [recipient(1)]]])]]);
    const plan = planCalls(planItems([item(0), item(1), item(2), item(0, { email: 'P0@EXAMPLE.com' })]), reads({ existing }), { skipExisting: true });
    expect(plan.decided.get(1)).toMatchObject({ kind: 'skipped', reason: 'inBatch', recipient: { id: 'rec_1' } });
    expect(plan.repeats).toEqual([[3, 0]]);
    expect(plan.calls.map((c) => c.items.map((i) => i.index))).toEqual([[0, 2]]);
  });

  test('a required variable left empty is invalid, also when it is called constructor or toString', () => {
    const variables = new Map([['b1', [v('constructor'), v('toString'), v('course', false)]]]);
    const plan = planCalls(planItems([item(0), item(1, { data: { constructor: 'x', toString: 'y' } })]), reads(), { skipExisting: false, variables });
    expect(plan.decided.get(0)).toMatchObject({ kind: 'invalid', error: { field: 'data.constructor' } });
    expect(plan.decided.has(1)).toBe(false);
  });

  test('a batch whose read failed: its items are held back (unreadBatch), the other batch is sent', () => {
    const error = new CertificateServiceError({ code: 'UNEXPECTED_RESPONSE', phase: 'response', message: 'unreadable' });
    const plan = planCalls(planItems([item(0), item(1, { batchId: 'b2' })]), reads({ failed: new Map([['b1', { error, purpose: 'skip-existing' }]]) }), { skipExisting: true });
    expect(plan.decided.get(0)).toMatchObject({ kind: 'unreadBatch', batchId: 'b1', error: { code: 'UNEXPECTED_RESPONSE', outcomeUnknown: false } });
    expect(plan.calls.map((c) => c.batchId)).toEqual(['b2']);
  });

  test('stopOnInvalid: one invalid item holds every other back, before any call', () => {
    const plan = planCalls(planItems([item(0), item(1, { email: 'x' }), item(2)]), reads(), { skipExisting: false, stopOnInvalid: true });
    expect(plan.calls).toEqual([]);
    expect([0, 2].map((i) => plan.decided.get(i))).toMatchObject([
      { kind: 'notSent', reason: 'stopOnInvalid', because: 1 },
      { kind: 'notSent', reason: 'stopOnInvalid', because: 1 },
    ]);
  });

  test('calls per batch and send flag, in input order, at most 100; one each with bulk: false', () => {
    const items = [...Array.from({ length: 150 }, (_, i) => item(i)), item(150, { send: true }), item(151, { batchId: 'b2' })];
    const plan = planCalls(planItems(items), reads(), { skipExisting: false });
    expect(plan.calls.map((c) => [c.batchId, c.send ?? null, c.items.length])).toEqual([
      ['b1', null, 100],
      ['b1', null, 50],
      ['b1', true, 1],
      ['b2', null, 1],
    ]);
    expect(planCalls(planItems(items.slice(0, 3)), reads(), { skipExisting: false, bulk: false }).calls).toHaveLength(3);
  });
});

/** The core's one call path over a scripted transport, as the resource modules see it. */
function scriptedApi(steps: Parameters<typeof scripted>[0]) {
  const s = scripted(steps);
  const secrets = new SecretSet([]);
  const requester = new Requester({ baseUrl: 'https://certs.example.com/api/v1', transport: (r) => (s.requests.push(r), next(steps, r)), sleep: async () => {} }, secrets);
  return { api: { call: requester.call.bind(requester), secrets } as Api, requests: s.requests };
}
async function next(steps: Parameters<typeof scripted>[0], request: { method: string; url: string }) {
  const step = steps.shift();
  if (!step) throw new Error(`unexpected request ${request.method} ${request.url}`);
  if (step instanceof Error) throw step;
  return step;
}

describe('4. sendCalls: each call once; what a refusal holds back', () => {
  const callsOf = (items: ReturnType<typeof item>[], bulk = false) => planCalls(planItems(items), noReads(), { skipExisting: false, bulk }).calls;

  test('the signal: the call in flight finishes, no further call is made, the rest are notSent (cancelled)', async () => {
    const stop = new AbortController();
    const { api, requests } = scriptedApi([reply(201, recipient(0)), reply(201, recipient(1))]);
    const inFlight: number[][] = [];
    const settled: number[] = [];
    const sent = await sendCalls(api, callsOf([item(0), item(1), item(2)]), {
      signal: stop.signal,
      onCall: (indexes) => {
        inFlight.push(indexes);
        if (indexes[0] === 1) stop.abort(); // Ctrl-C while the second call is in flight
      },
      onSettled: (list) => settled.push(...list.map(([i]) => i)),
    });
    expect(inFlight).toEqual([[0], [1]]);
    expect(requests).toHaveLength(2);
    expect([0, 1, 2].map((i) => sent.get(i)!.kind)).toEqual(['issued', 'issued', 'notSent']);
    expect(sent.get(2)).toMatchObject({ reason: 'cancelled', error: { code: 'NOT_SENT', phase: 'validation' } });
    expect(settled).toEqual([0, 1, 2]);
  });

  test('an archived batch: its later calls are held back (refusedEarlier, naming the refused item); another batch is sent', async () => {
    const { api, requests } = scriptedApi([reply(409, { error: 'BATCH_ARCHIVED', message: 'archived' }), reply(201, recipient(9))]);
    const sent = await sendCalls(api, callsOf([item(0), item(1), item(2, { batchId: 'b2' })]));
    expect(requests.map((r) => r.url.replace(/.*\/api\/v1/, ''))).toEqual(['/batches/b1/recipients', '/batches/b2/recipients']);
    expect(sent.get(0)).toMatchObject({ kind: 'failed', error: { code: 'BATCH_ARCHIVED' } });
    expect(sent.get(1)).toMatchObject({ kind: 'refusedEarlier', because: 0, error: { code: 'BATCH_ARCHIVED', phase: 'validation' } });
    expect(sent.get(2)).toMatchObject({ kind: 'issued' });
  });

  test('stopOnError: after a call with an unknown outcome nothing more is sent (notSent, because of it)', async () => {
    const { api, requests } = scriptedApi([netError('ECONNRESET')]);
    const sent = await sendCalls(api, callsOf([item(0), item(1)]), { stopOnError: true });
    expect(requests).toHaveLength(1);
    expect(sent.get(0)).toMatchObject({ kind: 'unknown', error: { outcomeUnknown: true } });
    expect(sent.get(1)).toMatchObject({ kind: 'notSent', reason: 'stopOnError', because: 0 });
  });

  test('a bulk call rejected for one item: `because` is that item\'s input index, not its place in the call', async () => {
    const { api } = scriptedApi([reply(400, { error: 'VALIDATION_ERROR', message: 'bad', detail: { index: 1, field: 'recipients[1].email' } })]);
    const calls = planCalls(planItems([item(0, { batchId: 'b2' }), item(1), item(2)]), noReads(), { skipExisting: false }).calls;
    const sent = await sendCalls(api, calls.filter((c) => c.batchId === 'b1'));
    expect(sent.get(1)).toMatchObject({ kind: 'failed', because: 2 });
    expect(sent.get(2)).toMatchObject({ kind: 'failed', error: { message: 'p2@example.com: bad' } });
  });
});

describe('5. assembleOutcomes', () => {
  test('in input order; a repeat takes its first item\'s certificate (skipped, earlierInCall) or its failure', () => {
    const failed: IssueOutcome = { kind: 'failed', ok: false, error: new CertificateServiceError({ code: 'QUOTA_EXCEEDED', message: 'no quota' }) };
    const decided = new Map<number, IssueOutcome>([[1, failed]]);
    const sent = new Map<number, IssueOutcome>([[0, { kind: 'issued', ok: true, recipient: recipient(0) }]]);
    const out = assembleOutcomes(4, { decided, calls: [], repeats: [[2, 0], [3, 1]] }, sent);
    expect(out.map((o) => o.kind)).toEqual(['issued', 'failed', 'skipped', 'failed']);
    expect(out[2]).toMatchObject({ reason: 'earlierInCall', sameAs: 0, recipient: { id: 'rec_0' } });
  });

  test('an item the plan left without an outcome is a bug, never "nothing happened"', () => {
    expect(() => assembleOutcomes(2, { decided: new Map(), calls: [], repeats: [] }, new Map([[0, { kind: 'issued', ok: true, recipient: recipient(0) } as IssueOutcome]]))).toThrow(/item 1 has no outcome/);
  });
});

describe('counting and grouping outcomes for a report', () => {
  test('a refusal that holds for a whole batch is one problem, for the items of the refused call and those it held back', async () => {
    const s = scripted([reply(409, { error: 'BATCH_ARCHIVED', message: 'The batch is archived.' })]);
    const outcomes = await s.client.issueMany([...Array.from({ length: 150 }, (_, i) => item(i)), item(150, { email: 'bad' })], { skipExisting: false, variables: false });
    expect(countOutcomes(outcomes)).toMatchObject({ failed: 100, refusedEarlier: 50, invalid: 1, total: 151 });
    const problems = outcomeProblems(outcomes);
    expect(problems.map((p) => [p.code, p.message, p.items.length])).toEqual([
      ['BATCH_ARCHIVED', 'The batch is archived.', 150],
      ['VALIDATION_ERROR', 'Invalid "email": "bad" is not a valid email address', 1],
    ]);
  });
});

describe('the whole plan against the sandbox', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ rateLimit: false, quota: 10_000 });
  });
  afterAll(() => sb.close());

  async function setup(designId = 'design_classic') {
    const ws = sb.controls.createWorkspace({ quota: 1_000 });
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const batchId = (await client.createBatch({ title: 'Plan', designId })).id;
    return { ws, client, batchId };
  }

  test('"b1" and "b1 " (a spreadsheet cell with a trailing space) with one email: one certificate, the repeat skipped', async () => {
    const { ws, client, batchId } = await setup();
    const out = await client.issueMany([
      { batchId, name: 'Ada', email: 'ada@example.com' },
      { batchId: `${batchId} `, name: 'Ada', email: 'ADA@example.com' },
    ]);
    expect(out.map((o) => o.kind)).toEqual(['issued', 'skipped']);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(1);
    const again = await client.issueMany([{ batchId: ` ${batchId}`, name: 'Ada', email: 'ada@example.com' }]);
    expect(again[0]).toMatchObject({ kind: 'skipped', reason: 'inBatch' });
    expect(sb.controls.quota(ws.workspaceId).used).toBe(1);
  });

  test("variables: 'design' reads the design once per batch and fails an item missing a required one before any write", async () => {
    const { ws, client, batchId } = await setup('design_minimal'); // requires `course`
    sb.controls.resetCounters();
    const out = await client.issueMany(
      [
        { batchId, name: 'A', email: 'a@example.com', data: { course: 'Maths' } },
        { batchId: `${batchId} `, name: 'B', email: 'b@example.com' },
      ],
      { variables: 'design' },
    );
    expect(out.map((o) => o.kind)).toEqual(['issued', 'invalid']);
    expect(out[1]).toMatchObject({ error: { field: 'data.course', phase: 'validation' } });
    const routes = sb.controls.counters().requests.byRoute;
    expect(routes['GET /batches/:id']).toBe(1);
    expect(routes['GET /designs']).toBe(1);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(1);
  });

  test('previewIssue: the same reads, no write; says what would be issued and in how many calls', async () => {
    const { ws, client, batchId } = await setup();
    await client.issueMany(Array.from({ length: 30 }, (_, i) => ({ batchId, name: `P${i}`, email: `p${i}@example.com` })));
    const items = Array.from({ length: 250 }, (_, i) => ({ batchId, name: `P${i}`, email: `p${i}@example.com` }));
    const preview = await client.previewIssue([...items, items[40], { ...items[0], email: 'bad' }]);
    expect(preview).toMatchObject({ wouldIssue: 220, calls: 3 });
    expect(preview.outcomes[0]).toMatchObject({ kind: 'skipped', reason: 'inBatch' });
    expect(preview.outcomes[40]).toMatchObject({ kind: 'wouldIssue', call: 0 });
    expect(preview.outcomes[250]).toMatchObject({ kind: 'repeat', sameAs: 40 });
    expect(preview.outcomes[251]).toMatchObject({ kind: 'invalid' });
    expect(sb.controls.quota(ws.workspaceId).used).toBe(30);
  });
});

test('redaction keeps a `__proto__` key of an answer as data', () => {
  const body = JSON.parse('{"data": {"__proto__": "kept", "course": "x"}}');
  const out = redactAnswer(body, ['sk_live_secret'], false) as { data: Record<string, unknown> };
  expect(Object.keys(out.data)).toEqual(['__proto__', 'course']);
  expect(Object.getPrototypeOf(out.data)).toBe(Object.prototype);
  expect(JSON.stringify(out)).toBe('{"data":{"__proto__":"kept","course":"x"}}');
});
