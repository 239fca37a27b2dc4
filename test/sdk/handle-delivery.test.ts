// The one delivery pipeline every host uses: verify, read, filter, claim, in that order, with one
// claim (a certificate event's occurrence; test/sdk/claim-occurrence.test.ts has the keys); and the store's state machine
// (free → pending → done, or free again) that keeps a delivery that did not run from being
// answered "duplicate".
import {
  acceptOnly,
  checkDelivery,
  DEFAULT_PENDING_MS,
  handleDelivery,
  memoryStore,
  signPayload,
  verifyDelivery,
  WebhookVerificationError,
  type DeliveryStore,
} from '@certificate-service/sdk/core';
import { recipient } from './helpers';

const SECRET = 'wh_sec_pipeline_secret';
const NOW = 1_800_000_000;
const event = { id: 'whe_1', type: 'certificate.issued', createdAt: '2027-01-15T08:00:00.000Z', data: recipient(1, { batchId: 'batch_a' }) };
const body = JSON.stringify(event);
const signed = (extra: Record<string, string> = { 'X-Service-Delivery': 'whd_1' }, secret = SECRET, raw = body) => ({ ...extra, ...signPayload(secret, raw, NOW) });

/** A store that records what it was asked. */
function recording(inner: DeliveryStore = memoryStore()): DeliveryStore & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    claim: (id) => (calls.push(`claim ${id}`), inner.claim(id)),
    settle: (id, ok) => (calls.push(`settle ${id} ${ok}`), inner.settle(id, ok)),
  };
}
const run = (headers: Record<string, string>, store: DeliveryStore = recording(), filter = {}, raw = body) =>
  handleDelivery(raw, headers, { secrets: SECRET, store, accept: acceptOnly(filter), now: NOW * 1000 });

test.each([
  ['signed, wanted, first time', signed(), {}, 'accepted', ['claim rec_1']],
  ['forged: rejected before anything is remembered', signed(undefined, 'wh_sec_other'), {}, 'rejected', []],
  ['unsigned: rejected', { 'X-Service-Delivery': 'whd_1' }, {}, 'rejected', []],
  ['another event type: filtered, not remembered', signed(), { events: ['certificate.sent'] }, 'filtered', []],
  ['another batch: filtered, not remembered', signed(), { batchId: 'batch_b' }, 'filtered', []],
  ['the chosen batch and type: accepted', signed(), { events: ['certificate.issued'], batchId: 'batch_a' }, 'accepted', ['claim rec_1']],
  ['no X-Service-Delivery: a certificate event claims its occurrence all the same', signed({}), {}, 'accepted', ['claim rec_1']],
])('%s', async (_name, headers, filter, outcome, calls) => {
  const store = recording();
  const r = await run(headers, store, filter);
  expect(r.outcome).toBe(outcome);
  expect(store.calls).toEqual(calls);
});

