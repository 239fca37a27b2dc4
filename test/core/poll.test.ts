// pollCertificates / pollActiveBatches (shared/sdk/src/client/poll.ts): new certificates newest
// first, in both list orders, across restarts (the state through JSON), with ties in
// createdAt, status changes, and the number of list requests each poll makes.
import { CertificateServiceError, type PollEvent, type PollState } from '@certificate-service/sdk/core';
import { listServer, type Order } from './poll-list';

const ORDERS: Order[] = ['newest-first', 'oldest-first'];
/** What a host does between polls: store the state as JSON (n8n static data, a restart). */
const saved = (state: PollState): PollState => JSON.parse(JSON.stringify(state));
const names = (list: { id: string }[]) => list.map((r) => r.id);

async function poll(s: ReturnType<typeof listServer>, state: PollState | undefined, event: PollEvent = 'issued', firstPoll?: number) {
  const result = await s.client.pollCertificates({ batchId: 'batch_1', event, state: state && saved(state), firstPoll });
  return { ...result, made: s.take() };
}

describe.each(ORDERS)('list served %s', (order) => {
  test('first poll emits nothing and sets the mark; then each new certificate once, newest first', async () => {
    const s = listServer(order);
    s.issue(5);
    const first = await poll(s, undefined);
    expect(first.certificates).toEqual([]);
    expect(first.state.mark).toBe(s.rows[4].r.createdAt);
    expect(first.state.order).toBe(order);
    const ids = s.issue(3);
    const second = await poll(s, first.state);
    expect(names(second.certificates)).toEqual([...ids].reverse());
    const third = await poll(s, second.state);
    expect(third.certificates).toEqual([]);
    // A restart: the saved state alone (JSON) carries on; nothing replays.
    const after = s.issue(2);
    expect(names((await poll(s, saved(third.state))).certificates)).toEqual([...after].reverse());
  });

  test('first poll with firstPoll N returns the newest N, newest first', async () => {
    const s = listServer(order);
    const ids = s.issue(130);
    const first = await poll(s, undefined, 'issued', 3);
    expect(names(first.certificates)).toEqual(ids.slice(-3).reverse());
    expect(first.made).toBe(order === 'newest-first' ? 1 : 2);
  });

  test('an empty batch: the first poll sets no mark; the first certificates after it are new', async () => {
    const s = listServer(order);
    const first = await poll(s, undefined);
    expect([first.certificates, first.state.mark]).toEqual([[], undefined]);
    const ids = s.issue(2);
    expect(names((await poll(s, first.state)).certificates)).toEqual([...ids].reverse());
  });

  test('ties in createdAt (one bulk call of 150): each certificate once, across pages', async () => {
    const s = listServer(order);
    s.issue(2);
    const base = await poll(s, undefined);
    const bulk = s.issue(150, { tie: true });
    const got = await poll(s, base.state);
    expect(new Set(names(got.certificates))).toEqual(new Set(bulk));
    expect(got.certificates).toHaveLength(150);
    // One more at the very same instant as the mark (the bulk call was still committing): only that one.
    const last = s.rows[s.rows.length - 1];
    s.rows.push({ seq: last.seq + 1, r: { ...last.r, id: 'rec_tie', createdAt: got.state.mark! } });
    const next = await poll(s, got.state);
    expect(names(next.certificates)).toEqual(['rec_tie']);
    const more = s.issue(2);
    const after = await poll(s, next.state);
    expect(names(after.certificates)).toEqual([...more].reverse());
    expect((await poll(s, after.state)).certificates).toEqual([]);
  });
});

