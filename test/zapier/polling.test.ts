// The polling triggers (New Certificate, Certificate Email Sent, Certificate Email Failed)
// with appTester against the sandbox, served newest first and oldest first: newest first
// out, Zapier's dedupe on `id` sees each certificate once, a bounded first poll, the number
// of list requests per poll, bad input before any request, an unreadable list as an error.
import zapier from 'zapier-platform-core';
import type { Recipient } from '@certificate-service/sdk/core';
import { createSandbox, type RecipientOrder, type Sandbox } from '@certificate-service/sandbox';
import { App, app, caught } from './helpers';
import { POLL_LIMIT } from '../../zapier/src/lib/polling-trigger';

jest.setTimeout(30_000);

let sb: Sandbox;
let authData: { apiKey: string; baseUrl: string };
const appTester = zapier.createAppTester(App);
type Item = Record<string, unknown> & { id: string; recipientId: string };

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, mailDelayMs: 5 });
  authData = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
afterEach(() => sb.controls.setRecipientOrder('newest-first'));
afterAll(() => sb.close());

const KEYS = ['new_certificate', 'certificate_email_sent', 'certificate_email_failed'] as const;
const listRequests = () => sb.controls.counters().requests.byRoute['GET /batches/:id/recipients'] ?? 0;

/** One poll as Zapier makes it; returns the items and the list requests it made. */
async function poll(key: string, batchId: string, meta: Record<string, unknown> = {}) {
  const before = listRequests();
  const items = (await appTester(app.triggers[key].operation.perform, { authData, inputData: { batch_id: batchId }, meta })) as Item[];
  return { items, requests: listRequests() - before };
}

/** Zapier's dedupe: the ids it has seen; a poll's new items are those not seen yet. */
function dedupe() {
  const seen = new Set<string>();
  return (items: Item[]) => items.filter((i) => (seen.has(i.id) ? false : (seen.add(i.id), true)));
}

async function newBatch(): Promise<string> {
  return ((await appTester(app.creates.create_batch.operation.perform, { authData, inputData: { title: 'Polling', design_id: 'design_classic' } })) as { id: string }).id;
}

async function issue(batchId: string, emails: string[], send = false): Promise<Recipient[]> {
  const out: Recipient[] = [];
  for (const email of emails) {
    out.push((await appTester(app.creates.issue_certificate.operation.perform, { authData, inputData: { batch_id: batchId, name: email, email, send } })) as Recipient);
  }
  return out;
}