describe('pending, claimed, released', () => {
  test('a copy while the first attempt is pending: "pending" (503 with Retry-After), and nothing is claimed again', async () => {
    const store = recording();
    const first = await run(signed(), store);
    expect(first.outcome).toBe('accepted');
    expect((await run(signed(), store)).outcome).toBe('pending');
    expect((await run(signed(), store)).outcome).toBe('pending');
    expect(store.calls).toEqual(['claim rec_1', 'claim rec_1', 'claim rec_1']);
  });

  test('the host answered 2xx: claimed, so every later copy is a duplicate', async () => {
    const store = recording();
    const first = await run(signed(), store);
    if (first.outcome !== 'accepted') throw new Error(first.outcome);
    await first.settle(true);
    expect(await run(signed(), store)).toMatchObject({ outcome: 'duplicate', deliveryId: 'whd_1' });
    // Another delivery of the same occurrence is a duplicate too; another certificate is not.
    expect((await run(signed({ 'X-Service-Delivery': 'whd_2' }), store)).outcome).toBe('duplicate');
    const other = JSON.stringify({ ...event, data: { ...event.data, id: 'rec_2' } });
    expect((await run(signed({ 'X-Service-Delivery': 'whd_3' }, SECRET, other), store, {}, other)).outcome).toBe('accepted');
  });

  test('the host answered otherwise (the execution could not be stored): released, so the retry runs, once', async () => {
    const store = recording();
    const first = await run(signed(), store);
    if (first.outcome !== 'accepted') throw new Error(first.outcome);
    await first.settle(false);
    const retry = await run(signed(), store);
    expect(retry.outcome).toBe('accepted');
    if (retry.outcome === 'accepted') await retry.settle(true);
    expect((await run(signed(), store)).outcome).toBe('duplicate');
  });

  test('only the first settle counts (a host may end its answer twice)', async () => {
    const store = recording();
    const first = await run(signed(), store);
    if (first.outcome !== 'accepted') throw new Error(first.outcome);
    await first.settle(false);
    await first.settle(true);
    expect(store.calls.filter((c) => c.startsWith('settle'))).toEqual(['settle rec_1 false']);
    expect((await run(signed(), store)).outcome).toBe('accepted');
  });

  test('without a store: accepted every time, settle does nothing', async () => {
    const r = await handleDelivery(body, signed(), { secrets: SECRET, now: NOW * 1000 });
    expect(r.outcome).toBe('accepted');
    if (r.outcome === 'accepted') await expect(r.settle(true)).resolves.toBeUndefined();
    expect((await handleDelivery(body, signed(), { secrets: SECRET, now: NOW * 1000 })).outcome).toBe('accepted');
  });

  test('an async store (a shared cache) is awaited', async () => {
    const states = new Map<string, 'pending' | 'done'>();
    const store: DeliveryStore = {
      claim: async (id) => (states.has(id) ? states.get(id)! : (states.set(id, 'pending'), 'taken')),
      settle: async (id, ok) => void (ok ? states.set(id, 'done') : states.delete(id)),
    };
    const first = await handleDelivery(body, signed(), { secrets: SECRET, store, now: NOW * 1000 });
    expect((await handleDelivery(body, signed(), { secrets: SECRET, store, now: NOW * 1000 })).outcome).toBe('pending');
    if (first.outcome === 'accepted') await first.settle(true);
    expect((await handleDelivery(body, signed(), { secrets: SECRET, store, now: NOW * 1000 })).outcome).toBe('duplicate');
  });
});

