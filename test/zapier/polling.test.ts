// The polling triggers (New Certificate, Certificate Email Sent, Certificate Email Failed)
// through Zapier's appTester against the sandbox on a clock the test steps, in each list
// order: newest first out, Zapier's dedupe on `id` fires each certificate once (a model of it
// below: the poll that turns the Zap on seeds it), the position kept in the Zap's cache, the
// rows of issue 25 (a refused cursor; 150 certificates in one second before the Zap is on),
// bad input before any request, an unreadable list as an error.
import zapier from 'zapier-platform-core';
import type { Recipient } from '@certificate-service/sdk/core';
import { createSandbox, type RecipientOrder, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { App, app, caught } from './helpers';
import { POLL_LIMIT } from '../../zapier/src/lib/polling-trigger';

jest.setTimeout(30_000);

let sb: Sandbox;
let api: Api;
let now = Date.parse('2026-11-25T10:00:00.000Z');
let authData: { apiKey: string; baseUrl: string };
const appTester = zapier.createAppTester(App);
type Item = Record<string, unknown> & { id: string; recipientId: string; createdAt: string };

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, mailDelayMs: 3_600_000, clock: () => now });
  authData = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
  api = new Api(sb.baseUrl, sb.apiKey);
});
afterEach(() => {
  sb.controls.setRecipientOrder('newest-first');
  sb.controls.setCursorExpiry(false);
  sb.controls.setTimestampPrecision('ms');
});
afterAll(() => sb.close());

const KEYS = ['new_certificate', 'certificate_email_sent', 'certificate_email_failed'] as const;
const listRequests = () => sb.controls.counters().requests.byRoute['GET /batches/:id/recipients'] ?? 0;
let zapId = 1000;

/**
 * A Zap with a polling trigger: the first poll turns it on (isPopulatingDedupe: Zapier seeds
 * its dedupe with what it returns), later polls fire the ids not seen before.
 */
function zap(key: string, batchId: string) {
  const id = ++zapId;
  const seen = new Set<string>();
  let on = false;
  return async (meta: Record<string, unknown> = {}) => {
    const before = listRequests();
    const log = jest.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const items = (await appTester(app.triggers[key].operation.perform, { authData, inputData: { batch_id: batchId }, meta: { zap: { id: String(id), user: { timezone: 'UTC' } }, isPopulatingDedupe: !on, ...meta } })) as Item[];
      const fired = on ? items.filter((i) => !seen.has(i.id)) : [];
      items.forEach((i) => seen.add(i.id));
      on = true;
      return { items, fired, requests: listRequests() - before, logs: log.mock.calls.map((c) => String(c[0])) };
    } finally {
      log.mockRestore();
    }
  };
}

async function newBatch(): Promise<string> {
  return ((await appTester(app.creates.create_batch.operation.perform, { authData, inputData: { title: 'Polling', design_id: 'design_classic' } })) as { id: string }).id;
}

/** One bulk call (one createdAt), a second after the last. */
async function bulk(batchId: string, n: number, opts: { send?: boolean; bounce?: boolean; tick?: number } = {}): Promise<Recipient[]> {
  now += opts.tick ?? 1000;
  const recipients = Array.from({ length: n }, (_, i) => ({ name: `P${i}`, email: `p${now}-${i}@${opts.bounce ? 'bounce.test' : 'example.com'}` }));
  const out = (await api.post(`/batches/${batchId}/recipients/bulk`, { recipients, send: opts.send ?? false })).body.data as Recipient[];
  sb.controls.settleMail();
  return out;
}

const newestFirst = (items: Item[]) => items.every((i, n) => n === 0 || Date.parse(i.createdAt) <= Date.parse(items[n - 1].createdAt));

