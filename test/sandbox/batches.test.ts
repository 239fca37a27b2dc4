// Batches, designs, and newest-first cursor pagination.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';

let sb: Sandbox;
let demo: Api;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
  demo = new Api(sb.baseUrl, sb.apiKey);
});
afterAll(() => sb.close());

/** A fresh workspace per test, so list contents are exactly what the test made. */
function freshApi(): Api {
  return new Api(sb.baseUrl, sb.controls.createWorkspace().apiKey);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('designs', () => {
  test('GET /designs lists the three seeded designs', async () => {
    const res = await demo.get('/designs');
    expect(res.status).toBe(200);
    expect(res.body.hasMore).toBe(false);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data.map((d: { id: string }) => d.id).sort()).toEqual(['design_classic', 'design_minimal', 'design_modern']);
    expect(res.body.data).toContainEqual({
      id: 'design_classic',
      name: 'Classic',
      variables: [
        { name: 'course', label: 'Course', required: false },
        { name: 'score', label: 'Score', required: false },
      ],
    });
    // Modern lists no variables: the key is absent, as on a design that says nothing.
    expect(res.body.data.find((d: { id: string }) => d.id === 'design_modern')).toEqual({ id: 'design_modern', name: 'Modern' });
  });

  test('designs page like every list', async () => {
    const first = await demo.get('/designs?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.hasMore).toBe(true);
    const second = await demo.get(`/designs?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
  });
});

describe('batch lifecycle', () => {
  test('create returns 201 with exactly the batch fields', async () => {
    const res = await demo.post('/batches', { title: 'Spring cohort', designId: 'design_modern', ignored: true });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'designId', 'id', 'status', 'title']);
    expect(res.body).toMatchObject({ title: 'Spring cohort', designId: 'design_modern', status: 'active' });
    expect(res.body.id).toMatch(/^batch_[0-9a-f]+$/);
    expect(res.body.createdAt).toMatch(ISO);
    expect((await demo.get(`/batches/${res.body.id}`)).body).toEqual(res.body);
  });

  test.each([
    [{ designId: 'design_classic' }, 'title'],
    [{ title: '', designId: 'design_classic' }, 'title'],
    [{ title: '   ', designId: 'design_classic' }, 'title'],
    [{ title: 5, designId: 'design_classic' }, 'title'],
    [{ title: 'T' }, 'designId'],
    [{ title: 'T', designId: '' }, 'designId'],
    [{ title: 'T', designId: 'design_nope' }, 'designId'],
    [undefined, 'title'],
  ])('create %j -> 400 VALIDATION_ERROR field %s', async (body, field) => {
    const api = freshApi();
    const res = await api.post('/batches', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.detail.field).toBe(field);
    expect((await api.get('/batches?status=all')).body.data).toHaveLength(0);
  });

  test('archive / unarchive move between the two states; other moves are 409 CONFLICT', async () => {
    const { id } = (await demo.post('/batches', { title: 'Lifecycle', designId: 'design_classic' })).body;
    const archived = await demo.post(`/batches/${id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id, status: 'archived' });

    const again = await demo.post(`/batches/${id}/archive`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'CONFLICT', detail: { status: 'archived' } });

    const restored = await demo.post(`/batches/${id}/unarchive`);
    expect(restored.status).toBe(200);
    expect(restored.body.status).toBe('active');
    expect((await demo.post(`/batches/${id}/unarchive`)).body.error).toBe('CONFLICT');
  });

  test('unknown batch -> 404 NOT_FOUND on get, archive and unarchive', async () => {
    for (const res of [
      await demo.get('/batches/batch_missing'),
      await demo.post('/batches/batch_missing/archive'),
      await demo.post('/batches/batch_missing/unarchive'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'NOT_FOUND', detail: { id: 'batch_missing' } });
    }
  });
});

describe('GET /batches', () => {
  test('status filter: active (default), archived, all; anything else is a VALIDATION_ERROR', async () => {
    const api = freshApi();
    const a = (await api.post('/batches', { title: 'A', designId: 'design_classic' })).body;
    const b = (await api.post('/batches', { title: 'B', designId: 'design_classic' })).body;
    await api.post(`/batches/${a.id}/archive`);
    const ids = async (q: string) => (await api.get(`/batches${q}`)).body.data.map((x: { id: string }) => x.id);
    expect(await ids('')).toEqual([b.id]);
    expect(await ids('?status=active')).toEqual([b.id]);
    expect(await ids('?status=archived')).toEqual([a.id]);
    expect(await ids('?status=all')).toEqual([b.id, a.id]);
    const bad = await api.get('/batches?status=deleted');
    expect(bad.status).toBe(400);
    expect(bad.body.detail.field).toBe('status');
  });

  test.each(['0', '101', 'abc', '1.5', '-1', ''])('limit=%s -> 400 field limit', async (limit) => {
    const res = await demo.get(`/batches?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', detail: { field: 'limit' } });
  });

  test('pages newest first with opaque cursors, default limit 20, no gaps or repeats', async () => {
    const api = freshApi();
    const created: string[] = [];
    for (let i = 0; i < 45; i++) created.push((await api.post('/batches', { title: `B${i}`, designId: 'design_classic' })).body.id);

    const first = await api.get('/batches');
    expect(first.body.data).toHaveLength(20);
    expect(first.body.hasMore).toBe(true);
    expect(typeof first.body.nextCursor).toBe('string');
    expect(first.body.nextCursor).not.toMatch(/^\d+$/); // opaque, not a bare offset

    // An insert between pages must not shift the following pages.
    await api.post('/batches', { title: 'late', designId: 'design_classic' });
    const second = await api.get(`/batches?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    const third = await api.get(`/batches?cursor=${encodeURIComponent(second.body.nextCursor)}`);
    expect(second.body.data).toHaveLength(20);
    expect(third.body.data).toHaveLength(5);
    expect(third.body).toMatchObject({ hasMore: false, nextCursor: null });

    const seen = [...first.body.data, ...second.body.data, ...third.body.data].map((b: { id: string }) => b.id);
    expect(seen).toEqual([...created].reverse());

    const max = await api.get('/batches?limit=100');
    expect(max.body.data).toHaveLength(46);
    expect(max.body.data[0].title).toBe('late');
  });

  test('a malformed or foreign cursor -> 400 field cursor', async () => {
    const bad = await demo.get('/batches?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body.detail.field).toBe('cursor');

    const designsCursor = (await demo.get('/designs?limit=1')).body.nextCursor;
    const foreign = await demo.get(`/batches?cursor=${designsCursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.detail.field).toBe('cursor');
  });
});
