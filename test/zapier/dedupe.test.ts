// Exactly-once across Lambdas: Zapier can run two copies of one delivery at the same time.
// The trigger claims the delivery id with z.cache.set(..., nx = true). These tests run
// perform through zapier-platform-core's Lambda handler and its real RPC client, against
// an in-memory cache service whose set-if-absent is atomic, as Zapier's is
// (support/zapier-cache-service.ts); core's own local cache ignores nx.
import { claimKey } from '@certificate-service/sdk/core';
import { SECRET, app, authData, createAppHandler, delivery, event } from './helpers';
import { startCacheService, type CacheService, type CacheServiceOptions } from './support/zapier-cache-service';

const handler = createAppHandler(app);
const subscribeData = { id: 'whs_1', secret: SECRET };

let service: CacheService | undefined;
// zapier-platform-core's z.console prints here (why a delivery was dropped); the tests read it.
let logs: string[] = [];
let consoleLog: jest.SpyInstance;
beforeEach(() => {
  logs = [];
  consoleLog = jest.spyOn(console, 'log').mockImplementation((...args) => void logs.push(args.join(' ')));
});
afterEach(() => consoleLog.mockRestore());
const previousDeployKey = process.env.ZAPIER_DEPLOY_KEY;
beforeAll(() => {
  // How core's RPC client authenticates outside a Lambda; the value is not checked here.
  process.env.ZAPIER_DEPLOY_KEY = 'test-deploy-key';
});
afterAll(() => {
  if (previousDeployKey === undefined) delete process.env.ZAPIER_DEPLOY_KEY;
  else process.env.ZAPIER_DEPLOY_KEY = previousDeployKey;
});
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function cache(options: CacheServiceOptions = {}) {
  service = await startCacheService(options);
  return service;
}

/** One Zapier invocation of the trigger's perform for this delivery. */
async function perform(rpcBase: string, bundle: ReturnType<typeof delivery>, key = 'certificate_issued'): Promise<unknown[]> {
  const response = (await handler({
    command: 'execute',
    method: `triggers.${key}.operation.perform`,
    bundle: { authData, inputData: {}, subscribeData, ...bundle },
    storeKey: `test-${key}`,
    rpc_base: rpcBase,
  })) as { results: unknown[] };
  return response.results;
}

describe('a delivery that reaches two invocations at once', () => {
  it.each(['certificate_issued', 'certificate_sent', 'certificate_failed', 'certificate_viewed'])(
    '%s: exactly one of two concurrent performs emits it',
    async (key) => {
      const svc = await cache({ rendezvous: true });
      const type = `certificate.${key.split('_')[1]}` as Parameters<typeof event>[0];
      const e = event(type);
      const copy = () => delivery(e, { deliveryId: 'whd_same' });
      const results = await Promise.all([perform(svc.url, copy(), key), perform(svc.url, copy(), key)]);
      expect(results.map((items) => items.length).sort()).toEqual([0, 1]);
      // Both reads were answered before either write: the worst interleaving happened.
      expect(svc.calls.slice(0, 2).map((c) => c.method)).toEqual(['zcache_get', 'zcache_get']);
      // The claim is one set with nx = true (args: key, value, ttl, scope, nx); a failure's
      // handled time is one more plain set, by the invocation that emitted it.
      const sets = svc.calls.filter((c) => c.method === 'zcache_set' && c.params[4] === true);
      expect(sets).toHaveLength(2);
      const times = svc.calls.filter((c) => c.method === 'zcache_set' && c.params[4] !== true);
      expect(times.map((c) => c.params.slice(1))).toEqual(type === 'certificate.failed' ? [[JSON.stringify({ at: Date.parse(e.createdAt) }), 172800, null, null]] : []);
      // The claim: the occurrence (viewed, and a send without emailSentAt: the delivery id).
      for (const set of sets) expect(set.params).toEqual([`certsvc:delivery:whs_1:${claimKey(e, 'whd_same')}`, expect.any(String), 172800, null, true]);
      // Each invocation claims with its own value, so a read-back tells whose claim is stored.
      expect(sets[0].params[1]).not.toBe(sets[1].params[1]);
      expect(logs.join('\n')).toMatch(/whd_same ignored: already processed/);
      expect(logs.join('\n')).not.toContain(SECRET);
    },
  );

  it('ten concurrent copies still emit once, and another delivery id is not held back', async () => {
    const svc = await cache();
    const e = event('certificate.issued');
    const copies = Array.from({ length: 10 }, () => perform(svc.url, delivery(e, { deliveryId: 'whd_ten' })));
    const other = perform(svc.url, delivery(event('certificate.issued'), { deliveryId: 'whd_other' }));
    const [results, otherItems] = await Promise.all([Promise.all(copies), other]);
    expect(results.filter((items) => items.length === 1)).toHaveLength(1);
    expect(otherItems).toHaveLength(1);
  });
});

