// The recipient list models a polling client must survive, where the spec is silent (choices.ts):
// an order the client cannot infer, timestamps to the second with one stamp per call, offset
// cursors that shift, cursors that expire after a time or after N writes, the Date header from
// the service's clock, and the controls that switch each (in-process and over /__sandbox).
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { readFlags } from '../../shared/sandbox/src/cli';

let sb: Sandbox;
let api: Api;
let now = Date.parse('2026-11-25T10:00:00.250Z');

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, mailDelayMs: 60_000, clock: () => now });
  api = new Api(sb.baseUrl, sb.apiKey);
});
afterEach(() => {
  sb.controls.setRecipientOrder('newest-first');
  sb.controls.setTimestampPrecision('ms');
  sb.controls.setCursorKind('opaque');
  sb.controls.setCursorExpiry(false);
});
afterAll(() => sb.close());

type Rec = { id: string; name: string; createdAt: string; emailStatus: string; emailSentAt: string | null };

async function newBatch(): Promise<string> {
  return (await api.post('/batches', { title: 'Models', designId: 'design_classic' })).body.id;
}
async function issue(batchId: string, names: string[]): Promise<Rec[]> {
  const recipients = names.map((name) => ({ name, email: `${name.toLowerCase()}@example.com` }));
  return (await api.post(`/batches/${batchId}/recipients/bulk`, { recipients })).body.data;
}
async function page(batchId: string, limit: number, cursor?: string | null, query = '') {
  const res = await api.get(`/batches/${batchId}/recipients?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}${query}`);
  return { status: res.status, body: res.body, date: res.headers.get('date') };
}
async function walk(batchId: string, limit: number): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | null = null;
  do {
    const { body } = await page(batchId, limit, cursor);
    names.push(...body.data.map((r: Rec) => r.name));
    cursor = body.nextCursor;
  } while (cursor);
  return names;
}

test('undetectable: each certificate once, in an order that is neither oldest nor newest first', async () => {
  sb.controls.setRecipientOrder('undetectable');
  const batchId = await newBatch();
  const names = Array.from({ length: 30 }, (_, i) => `U${String(i).padStart(2, '0')}`);
  for (const name of names) {
    now += 1000;
    await issue(batchId, [name]);
  }
  const listed = await walk(batchId, 7);
  expect([...listed].sort()).toEqual(names);
  expect(listed).not.toEqual(names);
  expect(listed).not.toEqual([...names].reverse());
  // Stable: the same walk again, in pages of another size.
  expect(await walk(batchId, 30)).toEqual(listed);
});

test.each(['ms', 's'] as const)('createdAt to the %s: one stamp per call, so a bulk call is one tie', async (precision) => {
  sb.controls.setTimestampPrecision(precision);
  const batchId = await newBatch();
  now = Date.parse('2026-11-25T10:00:05.250Z');
  const bulk = await issue(batchId, ['A', 'B', 'C']);
  expect(new Set(bulk.map((r) => r.createdAt))).toEqual(new Set([precision === 's' ? '2026-11-25T10:00:05.000Z' : '2026-11-25T10:00:05.250Z']));
  now += 400;
  const single: Rec = (await api.post(`/batches/${batchId}/recipients`, { name: 'D', email: 'd@example.com', send: true })).body;
  expect(single.createdAt).toBe(precision === 's' ? '2026-11-25T10:00:05.000Z' : '2026-11-25T10:00:05.650Z');
  // emailSentAt has the same precision; settleMail hands queued mail over now.
  now += 1234;
  sb.controls.settleMail();
  const sent = sb.controls.certificates(batchId).find((r) => r.name === 'D')!;
  expect([sent.emailStatus, sent.emailSentAt]).toEqual(['sent', precision === 's' ? '2026-11-25T10:00:06.000Z' : '2026-11-25T10:00:06.884Z']);
});

test('the Date header is the service clock (to the second, as HTTP dates are)', async () => {
  now = Date.parse('2026-11-25T11:22:33.900Z');
  const { date } = await page(await newBatch(), 5);
  expect(date).toBe('Wed, 25 Nov 2026 11:22:33 GMT');
});

test.each(['newest-first', 'oldest-first'] as const)('%s: a delete before the cursor skips an item with offset cursors, never with opaque ones', async (order) => {
  sb.controls.setRecipientOrder(order);
  for (const kind of ['opaque', 'offset'] as const) {
    sb.controls.setCursorKind(kind);
    const batchId = await newBatch();
    const recs: Rec[] = [];
    for (const name of ['P0', 'P1', 'P2', 'P3', 'P4', 'P5']) {
      now += 1000;
      recs.push(...(await issue(batchId, [name])));
    }
    const first = await page(batchId, 3);
    // Delete the first item of the first page, then follow its cursor.
    await api.delete(`/batches/${batchId}/recipients/${first.body.data[0].id}`);
    const second = await page(batchId, 3, first.body.nextCursor);
    const expected = order === 'newest-first' ? ['P2', 'P1', 'P0'] : ['P3', 'P4', 'P5'];
    const got = second.body.data.map((r: Rec) => r.name);
    if (kind === 'opaque') expect(got).toEqual(expected);
    else expect(got).toEqual(expected.slice(1)); // shifted: the first one of the page is skipped
  }
});

