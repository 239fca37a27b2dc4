import nock from 'nock';
import { collect, readPage } from '../../shared/src/pagination';
import { BASE, makeClient } from './helpers';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

const items = [{ id: 'a' }, { id: 'b' }];

// Every plausible list shape (the spec does not show the wrapper or the cursor's name).
test.each([
  ['bare array', items, null],
  ['data + nextCursor', { data: items, nextCursor: 'c1' }, 'c1'],
  ['items + next_cursor', { items, next_cursor: 'c1' }, 'c1'],
  ['results + cursor', { results: items, cursor: 'c1' }, 'c1'],
  ['batches + next', { batches: items, next: 'c1' }, 'c1'],
  ['recipients + next', { recipients: items, next: 'c1' }, 'c1'],
  ['designs', { designs: items }, null],
  ['subscriptions', { subscriptions: items, nextCursor: null }, null],
  ['pagination.nextCursor', { data: items, pagination: { nextCursor: 'c1' } }, 'c1'],
  ['meta.nextCursor', { data: items, meta: { nextCursor: 'c1' } }, 'c1'],
  ['has_more false wins over a cursor', { data: items, next_cursor: 'c1', has_more: false }, null],
  ['hasMore true with cursor', { data: items, nextCursor: 'c1', hasMore: true }, 'c1'],
  ['numeric cursor', { data: items, next: 2 }, '2'],
])('reads %s', (_name, body, cursor) => {
  expect(readPage(body)).toEqual({ items, nextCursor: cursor });
});

test('an empty or odd body is an empty page', () => {
  expect(readPage(null)).toEqual({ items: [], nextCursor: null });
  expect(readPage('oops')).toEqual({ items: [], nextCursor: null });
});

test('iterates all pages at the maximum page size', async () => {
  nock(BASE).get('/api/v1/batches').query({ limit: '100', status: 'all' }).reply(200, { data: [{ id: '1' }], nextCursor: 'p2' });
  nock(BASE).get('/api/v1/batches').query({ limit: '100', status: 'all', cursor: 'p2' }).reply(200, { data: [{ id: '2' }], nextCursor: 'p3' });
  nock(BASE).get('/api/v1/batches').query({ limit: '100', status: 'all', cursor: 'p3' }).reply(200, { data: [{ id: '3' }], nextCursor: null });
  const { client } = makeClient();
  const all = await collect(client.iterateBatches({ status: 'all' }));
  expect(all.map((b) => b.id)).toEqual(['1', '2', '3']);
  expect(nock.isDone()).toBe(true);
});

test('a repeating cursor stops the loop instead of spinning forever', async () => {
  const scope = nock(BASE).get(/\/api\/v1\/batches.*/).times(10).reply(200, { data: [{ id: 'x' }], nextCursor: 'same' });
  const { client } = makeClient();
  const all = await collect(client.iterateBatches());
  expect(all).toHaveLength(2); // first page, then the page for 'same', whose cursor repeats
  expect(scope.pendingMocks()).toHaveLength(1); // nock counts the remaining 8 as one pending interceptor
});

test('collect stops fetching once the limit is reached', async () => {
  nock(BASE).get('/api/v1/batches/b1/recipients').query(true).reply(200, { data: [{ id: '1' }, { id: '2' }], nextCursor: 'p2' });
  const page2 = nock(BASE).get('/api/v1/batches/b1/recipients').query(true).reply(200, { data: [{ id: '3' }], nextCursor: null });
  const { client } = makeClient();
  expect(await collect(client.iterateRecipients('b1'), 2)).toHaveLength(2);
  expect(page2.isDone()).toBe(false);
});