test('the three are polling triggers with a required batch dropdown, a sample and output fields, and no subscription', () => {
  for (const key of KEYS) {
    const op = app.triggers[key].operation;
    expect(op.type).toBe('polling');
    expect(op.performSubscribe).toBeUndefined();
    expect(op.inputFields).toEqual([expect.objectContaining({ key: 'batch_id', required: true, dynamic: 'batch_list.id.title' })]);
    expect(op.sample).toMatchObject({ id: expect.any(String), recipientId: expect.stringMatching(/^rec_/) });
  }
  expect(app.triggers.new_certificate.display.label).toBe('New Certificate');
  expect(app.triggers.certificate_email_sent.display.label).toBe('Certificate Email Sent');
  expect(app.triggers.certificate_email_failed.display.label).toBe('Certificate Email Failed');
});

describe.each<RecipientOrder>(['newest-first', 'oldest-first', 'undetectable'])('sandbox lists %s', (order) => {
  beforeEach(() => sb.controls.setRecipientOrder(order));

  test("New Certificate: newest first on every poll; with Zapier's dedupe each certificate fires once", async () => {
    const batchId = await newBatch();
    const first = [...(await bulk(batchId, 2)), ...(await bulk(batchId, 1))];
    const poll = zap('new_certificate', batchId);
    now += 5000;
    const on = await poll();
    expect(on.items.map((i) => i.recipientId).sort()).toEqual(first.map((r) => r.id).sort());
    expect(newestFirst(on.items)).toBe(true);
    expect(on.items[0]).toMatchObject({ id: first[2].id, type: 'certificate.issued', createdAt: first[2].createdAt, certificateId: first[2].certificateId });
    const more = [...(await bulk(batchId, 1)), ...(await bulk(batchId, 1))];
    now += 5000;
    const two = await poll();
    expect(two.fired.map((i) => i.recipientId)).toEqual(more.map((r) => r.id).reverse());
    expect(newestFirst(two.items)).toBe(true);
    now += 5000;
    expect((await poll()).fired).toEqual([]);
  });

  test('Email Sent and Email Failed: by emailStatus; a later send fires once', async () => {
    const batchId = await newBatch();
    const [sent, later] = await bulk(batchId, 2);
    const [failed] = await bulk(batchId, 1, { bounce: true });
    for (const r of [sent, failed]) await appTester(app.creates.send_certificate.operation.perform, { authData, inputData: { batch_id: batchId, recipient_id: r.id } });
    now += 1000;
    sb.controls.settleMail();
    const pollSent = zap('certificate_email_sent', batchId);
    const pollFailed = zap('certificate_email_failed', batchId);
    now += 1000;
    const s1 = await pollSent();
    expect(s1.items.map((i) => [i.recipientId, i.emailStatus, i.type])).toEqual([[sent.id, 'sent', 'certificate.sent']]);
    expect(s1.items[0].id).toMatch(new RegExp(`^${sent.id}:sent:`));
    const f1 = await pollFailed();
    expect(f1.items.map((i) => [i.recipientId, i.emailStatus, i.id])).toEqual([[failed.id, 'failed', `${failed.id}:failed`]]);
    // `later` is sent only now.
    await appTester(app.creates.send_certificate.operation.perform, { authData, inputData: { batch_id: batchId, recipient_id: later.id } });
    now += 1000;
    sb.controls.settleMail();
    now += 1000;
    expect((await pollSent()).fired.map((i) => i.recipientId)).toEqual([later.id]);
    expect((await pollFailed()).fired).toEqual([]);
    now += 1000;
    expect((await pollSent()).fired).toEqual([]);
  });
});

test(`the first poll of a large batch: the newest ${POLL_LIMIT}, newest first, in 1 request (newest first)`, async () => {
  const batchId = await newBatch();
  for (let i = 0; i < 25; i++) await bulk(batchId, 100);
  now += 60_000;
  const { items, requests } = await zap('new_certificate', batchId)();
  expect(items).toHaveLength(POLL_LIMIT);
  expect(requests).toBe(2); // the first page is one bulk call, one createdAt: the second shows the order
  expect(newestFirst(items)).toBe(true);
});

