// Recipient lists in both orders (a sandbox setting; the spec does not say which): pages
// walk the whole list once either way, a cursor of one order is refused by the other, and
// the emailStatus filter applies in both.
import { createSandbox, type RecipientOrder, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let api: Api;
let batchId: string;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
  api = new Api(sb.baseUrl, sb.apiKey);
  batchId = (await api.post('/batches', { title: 'Order', designId: 'design_classic' })).body.id;
  for (let i = 0; i < 7; i++) await api.post(`/batches/${batchId}/recipients`, { name: `P${i}`, email: `p${i}@example.com` });
});
afterEach(() => sb.controls.setRecipientOrder('newest-first'));
afterAll(() => sb.close());

async function walk(limit: number, query = ''): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const body: { data: { name: string }[]; nextCursor: string | null } = (await api.get(`/batches/${batchId}/recipients?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`)).body;
    pages++;
    names.push(...body.data.map((r: { name: string }) => r.name));
    cursor = body.nextCursor;
  } while (cursor);
  return { names, pages };
}

test.each<[RecipientOrder, string[]]>([
  ['newest-first', ['P6', 'P5', 'P4', 'P3', 'P2', 'P1', 'P0']],
  ['oldest-first', ['P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6']],
])('%s: pages of 3 walk the list once, in that order', async (order, expected) => {
  sb.controls.setRecipientOrder(order);
  expect(await walk(3)).toEqual({ names: expected, pages: 3 });
  expect(await walk(7)).toEqual({ names: expected, pages: 1 });
});

test('newest first is the default; the setting is in settings() and reset() restores it', async () => {
  expect(sb.controls.settings().recipientOrder).toBe('newest-first');
  sb.controls.setRecipientOrder('oldest-first');
  expect(sb.controls.settings().recipientOrder).toBe('oldest-first');
  expect(() => sb.controls.setRecipientOrder('sideways' as RecipientOrder)).toThrow(/recipientOrder/);
  await expect(createSandbox({ recipientOrder: 'sideways' as RecipientOrder })).rejects.toThrow(/recipientOrder/);
});

test("a cursor of one order is refused by the other (400 on 'cursor')", async () => {
  const cursor = (await api.get(`/batches/${batchId}/recipients?limit=2`)).body.nextCursor;
  sb.controls.setRecipientOrder('oldest-first');
  const res = await api.get(`/batches/${batchId}/recipients?limit=2&cursor=${cursor}`);
  expect([res.status, res.body.detail.field]).toEqual([400, 'cursor']);
});

test('an item issued after the last page is found from that page cursor (oldest first)', async () => {
  sb.controls.setRecipientOrder('oldest-first');
  const first = (await api.get(`/batches/${batchId}/recipients?limit=4`)).body;
  const second = (await api.get(`/batches/${batchId}/recipients?limit=4&cursor=${first.nextCursor}`)).body;
  expect([second.data.length, second.nextCursor]).toEqual([3, null]);
  await api.post(`/batches/${batchId}/recipients`, { name: 'P7', email: 'p7@example.com' });
  const again = (await api.get(`/batches/${batchId}/recipients?limit=4&cursor=${first.nextCursor}`)).body;
  expect(again.data.map((r: { name: string }) => r.name)).toEqual(['P4', 'P5', 'P6', 'P7']);
});