test('offset cursors: an insert before the cursor repeats an item (newest first)', async () => {
  sb.controls.setCursorKind('offset');
  const batchId = await newBatch();
  for (const name of ['P0', 'P1', 'P2', 'P3']) {
    now += 1000;
    await issue(batchId, [name]);
  }
  const first = await page(batchId, 2);
  now += 1000;
  await issue(batchId, ['P4']);
  const second = await page(batchId, 2, first.body.nextCursor);
  expect(second.body.data.map((r: Rec) => r.name)).toEqual(['P2', 'P1']);
});

test('cursors that expire after a time: a 400 VALIDATION_ERROR on cursor', async () => {
  sb.controls.setCursorExpiry({ afterMs: 30_000 });
  const batchId = await newBatch();
  await issue(batchId, ['A', 'B', 'C']);
  const first = await page(batchId, 1);
  now += 30_000;
  expect((await page(batchId, 1, first.body.nextCursor)).status).toBe(200);
  now += 1;
  const refused = await page(batchId, 1, first.body.nextCursor);
  expect([refused.status, refused.body.error, refused.body.detail.field]).toEqual([400, 'VALIDATION_ERROR', 'cursor']);
  expect(refused.body.message).toMatch(/expired/);
});

test('cursors that expire after N newer writes (issue, delete, email status each count per certificate)', async () => {
  sb.controls.setCursorExpiry({ afterWrites: 2 });
  const batchId = await newBatch();
  const [a] = await issue(batchId, ['A', 'B', 'C']);
  const first = await page(batchId, 1);
  await api.post(`/batches/${batchId}/recipients/${a.id}/send`); // queued: 1
  await api.delete(`/batches/${batchId}/recipients/${a.id}`); // 2
  expect((await page(batchId, 1, first.body.nextCursor)).status).toBe(200);
  await issue(batchId, ['D']); // 3
  const refused = await page(batchId, 1, first.body.nextCursor);
  expect([refused.status, refused.body.detail.field]).toEqual([400, 'cursor']);
});

test('a cursor of another kind or order is refused', async () => {
  const batchId = await newBatch();
  await issue(batchId, ['A', 'B', 'C']);
  const opaque = (await page(batchId, 1)).body.nextCursor;
  sb.controls.setCursorKind('offset');
  expect((await page(batchId, 1, opaque)).status).toBe(400);
  const offset = (await page(batchId, 1)).body.nextCursor;
  sb.controls.setRecipientOrder('undetectable');
  expect((await page(batchId, 1, offset)).status).toBe(400);
});

test('each model is a start option and a control (in-process and PUT /__sandbox/settings); bad values name the field', async () => {
  const put = (body: unknown) =>
    fetch(`${sb.url}/__sandbox/settings`, { method: 'PUT', body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const ok = await put({ recipientOrder: 'undetectable', timestampPrecision: 's', cursorKind: 'offset', cursorExpiry: { afterMs: 5000, afterWrites: 3 } });
  expect(ok.body).toMatchObject({ recipientOrder: 'undetectable', timestampPrecision: 's', cursorKind: 'offset', cursorExpiry: { afterMs: 5000, afterWrites: 3 } });
  for (const [body, field] of [
    [{ timestampPrecision: 'us' }, 'timestampPrecision'],
    [{ cursorKind: 'page' }, 'cursorKind'],
    [{ cursorExpiry: { afterMs: -1 } }, 'cursorExpiry'],
    [{ cursorExpiry: true }, 'cursorExpiry'],
    [{ recipientOrder: 'random' }, 'recipientOrder'],
  ] as const) {
    const bad = await put(body);
    expect([bad.status, bad.body.detail.field]).toEqual([400, field]);
  }
  sb.controls.reset();
  expect(sb.controls.settings()).toMatchObject({ recipientOrder: 'newest-first', timestampPrecision: 'ms', cursorKind: 'opaque', cursorExpiry: false });
  const other = await createSandbox({ rateLimit: false, seed: false, recipientOrder: 'undetectable', timestampPrecision: 's', cursorKind: 'offset', cursorExpiry: { afterWrites: 1 } });
  expect(other.controls.settings()).toMatchObject({ recipientOrder: 'undetectable', timestampPrecision: 's', cursorKind: 'offset', cursorExpiry: { afterWrites: 1 } });
  await other.close();
  await expect(createSandbox({ cursorKind: 'page' as never })).rejects.toThrow(/cursorKind/);
  await expect(createSandbox({ clock: 5 as never })).rejects.toThrow(/clock/);
  const settled = await fetch(`${sb.url}/__sandbox/mail/settle`, { method: 'POST' });
  expect(settled.status).toBe(204);
});

test('certsvc-sandbox flags for each model', () => {
  const flags = readFlags(['--recipient-order', 'undetectable', '--timestamp-precision', 's', '--cursor-kind', 'offset', '--cursor-expiry-ms', '30000', '--cursor-expiry-writes', '5']);
  expect(flags).toMatchObject({ sandbox: { recipientOrder: 'undetectable', timestampPrecision: 's', cursorKind: 'offset', cursorExpiry: { afterMs: 30000, afterWrites: 5 } } });
  expect(() => readFlags(['--cursor-expiry-ms', 'soon'])).toThrow(/--cursor-expiry-ms takes a number/);
});
