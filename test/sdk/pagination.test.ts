import nock from 'nock';
import { listOf } from '../../shared/sdk/src/decode';
import { collect } from '../../shared/sdk/src/pagination';
import { BASE, makeClient } from './helpers';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

const items = [{ id: 'a' }, { id: 'b' }];
const context = { endpoint: 'GET /batches', status: 200, contentType: 'application/json', issues: false };
const readPage = (body: unknown) => {
  const { items: read, nextCursor } = listOf('batches')(body, context);
  return { items: read, nextCursor };
};

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

test('an empty or odd body is an error that says what came back, never an empty page', () => {
  expect(() => readPage(null)).toThrow(/GET \/batches answered 200 \(application\/json\) with an empty body, where a list of batches was expected/);
  expect(() => readPage('oops')).toThrow(/text that is not JSON \(4 characters\)/);
  expect(() => readPage({ entries: items })).toThrow(/an object with keys "entries"/);
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

test('a repeating cursor is an error, neither an endless loop nor a list passed off as complete', async () => {
  const scope = nock(BASE).get(/\/api\/v1\/batches.*/).times(10).reply(200, { data: [{ id: 'x' }], nextCursor: 'same' });
  const { client } = makeClient();
  await expect(collect(client.iterateBatches())).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', message: expect.stringContaining('a next-page cursor it had given before') });
  expect(scope.pendingMocks()).toHaveLength(1); // 2 of 10 used; nock counts the remaining 8 as one pending interceptor
});

test('collect stops fetching once the limit is reached', async () => {
  nock(BASE).get('/api/v1/batches/b1/recipients').query(true).reply(200, { data: [{ id: '1', email: 'a@x.test' }, { id: '2', email: 'b@x.test' }], nextCursor: 'p2' });
  const page2 = nock(BASE).get('/api/v1/batches/b1/recipients').query(true).reply(200, { data: [{ id: '3', email: 'c@x.test' }], nextCursor: null });
  const { client } = makeClient();
  expect(await collect(client.iterateRecipients('b1'), 2)).toHaveLength(2);
  expect(page2.isDone()).toBe(false);
});

test('a full page with no cursor: the first N items can be taken, reading on is an error', async () => {
  const full = Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, email: `p${i}@x.test` }));
  nock(BASE).get('/api/v1/batches/b1/recipients').query(true).times(2).reply(200, full);
  const { client } = makeClient();
  expect(await collect(client.iterateRecipients('b1'), 10)).toHaveLength(10);
  await expect(collect(client.iterateRecipients('b1'))).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
});