describe('a delivery that comes again later', () => {
  it('is emitted once: the retry is answered by the first read', async () => {
    const svc = await cache();
    expect(await perform(svc.url, delivery(event('certificate.sent'), { deliveryId: 'whd_retry' }), 'certificate_sent')).toHaveLength(1);
    const before = svc.calls.length;
    expect(await perform(svc.url, delivery(event('certificate.sent'), { deliveryId: 'whd_retry' }), 'certificate_sent')).toEqual([]);
    expect(svc.calls.slice(before).map((c) => c.method)).toEqual(['zcache_get']);
  });
});

describe('a certificate that bounces again after a re-send', () => {
  it('emits the second failure once; a late copy of the first is ignored', async () => {
    const svc = await cache();
    const first = event('certificate.failed', { emailStatus: 'failed', emailSentAt: null });
    const second = { ...first, id: 'whe_2', createdAt: '2025-06-02T10:16:00.000Z' };
    expect(await perform(svc.url, delivery(first, { deliveryId: 'whd_bounce1' }), 'certificate_failed')).toHaveLength(1);
    expect(await perform(svc.url, delivery(second, { deliveryId: 'whd_bounce2' }), 'certificate_failed')).toHaveLength(1);
    expect(await perform(svc.url, delivery(second, { deliveryId: 'whd_bounce2' }), 'certificate_failed')).toEqual([]);
    expect(await perform(svc.url, delivery(first, { deliveryId: 'whd_bounce1' }), 'certificate_failed')).toEqual([]);
  });
});

describe('when the cache does not hold the claim', () => {
  it('a refused set (Zapier answers false past its cache rate limit) with no key stored still emits', async () => {
    const svc = await cache({ refuseSets: true });
    const e = event('certificate.issued');
    expect(await perform(svc.url, delivery(e, { deliveryId: 'whd_refused' }))).toHaveLength(1);
    // It read the key back to tell "someone else claimed it" from "nothing was stored".
    expect(svc.calls.map((c) => c.method)).toEqual(['zcache_get', 'zcache_set', 'zcache_get']);
    // The claim of an issued event is its certificate id (claimKey).
    expect(logs.join('\n')).toMatch(new RegExp(`${e.data.id} skipped: the cache did not store the claim`));
  });

  it('a set that stored the claim but answers otherwise (say, "OK") is recognised by its own value', async () => {
    const svc = await cache({ storedAnswer: 'OK', rendezvous: true });
    const e = event('certificate.issued');
    const copy = () => delivery(e, { deliveryId: 'whd_ok' });
    const results = await Promise.all([perform(svc.url, copy()), perform(svc.url, copy())]);
    expect(results.map((items) => items.length).sort()).toEqual([0, 1]);
    expect(logs.join('\n')).not.toMatch(/did not store the claim/);
  });

  it('a failing cache service still emits: a possible duplicate beats a lost event', async () => {
    const svc = await cache({ broken: true });
    expect(await perform(svc.url, delivery(event('certificate.issued'), { deliveryId: 'whd_broken' }))).toHaveLength(1);
  });
});