async function mailSettled(batchId: string) {
  for (let i = 0; i < 100; i++) {
    if (!sb.controls.certificates(batchId).some((r) => r.emailStatus === 'queued')) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('mail did not settle');
}

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

describe.each<RecipientOrder>(['newest-first', 'oldest-first'])('sandbox lists %s', (order) => {
  beforeEach(() => sb.controls.setRecipientOrder(order));

  test('New Certificate: newest first; with Zapier\'s dedupe each certificate once', async () => {
    const batchId = await newBatch();
    const first = await issue(batchId, ['a@example.com', 'b@example.com', 'c@example.com']);
    const seen = dedupe();
    const one = await poll('new_certificate', batchId);
    expect(one.items.map((i) => i.recipientId)).toEqual(first.map((r) => r.id).reverse());
    expect(one.items[0]).toMatchObject({ id: first[2].id, type: 'certificate.issued', createdAt: first[2].createdAt, certificateId: first[2].certificateId });
    expect(seen(one.items)).toHaveLength(3); // the first poll seeds Zapier's dedupe
    const more = await issue(batchId, ['d@example.com', 'e@example.com']);
    const two = await poll('new_certificate', batchId);
    expect(seen(two.items).map((i) => i.recipientId)).toEqual(more.map((r) => r.id).reverse());
    expect(seen((await poll('new_certificate', batchId)).items)).toEqual([]);
    expect(two.requests).toBe(1);
  });

  test('Email Sent and Email Failed: by emailStatus; a later send triggers once', async () => {
    const batchId = await newBatch();
    const [sent, failed, later] = await issue(batchId, ['ok@example.com', 'no@bounce.test', 'later@example.com'], false);
    await appTester(app.creates.send_certificate.operation.perform, { authData, inputData: { batch_id: batchId, recipient_id: sent.id } });
    await appTester(app.creates.send_certificate.operation.perform, { authData, inputData: { batch_id: batchId, recipient_id: failed.id } });
    await mailSettled(batchId);
    const seenSent = dedupe();
    const seenFailed = dedupe();
    const s1 = await poll('certificate_email_sent', batchId);
    expect(s1.items.map((i) => [i.recipientId, i.emailStatus, i.type])).toEqual([[sent.id, 'sent', 'certificate.sent']]);
    expect(s1.items[0].id).toMatch(new RegExp(`^${sent.id}:sent:`));
    seenSent(s1.items);
    const f1 = await poll('certificate_email_failed', batchId);
    expect(f1.items.map((i) => [i.recipientId, i.emailStatus, i.id])).toEqual([[failed.id, 'failed', `${failed.id}:failed`]]);
    seenFailed(f1.items);
    // `later` was issued after `sent` and is sent only now.
    await appTester(app.creates.send_certificate.operation.perform, { authData, inputData: { batch_id: batchId, recipient_id: later.id } });
    await mailSettled(batchId);
    expect(seenSent((await poll('certificate_email_sent', batchId)).items).map((i) => i.recipientId)).toEqual([later.id]);
    expect(seenFailed((await poll('certificate_email_failed', batchId)).items)).toEqual([]);
    expect(seenSent((await poll('certificate_email_sent', batchId)).items)).toEqual([]);
  });
});

test(`a bounded first poll: the newest ${POLL_LIMIT} of a large batch, in 1 request (newest first)`, async () => {
  const batchId = await newBatch();
  const bulk = (n: number, from: number) =>
    appTester(app.creates.issue_certificates_bulk.operation.perform, {
      authData,
      inputData: { batch_id: batchId, recipients: Array.from({ length: n }, (_, i) => ({ name: `P${from + i}`, email: `p${from + i}@example.com` })) },
    });
  await bulk(100, 0);
  await bulk(100, 100);
  await bulk(50, 200);
  const { items, requests } = await poll('new_certificate', batchId);
  expect(items).toHaveLength(POLL_LIMIT);
  expect(requests).toBe(1);
  // Newest first: the last bulk call's certificates lead.
  expect(items.slice(0, 50).every((i) => Number(String(i.name).slice(1)) >= 200)).toBe(true);
});

test('oldest first: the Zap keeps the last page cursor in its cache, so later polls read 1 page (the test step walks the list)', async () => {
  sb.controls.setRecipientOrder('oldest-first');
  const batchId = await newBatch();
  for (let i = 0; i < 3; i++) {
    await appTester(app.creates.issue_certificates_bulk.operation.perform, {
      authData,
      inputData: { batch_id: batchId, recipients: Array.from({ length: 100 }, (_, j) => ({ name: `Q${i * 100 + j}`, email: `q${i * 100 + j}@example.com` })) },
    });
  }
  const meta = { zap: { id: 4242 } };
  expect((await poll('new_certificate', batchId, { isLoadingSample: true })).requests).toBe(3);
  const first = await poll('new_certificate', batchId, meta);
  expect([first.items.length, first.requests]).toEqual([POLL_LIMIT, 3]);
  const [fresh] = await issue(batchId, ['new@example.com']);
  const next = await poll('new_certificate', batchId, meta);
  expect(next.items.map((i) => i.recipientId)).toEqual([fresh.id]);
  expect(next.requests).toBe(2); // the last (full) page again, then the new one
  expect((await poll('new_certificate', batchId, meta)).requests).toBe(1);
});

test('no batch: a halt naming the field, before any request', async () => {
  const before = sb.controls.counters().requests.total;
  for (const key of KEYS) {
    const error = await caught(appTester(app.triggers[key].operation.perform, { authData, inputData: {} }));
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(/batchId/);
  }
  expect(sb.controls.counters().requests.total).toBe(before);
});

test('an unreadable list is an error, not "no new certificates"', async () => {
  const batchId = await newBatch();
  await issue(batchId, ['x@example.com']);
  sb.controls.setListShape('html_page');
  try {
    const error = await caught(poll('new_certificate', batchId));
    expect(error.message).toMatch(/UNEXPECTED_RESPONSE|HTML page/);
  } finally {
    sb.controls.setListShape('default');
  }
});
