// The DeliveryStore contract (shared/sdk/src/webhooks/store.ts), one table of cases run over
// every store: memoryStore and fileStore (contract.test.ts), redisStore with node-redis and
// ioredis, and postgresStore (contract.e2e.test.ts). Each store is opened twice on one backing
// (`a` and `b`: two processes' store objects; memoryStore, one process, is one object), with a
// short pendingMs and keep, and a clock: ours (stepped) where the store reads ours, the server's
// (waited for) where it reads its own.
import { handleDelivery, signPayload, type DeliveryStore, type WebhookEvent } from '@certificate-service/sdk';
import { claimOccurrence } from '../../../shared/sdk/src/webhooks/store';
import { recipient } from '../helpers';

export interface StoreUnderTest {
  a: DeliveryStore;
  b: DeliveryStore;
  /** Lets `ms` pass on the store's clock. */
  pass(ms: number): Promise<void>;
}

export interface StoreKind {
  name: string;
  /** Keys are kept `keepDays` (false: memoryStore keeps the last maxSize instead). */
  keepsDays: boolean;
  open(options: { pendingMs: number; keepDays: number }): Promise<StoreUnderTest>;
}

/** Short enough for a real clock, long enough for a few round trips on a loaded machine (1 s was not, at load 8: a claim expired between two calls). */
export const PENDING_MS = 3_000;
export const KEEP_MS = 6_000;
const DAY_MS = 86_400_000;

let unique = 0;
const key = (what: string) => `${what}-${process.pid}-${Date.now()}-${unique++}`;

