// issueMany's skipExisting against the sandbox, in every list shape it serves: a second run of
// the same list issues nothing, a run after a partial one issues only what is missing, and the
// batch is read once, 100 a page. In a shape the core cannot read, nothing is issued at all.
import { createClient } from '@certificate-service/sdk';
import { createSandbox, KNOWN_LIST_SHAPES, UNKNOWN_LIST_SHAPES, type Sandbox } from '@certificate-service/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, quota: 10_000 });
});
afterAll(() => sb.close());

const people = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ name: `Learner ${from + i}`, email: `learner${from + i}@example.com` }));

async function setup() {
  const ws = sb.controls.createWorkspace({ quota: 10_000 });
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
  const batchId = (await client.createBatch({ title: 'Skip', designId: 'design_classic' })).id;
  return { ws, client, batchId };
}

const byRoute = () => sb.controls.counters().requests.byRoute;
const issueCalls = (routes: Record<string, number>) =>
  Object.entries(routes).filter(([r]) => r.startsWith('POST') && r.includes('/recipients')).reduce((n, [, c]) => n + c, 0);
const listCalls = (routes: Record<string, number>) =>
  Object.entries(routes).filter(([r]) => r.startsWith('GET') && /\/recipients$/.test(r)).reduce((n, [, c]) => n + c, 0);

// A bare list has no cursor, so it is served here one page at a time: see the 'bare' block below.
const PAGED_SHAPES = KNOWN_LIST_SHAPES.filter((s) => s !== 'bare');

describe.each(PAGED_SHAPES)('list shape %s', (shape) => {
  beforeEach(() => sb.controls.setListShape(shape));
  afterEach(() => sb.controls.setListShape('default'));

  test('a second run of 250 issues 0: 3 list pages read, no issue request, quota unchanged', async () => {
    const { ws, client, batchId } = await setup();
    const items = people(250).map((p) => ({ ...p, batchId }));
    const first = await client.issueMany(items, { skipExisting: true });
    expect(first.filter((o) => o.kind === 'issued')).toHaveLength(250);

    sb.controls.resetCounters();
    const again = await client.issueMany(items.map((it) => ({ ...it, email: it.email.toUpperCase() })), { skipExisting: true });
    expect(again.every((o) => o.kind === 'skipped')).toBe(true);
    expect(again.map((o) => (o.ok ? o.recipient.certificateId : ''))).toEqual(first.map((o) => (o.ok ? o.recipient.certificateId : '')));
    expect(issueCalls(byRoute())).toBe(0);
    expect(listCalls(byRoute())).toBe(3);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(250);
  });

  test('after a partial run, only the missing ones are issued, in bulk', async () => {
    const { ws, client, batchId } = await setup();
    await client.issueMany(people(120).map((p) => ({ ...p, batchId })));
    sb.controls.resetCounters();
    const out = await client.issueMany(people(300).map((p) => ({ ...p, batchId })), { skipExisting: true });
    expect(out.filter((o) => o.kind === 'skipped')).toHaveLength(120);
    expect(out.filter((o) => o.kind === 'issued')).toHaveLength(180);
    expect(issueCalls(byRoute())).toBe(2); // 100 + 80
    expect(sb.controls.quota(ws.workspaceId).used).toBe(300);
  });

  test('an email twice in one call is issued once; the repeat is skipped with the same certificate', async () => {
    const { ws, client, batchId } = await setup();
    const out = await client.issueMany(
      [
        { batchId, name: 'Ada', email: 'ada@example.com' },
        { batchId, name: 'Ada again', email: ' ADA@example.com ' },
        { batchId, name: 'Bob', email: 'bob@example.com' },
      ],
      { skipExisting: true },
    );
    expect(out.map((o) => o.kind === 'skipped')).toEqual([false, true, false]);
    expect(out[1].ok && out[0].ok && out[1].recipient.id).toBe(out[0].ok && out[0].recipient.id);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(2);
  });

  test('with skipExisting: false nothing is read first (one request per 100)', async () => {
    const { client, batchId } = await setup();
    sb.controls.resetCounters();
    await client.issueMany(people(5).map((p) => ({ ...p, batchId })), { skipExisting: false });
    expect(listCalls(byRoute())).toBe(0);
    expect(issueCalls(byRoute())).toBe(1);
  });
});

describe('list shape bare (no cursor, no end marker)', () => {
  beforeEach(() => sb.controls.setListShape('bare'));
  afterEach(() => sb.controls.setListShape('default'));

  test('a page with room to spare is the whole batch: skipping works', async () => {
    const { ws, client, batchId } = await setup();
    await client.issueMany(people(40).map((p) => ({ ...p, batchId })));
    const out = await client.issueMany(people(60).map((p) => ({ ...p, batchId })), { skipExisting: true });
    expect(out.filter((o) => o.kind === 'skipped')).toHaveLength(40);
    expect(out.filter((o) => o.kind === 'issued')).toHaveLength(20);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(60);
  });

  test('a full page cannot be told from the whole batch: nothing is issued, each item says why', async () => {
    const { ws, client, batchId } = await setup();
    await client.issueMany(people(120).map((p) => ({ ...p, batchId })));
    sb.controls.resetCounters();
    const out = await client.issueMany(people(130).map((p) => ({ ...p, batchId })), { skipExisting: true });
    expect(issueCalls(byRoute())).toBe(0);
    expect(out.every((o) => !o.ok && o.error.code === 'UNEXPECTED_RESPONSE')).toBe(true);
    expect(!out[0].ok && out[0].error.message).toMatch(/a next-page cursor or a sign that this full page of 100 is the last/);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(120);
  });
});

describe.each(UNKNOWN_LIST_SHAPES)('a list shape no code knows: %s', (shape) => {
  afterEach(() => sb.controls.setListShape('default'));

  test('0 issue requests; every item ends with UNEXPECTED_RESPONSE naming what came back', async () => {
    const { ws, client, batchId } = await setup();
    await client.issueMany(people(3).map((p) => ({ ...p, batchId })));
    sb.controls.setListShape(shape);
    sb.controls.resetCounters();
    const out = await client.issueMany(people(5).map((p) => ({ ...p, batchId })), { skipExisting: true, variables: false });
    expect(issueCalls(byRoute())).toBe(0);
    expect(listCalls(byRoute())).toBe(1);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(3);
    for (const o of out) {
      expect(o).toMatchObject({ ok: false, error: { code: 'UNEXPECTED_RESPONSE', phase: 'response', outcomeUnknown: false } });
      expect(!o.ok && o.error.message).toMatch(/not issued, because batch \S+ could not be read to skip the certificates it already has.*GET \/batches\/\{batchId\}\/recipients answered 200/);
    }
    expect(!out[0].ok && out[0].error.message).toMatch(shape === 'html_page' ? /\(text\/html\) with an HTML page/ : shape === 'entries' ? /keys "entries", "continuation"/ : /keys "payload"/);
    await expect(client.findRecipientByEmail(batchId, 'learner0@example.com')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
    await expect(client.recipientsByEmail(batchId)).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
  });
});
