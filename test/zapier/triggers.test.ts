// The four instant triggers (one factory): subscribe, unsubscribe, perform (signature,
// window, event type, batch filter, duplicates) and performList.
import nock from 'nock';
import { EVENT_TYPES, type EventType } from '@certificate-service/sdk/core';
import { SECRET, app, api, asOutput, caught, delivery, event, recipient, run, setupNock } from './mock-api';

setupNock();

const TRIGGERS: Array<[string, EventType, string | undefined]> = [
  ['certificate_issued', 'certificate.issued', undefined],
  ['certificate_sent', 'certificate.sent', 'sent'],
  ['certificate_failed', 'certificate.failed', 'failed'],
  ['certificate_viewed', 'certificate.viewed', undefined],
];
const subscribeData = { id: 'whs_1', secret: SECRET };
const HOOK_URL = 'https://hooks.zapier.com/hooks/standard/1/abc/';

describe.each(TRIGGERS)('trigger %s', (key, type, emailStatus) => {
  const op = (name: string) => `triggers.${key}.operation.${name}`;
  const perform = (bundle: Record<string, unknown>) => run<unknown[]>(op('perform'), { subscribeData, inputData: {}, ...bundle });

  it('is an instant hook with a complete contract, a static sample and output fields', () => {
    const trigger = app.triggers[key];
    expect(trigger.key).toBe(key);
    expect(trigger.display.description).toMatch(/^Triggers when .*\.$/);
    const operation = trigger.operation;
    expect(operation.type).toBe('hook');
    for (const fn of ['performSubscribe', 'performUnsubscribe', 'perform', 'performList']) expect(typeof operation[fn]).toBe('function');
    const sample = operation.sample as Record<string, unknown>;
    expect(sample).toMatchObject({ id: expect.stringMatching(/^whe_/), type, recipientId: expect.stringMatching(/^rec_/) });
    for (const k of ['createdAt', 'issueDate', 'recipientCreatedAt']) expect(Date.parse(String(sample[k]))).not.toBeNaN();
    expect(String(sample.createdAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const outputKeys = (operation.outputFields as Array<{ key: string }>).map((f) => f.key);
    expect(outputKeys).toEqual(expect.arrayContaining(['id', 'type', 'createdAt', 'recipientId', 'certificateId', 'email']));
  });

  it('performSubscribe subscribes the hook URL to this one event and returns {id, secret}', async () => {
    api()
      .post('/api/v1/webhooks/subscriptions', { url: HOOK_URL, events: [type] })
      .reply(201, { id: 'whs_9', url: HOOK_URL, events: [type], secret: 'wh_sec_new', createdAt: '2025-06-01T00:00:00Z' });
    await expect(run(op('performSubscribe'), { targetUrl: HOOK_URL, inputData: {} })).resolves.toEqual({ id: 'whs_9', secret: 'wh_sec_new' });
  });

  it('performUnsubscribe deletes the subscription', async () => {
    api().delete('/api/v1/webhooks/subscriptions/whs_1').reply(204);
    await expect(run(op('performUnsubscribe'), { subscribeData })).resolves.toMatchObject({ id: 'whs_1', deleted: true });
  });

  it('performUnsubscribe treats a 404 (already gone) as done', async () => {
    api().delete('/api/v1/webhooks/subscriptions/whs_1').reply(404, { error: 'NOT_FOUND', message: 'No such subscription', detail: {} });
    await expect(run(op('performUnsubscribe'), { subscribeData })).resolves.toEqual({ id: 'whs_1', deleted: true, alreadyDeleted: true });
  });

  it('perform returns the verified delivery as one flat item', async () => {
    const e = event(type, { emailStatus: emailStatus ?? 'not_sent', expiryDate: '2027-06-02T00:00:00.000Z', emailSentAt: '2025-06-02T09:15:04.000Z' });
    const [item, ...rest] = await perform(delivery(e));
    expect(rest).toEqual([]);
    expect(item).toEqual({
      ...e.data,
      id: e.id,
      type,
      createdAt: e.createdAt,
      recipientId: e.data.id,
      recipientCreatedAt: e.data.createdAt,
    });
  });

  it('perform leaves out the dates that are not set, instead of returning null', async () => {
    const e = event(type, { expiryDate: null, emailSentAt: null });
    const [item] = await perform(delivery(e));
    expect(item).toEqual(asOutput({ ...e.data, id: e.id, type, createdAt: e.createdAt, recipientId: e.data.id, recipientCreatedAt: e.data.createdAt }));
    expect(item).not.toHaveProperty('expiryDate');
    expect(item).not.toHaveProperty('emailSentAt');
  });

  it('perform drops a delivery signed with another secret, and logs no secret', async () => {
    const logs: string[] = [];
    const spy = jest.spyOn(console, 'log').mockImplementation((...args) => void logs.push(args.join(' ')));
    process.env.LOG_TO_STDOUT = '1'; // the app tester then prints z.console output
    try {
      expect(await perform(delivery(event(type), { secret: 'wh_sec_someone_else' }))).toEqual([]);
    } finally {
      delete process.env.LOG_TO_STDOUT;
      spy.mockRestore();
    }
    const text = logs.join('\n');
    expect(text).toMatch(/ignored: verification failed \(NO_MATCHING_SIGNATURE\)/);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('wh_sec_someone_else');
  });

  it.each([
    ['stale (older than 300 s)', -330], // 30 s clear of the edge: a loaded machine may take seconds to get here
    ['from the future (more than 300 s ahead)', 330],
  ])('perform drops a delivery that is %s', async (_what, offset) => {
    expect(await perform(delivery(event(type), { t: Math.floor(Date.now() / 1000) + offset }))).toEqual([]);
  });

  it('perform accepts a delivery inside the window', async () => {
    expect(await perform(delivery(event(type), { t: Math.floor(Date.now() / 1000) - 250 }))).toHaveLength(1);
  });

  it('perform drops a delivery whose body was altered after signing', async () => {
    const d = delivery(event(type));
    d.rawRequest.content = d.rawRequest.content.replace('Ada Lovelace', 'Mallory');
    expect(await perform(d)).toEqual([]);
  });

  it('perform drops a delivery without signature, body or stored secret', async () => {
    const d = delivery(event(type));
    const { ['Http-X-Service-Signature']: _dropped, ...unsigned } = d.rawRequest.headers;
    expect(await perform({ rawRequest: { ...d.rawRequest, headers: unsigned } })).toEqual([]);
    expect(await perform({ rawRequest: { ...d.rawRequest, content: '' } })).toEqual([]);
    expect(await perform({ ...d, subscribeData: { id: 'whs_1' } })).toEqual([]);
    expect(await perform({ cleanedRequest: event(type) })).toEqual([]); // no raw body: nothing to verify
  });

  it('perform drops a correctly signed delivery of another event type', async () => {
    const other = EVENT_TYPES.find((t) => t !== type)!;
    expect(await perform(delivery(event(other)))).toEqual([]);
  });

  it('perform applies the Batch filter', async () => {
    const inBatch = delivery(event(type, { batchId: 'batch_1' }));
    const otherBatch = delivery(event(type, { batchId: 'batch_2' }));
    expect(await perform({ ...inBatch, inputData: { batch_id: 'batch_1' } })).toHaveLength(1);
    expect(await perform({ ...otherBatch, inputData: { batch_id: 'batch_1' } })).toEqual([]);
  });

  it.each([
    ['[]', []],
    ['{}', {}],
  ])('perform never emits a signed envelope whose data is %s (a test or non-certificate delivery), and logs it as one', async (_what, data) => {
    const logs: string[] = [];
    const spy = jest.spyOn(console, 'log').mockImplementation((...args) => void logs.push(args.join(' ')));
    process.env.LOG_TO_STDOUT = '1';
    try {
      expect(await perform(delivery({ id: 'whe_t', type, createdAt: '2025-06-02T09:16:00.000Z', data }, { deliveryId: 'whd_sample' }))).toEqual([]);
    } finally {
      delete process.env.LOG_TO_STDOUT;
      spy.mockRestore();
    }
    expect(logs.join('\n')).toMatch(new RegExp(`whd_sample ignored: a test or non-certificate delivery \\(${type.replace('.', '\\.')}: data (is an array, not a recipient|has no recipient id)\\); the Zap does not run for it`));
  });

  it('perform drops a repeated delivery id (at-least-once delivery)', async () => {
    const e = event(type);
    const first = delivery(e, { deliveryId: `whd_dup_${key}` });
    const again = delivery(e, { deliveryId: `whd_dup_${key}` });
    expect(await perform(first)).toHaveLength(1);
    expect(await perform(again)).toEqual([]);
    expect(await perform(delivery(event(type), { deliveryId: `whd_other_${key}` }))).toHaveLength(1);
  });

  it('performList returns recent recipients of the chosen batch in the same flat shape', async () => {
    const query = { limit: '10', ...(emailStatus ? { emailStatus } : {}) };
    const r = recipient({ id: 'rec_7', batchId: 'batch_1', emailStatus: emailStatus ?? 'not_sent', emailSentAt: emailStatus ? '2025-06-03T00:00:00.000Z' : null });
    api().get('/api/v1/batches/batch_1/recipients').query(query).reply(200, { data: [r], nextCursor: null });
    const items = await run<Array<Record<string, unknown>>>(op('performList'), { inputData: { batch_id: 'batch_1' } });
    expect(items).toEqual([
      expect.objectContaining({ id: `${type}:rec_7`, type, recipientId: 'rec_7', batchId: 'batch_1', certificateId: r.certificateId, recipientCreatedAt: r.createdAt }),
    ]);
    // Every key a delivery has (the sample's), error and viewer included; unset dates are left out.
    const unset = Object.entries(r).filter(([, v]) => v === null).map(([k]) => k);
    expect(Object.keys(items[0]).sort()).toEqual(Object.keys(app.triggers[key].operation.sample).filter((k) => !unset.includes(k)).sort());
  });

  it('performList without a batch uses the newest active batch', async () => {
    api()
      .get('/api/v1/batches')
      .query({ limit: '100', status: 'active' })
      .reply(200, {
        data: [
          { id: 'batch_old', title: 'Old', designId: 'd', status: 'active', createdAt: '2025-01-01T00:00:00Z' },
          { id: 'batch_new', title: 'New', designId: 'd', status: 'active', createdAt: '2025-05-01T00:00:00Z' },
        ],
      });
    api().get('/api/v1/batches/batch_new/recipients').query(true).reply(200, { data: [recipient({ batchId: 'batch_new' })] });
    const items = await run<unknown[]>(op('performList'), { inputData: {} });
    expect(items).toEqual([expect.objectContaining({ batchId: 'batch_new' })]);
  });

  it('performList with no batch at all returns nothing (Zapier falls back to the sample)', async () => {
    api().get('/api/v1/batches').query(true).reply(200, { data: [] });
    await expect(run(op('performList'), { inputData: {} })).resolves.toEqual([]);
  });
});

describe('subscription edge cases', () => {
  it('a subscription without a signing secret is removed again and the Zap is not turned on', async () => {
    api().post('/api/v1/webhooks/subscriptions').reply(201, { id: 'whs_2', url: HOOK_URL, events: ['certificate.issued'] });
    api().delete('/api/v1/webhooks/subscriptions/whs_2').reply(204);
    const error = await caught(run('triggers.certificate_issued.operation.performSubscribe', { targetUrl: HOOK_URL, inputData: {} }));
    // An answer the core cannot use: halted (the Zap is not turned on), never retried into a second subscription.
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(/created subscription whs_2 but returned no signing secret.*It was deleted again/);
  });

  it('the 20-subscription plan limit is reported as an error that says what to do', async () => {
    api().post('/api/v1/webhooks/subscriptions').reply(403, { error: 'PLAN_LIMIT_EXCEEDED', message: 'At most 20 webhook subscriptions.', detail: {} });
    const error = await caught(run('triggers.certificate_sent.operation.performSubscribe', { targetUrl: HOOK_URL, inputData: {} }));
    expect(error.json).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', status: 403 });
    expect(String(error.json?.message)).toMatch(/^At most 20 webhook subscriptions\. Free one: delete a webhook subscription that nothing uses any more\. Each Zap that is on with an instant Certificate Service trigger holds one: turn off the Zaps you no longer use, or switch them to the polling triggers New Certificate, Certificate Email Sent and Certificate Email Failed, which hold none/);
    expect(String(error.json?.message)).not.toMatch(/certsvc/); // no CLI command: a Zapier user has no shell
  });

  it('a failing unsubscribe (not a 404) is an error', async () => {
    api().delete('/api/v1/webhooks/subscriptions/whs_1').times(3).reply(500, 'boom');
    const error = await caught(run('triggers.certificate_viewed.operation.performUnsubscribe', { subscribeData }));
    expect(error.json).toMatchObject({ status: 500 });
  });

  it('nock saw no unexpected traffic', () => {
    expect(nock.pendingMocks()).toEqual([]);
  });
});
