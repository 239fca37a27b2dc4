// The one delivery pipeline every host uses: verify, filter, deduplicate, in that order,
// with one idempotency key (X-Service-Delivery, else the event id).
import { acceptOnly, handleDelivery, memoryStore, signPayload, type DeliveryStore } from '@certificate-service/sdk/core';
import { recipient } from './helpers';

const SECRET = 'wh_sec_pipeline_secret';
const NOW = 1_800_000_000;
const event = { id: 'whe_1', type: 'certificate.issued', createdAt: '2027-01-15T08:00:00.000Z', data: recipient(1, { batchId: 'batch_a' }) };
const body = JSON.stringify(event);
const signed = (extra: Record<string, string> = { 'X-Service-Delivery': 'whd_1' }, secret = SECRET) => ({ ...extra, ...signPayload(secret, body, NOW) });

/** A store that records what it was asked. */
function recording(): DeliveryStore & { claims: string[] } {
  const inner = memoryStore();
  const claims: string[] = [];
  return { claims, claim: (id) => (claims.push(id), inner.claim(id)) };
}
const run = (headers: Record<string, string>, store = recording(), filter = {}) =>
  handleDelivery(body, headers, { secrets: SECRET, store, accept: acceptOnly(filter), now: NOW * 1000 }).then((r) => ({ r, store }));

test.each([
  ['signed, wanted, first time', signed(), {}, 'accepted', ['whd_1']],
  ['forged: rejected before anything is remembered', signed(undefined, 'wh_sec_other'), {}, 'rejected', []],
  ['unsigned: rejected', { 'X-Service-Delivery': 'whd_1' }, {}, 'rejected', []],
  ['another event type: filtered, not remembered', signed(), { events: ['certificate.sent'] }, 'filtered', []],
  ['another batch: filtered, not remembered', signed(), { batchId: 'batch_b' }, 'filtered', []],
  ['the chosen batch and type: accepted', signed(), { events: ['certificate.issued'], batchId: 'batch_a' }, 'accepted', ['whd_1']],
  ['no X-Service-Delivery: the event id is the key', signed({}), {}, 'accepted', ['whe_1']],
])('%s', async (_name, headers, filter, outcome, claims) => {
  const { r, store } = await run(headers, recording(), filter);
  expect(r.outcome).toBe(outcome);
  expect(store.claims).toEqual(claims);
});

test('the same delivery id again is a duplicate; another id is not', async () => {
  const store = recording();
  expect((await run(signed(), store)).r.outcome).toBe('accepted');
  expect((await run(signed(), store)).r).toMatchObject({ outcome: 'duplicate', deliveryId: 'whd_1' });
  expect((await run(signed({ 'X-Service-Delivery': 'whd_2' }), store)).r.outcome).toBe('accepted');
});

test('an async store (a shared cache) is awaited', async () => {
  const seen = new Set<string>();
  const store: DeliveryStore = { claim: async (id) => (seen.has(id) ? false : (seen.add(id), true)) };
  expect((await handleDelivery(body, signed(), { secrets: SECRET, store, now: NOW * 1000 })).outcome).toBe('accepted');
  expect((await handleDelivery(body, signed(), { secrets: SECRET, store, now: NOW * 1000 })).outcome).toBe('duplicate');
});

test('a rejection says why and keeps the delivery id for the log', async () => {
  const r = await handleDelivery('{}', { 'X-Service-Delivery': 'whd_9' }, { secrets: SECRET, now: NOW * 1000 });
  expect(r).toMatchObject({ outcome: 'rejected', reason: 'MISSING_SIGNATURE', deliveryId: 'whd_9' });
});