test("the position is kept in the Zap's cache: an oldest-first list is walked once, then a poll reads from its last page", async () => {
  sb.controls.setRecipientOrder('oldest-first');
  const batchId = await newBatch();
  for (let i = 0; i < 3; i++) await bulk(batchId, 100);
  const poll = zap('new_certificate', batchId);
  now += 60_000;
  expect((await poll()).requests).toBe(3);
  const [fresh] = await bulk(batchId, 1);
  now += 60_000;
  const next = await poll();
  expect([next.fired.map((i) => i.recipientId), next.requests]).toEqual([[fresh.id], 2]); // the last page was full: the new one is on the next
  now += 60_000;
  expect((await poll()).requests).toBe(1);
  // The editor's test step reads no position and keeps none.
  expect((await poll({ isLoadingSample: true, isPopulatingDedupe: false })).requests).toBe(4);
});

describe('the poll rows of issue 25', () => {
  test('row: a saved cursor the service no longer accepts (400): the poll reads from the top and says so, every time, instead of failing', async () => {
    sb.controls.setRecipientOrder('oldest-first');
    sb.controls.setCursorExpiry({ afterMs: 30_000 });
    const batchId = await newBatch();
    for (let i = 0; i < 3; i++) await bulk(batchId, 100);
    const poll = zap('new_certificate', batchId);
    now += 60_000;
    await poll();
    for (let i = 0; i < 3; i++) {
      const [fresh] = await bulk(batchId, 1);
      now += 60_000;
      const out = await poll();
      expect(out.fired.map((r) => r.recipientId)).toEqual([fresh.id]);
      expect(out.logs.join('\n')).toMatch(/refused a saved list cursor \(400 VALIDATION_ERROR.*expired.*reading the list again from the top/);
    }
  });

  test('row: New Certificate, more than 100 certificates in one second before the Zap is on: the first new certificate fires once', async () => {
    for (const order of ['oldest-first', 'newest-first', 'undetectable'] as const) {
      sb.controls.setRecipientOrder(order);
      sb.controls.setTimestampPrecision('s');
      const batchId = await newBatch();
      await bulk(batchId, 100);
      await bulk(batchId, 50, { tick: 0 });
      const poll = zap('new_certificate', batchId);
      now += 60_000;
      const on = await poll();
      expect(newestFirst(on.items)).toBe(true);
      const [fresh] = await bulk(batchId, 1);
      now += 60_000;
      expect((await poll()).fired.map((i) => i.recipientId)).toEqual([fresh.id]);
      now += 60_000;
      expect((await poll()).fired).toEqual([]);
    }
  });
});

test('turning the Zap on again starts over with Zapier: the stored position is not read', async () => {
  const batchId = await newBatch();
  await bulk(batchId, 3);
  const poll = zap('new_certificate', batchId);
  now += 5000;
  await poll();
  await bulk(batchId, 2);
  now += 5000;
  const again = await poll({ isPopulatingDedupe: true });
  expect(again.items).toHaveLength(5);
});

test('no batch: a halt naming the field, before any request', async () => {
  const before = sb.controls.counters().requests.total;
  for (const key of KEYS) {
    const error = await caught(appTester(app.triggers[key].operation.perform, { authData, inputData: {} }));
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(/^Invalid "batchId": choose the batch .* Check the Batch field\.$/);
  }
  expect(sb.controls.counters().requests.total).toBe(before);
});

test('an unreadable list is an error, not "no new certificates"', async () => {
  const batchId = await newBatch();
  await bulk(batchId, 1);
  sb.controls.setListShape('html_page');
  try {
    const error = await caught(appTester(app.triggers.new_certificate.operation.perform, { authData, inputData: { batch_id: batchId } }));
    expect(error.message).toMatch(/UNEXPECTED_RESPONSE|HTML page/);
  } finally {
    sb.controls.setListShape('default');
  }
});