describe('requests per poll (pages read only as needed)', () => {
  // [order, existing, new, requests on the first poll, requests on the next]
  test.each<[Order, number, number, number, number]>([
    ['newest-first', 250, 0, 1, 1],
    ['newest-first', 250, 5, 1, 1],
    ['newest-first', 250, 99, 1, 1],
    ['newest-first', 250, 100, 1, 2], // the 100 new fill page 1; page 2 reaches the mark
    ['newest-first', 250, 120, 1, 2],
    ['newest-first', 2500, 5, 1, 1], // the batch's size does not matter
    ['oldest-first', 250, 0, 3, 1], // the last page read is read again
    ['oldest-first', 250, 5, 3, 1],
    ['oldest-first', 250, 50, 3, 1], // the last page (50 + 50) is full, no next yet
    ['oldest-first', 250, 51, 3, 2],
    ['oldest-first', 250, 120, 3, 2],
    ['oldest-first', 2550, 5, 26, 1], // only the first poll walks the list, to find its end
  ])('%s, %i in the batch, %i new: %i then %i requests', async (order, existing, fresh, firstRequests, nextRequests) => {
    const s = listServer(order);
    s.issue(existing);
    const first = await poll(s, undefined);
    expect(first.made).toBe(firstRequests);
    expect(first.requests).toBe(firstRequests);
    const ids = s.issue(fresh);
    const next = await poll(s, first.state);
    expect(next.made).toBe(nextRequests);
    expect(names(next.certificates)).toEqual([...ids].reverse());
    // And a poll with nothing new after it: one request in both orders.
    expect((await poll(s, next.state)).made).toBe(1);
  });
});

describe.each(ORDERS)('email events (%s)', (order) => {
  test.each<['sent' | 'failed']>([['sent'], ['failed']])('%s: a certificate that becomes %s later is emitted once', async (event) => {
    const s = listServer(order);
    const [a, b] = s.issue(2);
    const first = await poll(s, undefined, event);
    expect(first.certificates).toEqual([]);
    s.setStatus(b, event);
    const second = await poll(s, first.state, event);
    expect(names(second.certificates)).toEqual([b]);
    // `a` was issued before `b` and reaches the status after it: still seen (within the overlap page).
    s.setStatus(a, event);
    const third = await poll(s, second.state, event);
    expect(names(third.certificates)).toEqual([a]);
    expect(third.made).toBe(1);
    expect((await poll(s, third.state, event)).certificates).toEqual([]);
    // The other email event does not see it.
    const other = event === 'sent' ? 'failed' : 'sent';
    const otherFirst = await poll(s, undefined, other);
    expect(otherFirst.certificates).toEqual([]);
  });

  test('a late send is seen within the overlap page; a deletion moving an older one into it is not a send', async () => {
    const s = listServer(order);
    const ids = s.issue(150, { emailStatus: 'sent' });
    const first = await poll(s, undefined, 'sent');
    // Newest first the overlap is the top 100; oldest first it is the last page (the newest 50).
    const inside = order === 'newest-first' ? ids[60] : ids[120];
    s.setStatus(inside, 'not_sent');
    const after = await poll(s, first.state, 'sent');
    expect(after.certificates).toEqual([]);
    s.setStatus(inside, 'sent');
    expect(names((await poll(s, after.state, 'sent')).certificates)).toEqual([inside]);
    // One of the newest is deleted: the list moves up by one.
    s.rows.splice(s.rows.length - 1, 1);
    const next = await poll(s, (await poll(s, after.state, 'sent')).state, 'sent');
    expect(next.certificates).toEqual([]);
  });

  test('the list request carries the emailStatus filter of the event, and none for issued', async () => {
    const s = listServer(order);
    s.issue(1);
    await s.client.pollCertificates({ batchId: 'batch_1', event: 'sent' });
    await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued' });
    const queries = s.requests.map((r) => new URL(r.url).searchParams);
    expect(queries.map((q) => q.get('emailStatus'))).toEqual(['sent', null]);
    expect(queries.map((q) => q.get('limit'))).toEqual(['100', '100']);
  });
});

describe('an unreadable list is an error, never "no new certificates"', () => {
  const cases: [string, (body: Record<string, unknown>) => unknown, RegExp][] = [
    ['an HTML page', () => '<html><body>Sign in</body></html>', /HTML page/],
    ['an unknown wrapper', (b) => ({ entries: b.data }), /"entries"/],
    ['an item without createdAt', (b) => ({ ...b, data: (b.data as object[]).map((r) => ({ ...r, createdAt: undefined })) }), /readable "createdAt"/],
    ['a list in neither order', (b) => {
      const data = b.data as { createdAt: string }[];
      return { ...b, data: [data[1], data[0], data[2]] };
    }, /neither newest-first nor oldest-first/],
  ];
  test.each(cases)('%s', async (_name, broken, message) => {
    const s = listServer('newest-first');
    s.issue(3);
    const first = await poll(s, undefined);
    s.issue(3);
    s.breakNext(broken);
    const error = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued', state: first.state }).catch((e) => e);
    expect(error).toBeInstanceOf(CertificateServiceError);
    expect((error as CertificateServiceError).code).toBe('UNEXPECTED_RESPONSE');
    expect((error as CertificateServiceError).message).toMatch(message);
  });

  test('oldest first: a full page with no cursor and no sign that it is the last', async () => {
    const s = listServer('oldest-first');
    s.issue(250);
    s.breakNext((b) => ({ data: b.data }));
    const error = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued' }).catch((e) => e);
    expect((error as CertificateServiceError).code).toBe('UNEXPECTED_RESPONSE');
  });
});

