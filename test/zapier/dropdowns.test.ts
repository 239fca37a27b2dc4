// The hidden dropdown triggers. batch_list pages with z.cursor, which calls Zapier's
// RPC service in production; here the handler gets a `cursorTestObj` instead.
import { api, app, authData, caught, createAppHandler, cursorStore, recipient, run, setupNock } from './mock-api';

setupNock();

const handler = createAppHandler(app);
const batch = (id: string, status = 'active') => ({ id, title: `Title ${id}`, designId: 'design_classic', status, createdAt: '2025-06-01T00:00:00Z' });

/** One dropdown page, as Zapier asks for it: same storeKey, page 0, 1, 2... */
async function page(key: string, pageNo: number, cursorTestObj: object, inputData: Record<string, unknown> = {}) {
  const response = (await handler({
    command: 'execute',
    method: `triggers.${key}.operation.perform`,
    bundle: { authData, inputData, meta: { page: pageNo, isFillingDynamicDropdown: true } },
    storeKey: `test-${key}`,
    cursorTestObj,
  })) as { results: Array<Record<string, unknown>> };
  return response.results;
}

describe.each([
  ['batch_list', 'active'],
  ['archived_batch_list', 'archived'],
])('%s', (key, status) => {
  it(`is hidden, paginated and lists only ${status} batches`, () => {
    const trigger = app.triggers[key];
    expect(trigger.display.hidden).toBe(true);
    expect(trigger.operation.canPaginate).toBe(true);
  });

  it('follows the service cursor page by page with z.cursor, and stops after the last page', async () => {
    const cursorTestObj = cursorStore();
    api().get('/api/v1/batches').query({ limit: '100', status }).reply(200, { data: [batch('batch_3', status), batch('batch_2', status)], nextCursor: 'c1' });
    api().get('/api/v1/batches').query({ limit: '100', status, cursor: 'c1' }).reply(200, { data: [batch('batch_1', status)], nextCursor: null });

    expect((await page(key, 0, cursorTestObj)).map((b) => b.id)).toEqual(['batch_3', 'batch_2']);
    expect((await page(key, 1, cursorTestObj)).map((b) => b.id)).toEqual(['batch_1']);
    // Page 2: the previous page had no next cursor, so nothing is fetched again.
    expect(await page(key, 2, cursorTestObj)).toEqual([]);
    expect(cursorTestObj.current()).toBe('');
  });

  it('returns items with id and title for the dropdown label', async () => {
    api().get('/api/v1/batches').query({ limit: '100', status }).reply(200, [batch('batch_9', status)]);
    const [item] = await page(key, 0, cursorStore());
    expect(item).toMatchObject({ id: 'batch_9', title: 'Title batch_9' });
  });
});

describe('design_list', () => {
  it('lists every design across pages, with a name for the label', async () => {
    api().get('/api/v1/designs').reply(200, { data: [{ id: 'design_classic', name: 'Classic' }], nextCursor: 'd1' });
    api().get('/api/v1/designs').query({ cursor: 'd1' }).reply(200, { data: [{ id: 'design_plain' }], nextCursor: null });
    await expect(run('triggers.design_list.operation.perform', { inputData: {} })).resolves.toEqual([
      { id: 'design_classic', name: 'Classic' },
      { id: 'design_plain', name: 'design_plain' },
    ]);
  });

  it('feeds the Design field of Create Batch, and batch_list the Batch fields', () => {
    const designField = app.creates.create_batch.operation.inputFields.find((f: { key: string }) => f.key === 'design_id');
    expect(designField).toMatchObject({ dynamic: 'design_list.id.name' });
    const batchField = app.creates.issue_certificate.operation.inputFields.find((f: { key: string }) => f.key === 'batch_id');
    expect(batchField).toMatchObject({ dynamic: 'batch_list.id.title' });
    const archived = app.creates.unarchive_batch.operation.inputFields.find((f: { key: string }) => f.key === 'batch_id');
    expect(archived).toMatchObject({ dynamic: 'archived_batch_list.id.title' });
  });
});

describe('recipient_list (the certificate dropdowns)', () => {
  const CERTIFICATE_STEPS = ['send_certificate', 'update_recipient', 'delete_recipient'];
  const field = (create: string, key: string) =>
    (app.creates[create].operation.inputFields as Array<Record<string, unknown>>).find((f) => f.key === key);

  it('is hidden and paginated', () => {
    const trigger = app.triggers.recipient_list;
    expect(trigger.display.hidden).toBe(true);
    expect(trigger.operation.canPaginate).toBe(true);
    expect(trigger.operation.sample).toMatchObject({ id: expect.stringMatching(/^rec_/), label: 'Ada Lovelace <ada@example.com>' });
  });

  it('lists the chosen batch page by page with z.cursor, labelled "name <email>", and stops after the last page', async () => {
    const cursorTestObj = cursorStore();
    const inputData = { batch_id: 'batch_7' };
    api()
      .get('/api/v1/batches/batch_7/recipients')
      .query({ limit: '100' })
      .reply(200, { data: [recipient({ id: 'rec_1', name: 'Ada Lovelace', email: 'ada@example.com' }), recipient({ id: 'rec_2', name: 'Ada Lovelace', email: 'ada.l@example.org' })], nextCursor: 'r1' });
    api().get('/api/v1/batches/batch_7/recipients').query({ limit: '100', cursor: 'r1' }).reply(200, { data: [recipient({ id: 'rec_3', name: 'Grace Hopper', email: 'grace@example.com' })], nextCursor: null });

    const first = await page('recipient_list', 0, cursorTestObj, inputData);
    // Two people of the same name stay apart by their email.
    expect(first.map((r) => [r.id, r.label])).toEqual([
      ['rec_1', 'Ada Lovelace <ada@example.com>'],
      ['rec_2', 'Ada Lovelace <ada.l@example.org>'],
    ]);
    expect((await page('recipient_list', 1, cursorTestObj, inputData)).map((r) => r.label)).toEqual(['Grace Hopper <grace@example.com>']);
    expect(await page('recipient_list', 2, cursorTestObj, inputData)).toEqual([]);
    // Unset dates are left out, as in every other item of the app.
    expect(first[0]).not.toHaveProperty('expiryDate');
  });

  it('without a batch, asks for the Batch field before any request', async () => {
    const error = await caught(run('triggers.recipient_list.operation.perform', { inputData: {}, meta: { page: 0 } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/Batch/);
  });

  it.each(CERTIFICATE_STEPS)('%s: Recipient ID is a dropdown of the chosen batch, with Find Certificate by Email as its search', (create) => {
    expect(field(create, 'recipient_id')).toMatchObject({
      required: true,
      dynamic: 'recipient_list.id.label',
      search: 'find_recipient.id',
      dependsOn: ['batch_id'],
    });
    // The Batch field comes first: the dropdown reads it from the step's input.
    const keys = (app.creates[create].operation.inputFields as Array<{ key: string }>).map((f) => f.key);
    expect(keys.indexOf('batch_id')).toBeLessThan(keys.indexOf('recipient_id'));
  });
});