export function storeContract(kind: StoreKind): void {
  let s: StoreUnderTest;
  beforeEach(async () => {
    s = await kind.open({ pendingMs: PENDING_MS, keepDays: KEEP_MS / DAY_MS });
  });

  test('claim is one atomic step: of 40 claims of one key at once, from two store objects, exactly one is taken', async () => {
    const k = key('race');
    // A pending time no loaded machine outlasts: every claim here must find the first one pending.
    const { a, b } = await kind.open({ pendingMs: 60_000, keepDays: 1 });
    const states = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).claim(k, `attempt-${i}`)));
    expect(states.filter((x) => x === 'taken')).toHaveLength(1);
    expect(states.filter((x) => x === 'pending')).toHaveLength(39);
  });

  test('free → taken; pending → pending (from either object) until settled; done → done', async () => {
    const k = key('states');
    expect(await s.a.claim(k, 'first')).toBe('taken');
    expect([await s.a.claim(k, 'second'), await s.b.claim(k, 'third')]).toEqual(['pending', 'pending']);
    await s.a.settle(k, true, undefined, 'first');
    expect([await s.a.claim(k, 'fourth'), await s.b.claim(k, 'fifth')]).toEqual(['done', 'done']);
  });

  test('settle(false) by the attempt that holds it frees the key; after done it changes nothing', async () => {
    const k = key('release');
    expect(await s.a.claim(k, 'first')).toBe('taken');
    await s.a.settle(k, false, undefined, 'first');
    expect(await s.b.claim(k, 'second')).toBe('taken');
    await s.b.settle(k, true, undefined, 'second');
    await s.b.settle(k, false, undefined, 'second');
    expect(await s.a.claim(k, 'third')).toBe('done');
  });

  test('a pending claim expires after pendingMs; the late first attempt cannot release the newer claim, but its settle(true) still counts', async () => {
    const k = key('stale');
    expect(await s.a.claim(k, 'old')).toBe('taken');
    await s.pass(PENDING_MS / 3);
    expect(await s.b.claim(k, 'other')).toBe('pending');
    await s.pass(PENDING_MS + 100);
    expect(await s.b.claim(k, 'new')).toBe('taken');
    await s.a.settle(k, false, undefined, 'old'); // stale: its claim expired
    expect(await s.a.claim(k, 'third')).toBe('pending');
    await s.a.settle(k, true, 7, 'old'); // handled after all: done, whatever happened meanwhile
    expect(await s.b.claim(k, 'fourth')).toBe('done');
    expect(await s.b.doneAt!(k)).toBe(7);
  });

  test('doneAt: the `at` recorded by settle(true); undefined when pending, unknown, or done without one', async () => {
    const [k1, k2, k3] = [key('at'), key('no-at'), key('unknown')];
    expect(await s.a.claim(k1, 'x')).toBe('taken');
    expect(await s.b.doneAt!(k1)).toBeUndefined();
    await s.a.settle(k1, true, 1_764_000_000_123, 'x');
    expect(await s.b.doneAt!(k1)).toBe(1_764_000_000_123);
    expect(await s.a.claim(k2, 'y')).toBe('taken');
    await s.a.settle(k2, true, undefined, 'y');
    expect(await s.b.doneAt!(k2)).toBeUndefined();
    expect(await s.b.doneAt!(k3)).toBeUndefined();
  });

  if (kind.keepsDays) {
    test('a done key is kept keepDays, then free again', async () => {
      const k = key('keep');
      expect(await s.a.claim(k, 'x')).toBe('taken');
      await s.a.settle(k, true, 5, 'x');
      await s.pass(KEEP_MS / 3);
      expect(await s.b.claim(k, 'y')).toBe('done');
      await s.pass(KEEP_MS);
      expect(await s.b.doneAt!(k)).toBeUndefined();
      expect(await s.b.claim(k, 'z')).toBe('taken');
    });
  }

  describe('through handleDelivery', () => {
    const SECRET = 'wh_sec_contract';
    const T = Date.now() - 3_600_000;
    const failed = (id: string, createdAt: number): WebhookEvent =>
      ({ id: `whe_${createdAt}`, type: 'certificate.failed', createdAt: new Date(createdAt).toISOString(), data: { ...recipient(1), id, emailStatus: 'failed', emailSentAt: new Date(T).toISOString() } }) as unknown as WebhookEvent;
    const deliver = async (store: DeliveryStore, event: WebhookEvent, deliveryId: string, settle = true) => {
      const body = JSON.stringify(event);
      const r = await handleDelivery(body, { ...signPayload(SECRET, body), 'X-Service-Delivery': deliveryId }, { secrets: SECRET, store });
      if (r.outcome === 'accepted' && settle) await r.settle(true);
      return r;
    };

    test('a copy that arrives while the first is pending is `pending` (answered 503); after the first settles, a duplicate', async () => {
      const event = failed(key('rec'), T + 60_000);
      const first = await deliver(s.a, event, 'whd_1', false);
      expect(first.outcome).toBe('accepted');
      expect((await deliver(s.b, event, 'whd_1')).outcome).toBe('pending');
      await (first as { settle(ok: boolean): Promise<void> }).settle(true);
      expect((await deliver(s.b, event, 'whd_1')).outcome).toBe('duplicate');
    });

    test('claimOccurrence: a second bounce after a re-send runs once; copies of each bounce and a late copy of the first are duplicates', async () => {
      const id = key('rec');
      expect((await deliver(s.a, failed(id, T + 60_000), 'whd_1')).outcome).toBe('accepted');
      expect((await deliver(s.b, failed(id, T + 60_000), 'whd_1')).outcome).toBe('duplicate');
      expect((await deliver(s.b, failed(id, T + 7_200_000), 'whd_2')).outcome).toBe('accepted');
      expect((await deliver(s.a, failed(id, T + 7_200_000), 'whd_2')).outcome).toBe('duplicate');
      expect((await deliver(s.a, failed(id, T + 60_000), 'whd_1')).outcome).toBe('duplicate');
      // The second bounce is its own claim, made with the first claim's attempt token.
      const again = await claimOccurrence(s.b, `${id}:failed:${T}`, { at: T + 9_000_000, recovered: false });
      expect(again).toMatchObject({ key: `${id}:failed:${T}@${T + 9_000_000}`, state: 'taken' });
    });
  });
}