describe('bad input: an error naming the field, before any request', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['no batch', { batchId: ' ', event: 'issued' }, 'batchId'],
    ['an unknown event', { batchId: 'batch_1', event: 'viewed' }, 'event'],
    ['a negative firstPoll', { batchId: 'batch_1', event: 'issued', firstPoll: -1 }, 'firstPoll'],
    ['a page size of 500', { batchId: 'batch_1', event: 'issued', pageSize: 500 }, 'pageSize'],
    ['a damaged state', { batchId: 'batch_1', event: 'issued', state: { known: 'rec_1' } }, 'state.known'],
    ['a state with a bad mark', { batchId: 'batch_1', event: 'issued', state: { known: [], mark: 'yesterday' } }, 'state.mark'],
    ['a state with a bad floor', { batchId: 'batch_1', event: 'sent', state: { known: [], floor: 7 } }, 'state.floor'],
    ['a state with an unknown order', { batchId: 'batch_1', event: 'issued', state: { known: [], order: 'random' } }, 'state.order'],
  ])('%s', async (_name, options, field) => {
    const s = listServer('newest-first');
    const error = await s.client.pollCertificates(options as never).catch((e) => e);
    expect([(error as CertificateServiceError).code, (error as CertificateServiceError).field]).toEqual(['VALIDATION_ERROR', field]);
    expect(s.requests).toHaveLength(0);
  });
});

describe.each(ORDERS)('all active batches (%s)', (order) => {
  test('one state per batch; a batch created after the first poll: all its certificates are new', async () => {
    const s = listServer(order);
    s.batches.push('batch_2');
    s.issue(3);
    s.issue(2, { batchId: 'batch_2' });
    const first = await s.client.pollActiveBatches({ event: 'issued' });
    expect(first.certificates).toEqual([]);
    expect(Object.keys(first.states).sort()).toEqual(['batch_1', 'batch_2']);
    expect(first.requests).toBe(3); // the batch list + one page each
    s.batches.push('batch_3');
    const a = s.issue(1, { batchId: 'batch_2' });
    const b = s.issue(2, { batchId: 'batch_3' });
    const c = s.issue(1);
    const next = await s.client.pollActiveBatches({ event: 'issued', states: JSON.parse(JSON.stringify(first.states)) });
    // Newest first across batches.
    expect(names(next.certificates)).toEqual([...c, ...[...b].reverse(), ...a]);
    expect(next.requests).toBe(4);
    const again = await s.client.pollActiveBatches({ event: 'issued', states: next.states });
    expect(again.certificates).toEqual([]);
  });

  test('first poll with firstPoll 2: the newest 2 over all batches', async () => {
    const s = listServer(order);
    s.batches.push('batch_2');
    s.issue(2);
    const [, last] = s.issue(2, { batchId: 'batch_2' });
    const first = await s.client.pollActiveBatches({ event: 'issued', firstPoll: 1 });
    expect(names(first.certificates)).toEqual([last]);
  });

  test('damaged states are refused by name', async () => {
    const s = listServer(order);
    await expect(s.client.pollActiveBatches({ event: 'issued', states: { batch_1: { known: 3 } } as never })).rejects.toMatchObject({ field: 'states.batch_1.known' });
    await expect(s.client.pollActiveBatches({ event: 'issued', states: [] as never })).rejects.toMatchObject({ field: 'states' });
    await expect(s.client.pollActiveBatches({ event: 'opened' as never })).rejects.toMatchObject({ field: 'event' });
    expect(s.requests).toHaveLength(0);
  });
});