describe('memoryStore: the state machine', () => {
  const clock = () => {
    let t = 1_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  test('taken → pending for copies → done after settle(true); done stays done after a late failure', () => {
    const store = memoryStore();
    expect(store.claim('a')).toBe('taken');
    expect(store.claim('a')).toBe('pending');
    store.settle('a', true);
    expect(store.claim('a')).toBe('done');
    store.settle('a', false); // a later attempt's failure does not undo a delivery that ran
    expect(store.claim('a')).toBe('done');
  });

  test('settle(false) releases: the next claim takes it', () => {
    const store = memoryStore();
    expect(store.claim('a')).toBe('taken');
    store.settle('a', false);
    expect(store.claim('a')).toBe('taken');
  });

  test('an attempt that never settles (the sender went away and no answer was seen): released after pendingMs', () => {
    const c = clock();
    const store = memoryStore(10, { now: c.now, pendingMs: 60_000 });
    expect(store.claim('a')).toBe('taken');
    c.advance(59_999);
    expect(store.claim('a')).toBe('pending');
    c.advance(1);
    expect(store.claim('a')).toBe('taken');
    // the first attempt's answer arrives at last: done, whatever happened meanwhile
    store.settle('a', true);
    expect(store.claim('a')).toBe('done');
  });

  test('the default lease is 5 minutes', () => {
    const c = clock();
    const store = memoryStore(10, { now: c.now });
    expect(DEFAULT_PENDING_MS).toBe(300_000);
    store.claim('a');
    c.advance(299_999);
    expect(store.claim('a')).toBe('pending');
    c.advance(1);
    expect(store.claim('a')).toBe('taken');
  });

  test('bounded: the least recently seen id is dropped first', () => {
    const store = memoryStore(2);
    for (const id of ['a', 'b']) {
      store.claim(id);
      store.settle(id, true);
    }
    expect(store.claim('a')).toBe('done'); // a is now the most recent
    store.claim('c');
    expect(store.claim('b')).toBe('taken'); // b was dropped when c came; taking it again drops a
    expect(store.claim('a')).toBe('taken');
  });

  test.each([0, NaN, -1, 1.5, '10' as unknown as number])('maxSize %p is refused', (size) => {
    expect(() => memoryStore(size)).toThrow(/maxSize must be a whole number of at least 1/);
  });

  test.each([0, -5, NaN])('pendingMs %p is refused', (pendingMs) => {
    expect(() => memoryStore(10, { pendingMs })).toThrow(/pendingMs must be a positive number/);
  });
});

describe('a genuine envelope that is not a certificate event', () => {
  const envelope = (data: unknown, type = 'certificate.issued') => JSON.stringify({ id: 'whe_test', type, createdAt: '2027-01-15T08:00:00.000Z', data });

  test.each([
    ['data is []', [], 'data is an array, not a recipient'],
    ['data is {}', {}, 'data has no recipient id'],
    ['data is null', null, 'data is null, not a recipient'],
    ['data is a text', 'sample', 'data is string, not a recipient'],
    ['data has a number id', { id: 7, name: 'x' }, 'data has no recipient id'],
    ['data has an empty id', { id: ' ' }, 'data has no recipient id'],
    ['no data', undefined, 'data is undefined, not a recipient'],
  ])('%s: notCertificate (answered 2xx, never run, nothing claimed), whatever the filters', async (_name, data, why) => {
    const raw = envelope(data);
    const store = recording();
    const r = await run(signed(undefined, SECRET, raw), store, { batchId: 'batch_a', events: ['certificate.issued'] }, raw);
    expect(r).toEqual({ outcome: 'notCertificate', why, deliveryId: 'whd_1', envelope: { id: 'whe_test', type: 'certificate.issued', createdAt: '2027-01-15T08:00:00.000Z', data } });
    expect(store.calls).toEqual([]);
  });

  test('a type of its own (a test ping, a type from a later API version): notCertificate, keyed by the envelope id without the header', async () => {
    const raw = envelope(recipient(1), 'webhook.test');
    const r = await run(signed({}, SECRET, raw), recording(), {}, raw);
    expect(r).toMatchObject({ outcome: 'notCertificate', why: 'type "webhook.test" is not a certificate event', deliveryId: 'whe_test' });
  });

  test('checkDelivery refuses it as NOT_CERTIFICATE_EVENT, saying to answer 2xx; verifyDelivery throws it', () => {
    const raw = envelope([]);
    const check = checkDelivery(raw, signed(undefined, SECRET, raw), SECRET, { now: NOW * 1000 });
    expect(check).toMatchObject({ ok: false, reason: 'NOT_CERTIFICATE_EVENT' });
    if (!check.ok) expect(check.message).toMatch(/Answer it 2xx.*\(data is an array, not a recipient\)/);
    const thrown = (() => {
      try {
        verifyDelivery(raw, signed(undefined, SECRET, raw), SECRET, { now: NOW * 1000 });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(WebhookVerificationError);
    expect((thrown as WebhookVerificationError).reason).toBe('NOT_CERTIFICATE_EVENT');
  });

  test('a signed body that is no envelope (no id and type) is still rejected as INVALID_PAYLOAD', async () => {
    for (const raw of ['{"hello":"world"}', '[]', '"text"', '{"id":"whe_1"}']) {
      const r = await run(signed(undefined, SECRET, raw), recording(), {}, raw);
      expect(r).toMatchObject({ outcome: 'rejected', reason: 'INVALID_PAYLOAD' });
    }
  });
});

test('a rejection says why and keeps the delivery id for the log', async () => {
  const r = await handleDelivery('{}', { 'X-Service-Delivery': 'whd_9' }, { secrets: SECRET, now: NOW * 1000 });
  expect(r).toMatchObject({ outcome: 'rejected', reason: 'MISSING_SIGNATURE', deliveryId: 'whd_9' });
});
