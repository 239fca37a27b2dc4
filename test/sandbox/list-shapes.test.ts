// Every list wrapper variant, on every list endpoint, with cursor paging where the shape has one.
import { createSandbox, type ListShape, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let api: Api;
let batchId: string;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
  const ws = sb.controls.createWorkspace();
  api = new Api(sb.baseUrl, ws.apiKey);
  for (const t of ['one', 'two', 'three']) batchId = (await api.post('/batches', { title: t, designId: 'design_classic' })).body.id;
  await api.post(`/batches/${batchId}/recipients/bulk`, {
    recipients: ['a', 'b', 'c'].map((n) => ({ name: n, email: `${n}@example.com` })),
  });
  for (const e of ['certificate.issued', 'certificate.sent', 'certificate.viewed']) {
    await api.post('/webhooks/subscriptions', { url: 'http://127.0.0.1:9/hook', events: [e] });
  }
});
afterEach(() => sb.controls.setListShape('default'));
afterAll(() => sb.close());

type Name = 'batches' | 'recipients' | 'designs' | 'subscriptions';
type Reader = (body: any, name: Name) => { items: unknown[]; next: string | null | undefined };

const READERS: Record<ListShape, Reader> = {
  default: (b) => {
    expect(Object.keys(b).sort()).toEqual(['data', 'hasMore', 'nextCursor']);
    expect(b.hasMore).toBe(b.nextCursor !== null);
    return { items: b.data, next: b.nextCursor };
  },
  bare: (b) => {
    expect(Array.isArray(b)).toBe(true);
    return { items: b, next: undefined };
  },
  items: (b) => {
    expect(Object.keys(b).sort()).toEqual(['items', 'next_cursor']);
    return { items: b.items, next: b.next_cursor };
  },
  results: (b) => {
    expect(Object.keys(b).sort()).toEqual(['cursor', 'results']);
    return { items: b.results, next: b.cursor };
  },
  named: (b, name) => {
    expect(Object.keys(b).sort()).toEqual([name, 'next'].sort());
    return { items: b[name], next: b.next };
  },
  pagination: (b) => {
    expect(Object.keys(b).sort()).toEqual(['data', 'pagination']);
    return { items: b.data, next: b.pagination.nextCursor };
  },
  meta: (b) => {
    expect(Object.keys(b).sort()).toEqual(['data', 'meta']);
    return { items: b.data, next: b.meta.nextCursor };
  },
  has_more: (b) => {
    expect(Object.keys(b).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(b.has_more).toBe(b.next_cursor !== null);
    return { items: b.data, next: b.next_cursor };
  },
  // Shapes no client knows (first-contact tests): served as described, so a test can show refusal.
  entries: (b) => {
    expect(Object.keys(b).sort()).toEqual(['continuation', 'entries']);
    return { items: b.entries, next: b.continuation };
  },
  payload_rows: (b) => {
    expect(Object.keys(b)).toEqual(['payload']);
    return { items: b.payload.rows, next: b.payload.after };
  },
  html_page: (b) => {
    expect(b).toMatch(/^<!doctype html>/);
    return { items: [], next: undefined };
  },
};

const LISTS: Array<[Name, () => string]> = [
  ['batches', () => '/batches'],
  ['recipients', () => `/batches/${batchId}/recipients`],
  ['designs', () => '/designs'],
  ['subscriptions', () => '/webhooks/subscriptions'],
];

describe.each(Object.keys(READERS) as ListShape[])('list shape %s', (shape) => {
  test.each(LISTS)('%s: two pages of 2 + 1', async (name, path) => {
    sb.controls.setListShape(shape);
    const read = READERS[shape];
    if (shape === 'html_page') {
      const res = await api.get(`${path()}?limit=2`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      read(res.text, name);
      return;
    }
    const first = read((await api.get(`${path()}?limit=2`)).body, name);
    expect(first.items).toHaveLength(2);
    if (shape === 'bare') {
      expect(first.next).toBeUndefined(); // one page, no cursor to follow
      return;
    }
    expect(typeof first.next).toBe('string');
    const second = read((await api.get(`${path()}?limit=2&cursor=${encodeURIComponent(first.next!)}`)).body, name);
    expect(second.items).toHaveLength(1);
    expect(second.next).toBeNull();
    const ids = [...first.items, ...second.items].map((x) => (x as { id: string }).id);
    expect(new Set(ids).size).toBe(3);
  });
});

test('the list shape can be chosen at start and over HTTP', async () => {
  const other = await createSandbox({ listShape: 'items', rateLimit: false });
  try {
    const res = await new Api(other.baseUrl, other.apiKey).get('/designs');
    expect(res.body.items).toHaveLength(3);
    const put = await fetch(`${other.url}/__sandbox/settings`, { method: 'PUT', body: JSON.stringify({ listShape: 'meta' }) });
    expect(((await put.json()) as { listShape: string }).listShape).toBe('meta');
    expect((await new Api(other.baseUrl, other.apiKey).get('/designs')).body.meta).toEqual({ nextCursor: null });
  } finally {
    await other.close();
  }
});
