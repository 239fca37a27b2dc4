// The retry schedule (1 m, 5 m, 30 m, 2 h, 12 h, 24 h; 7 attempts) in scaled time, what
// counts as a failure (non-2xx, network error, timeout), and when retrying stops.
import { verifyDelivery } from '../../shared/sdk/src/webhooks/verify';
import { createSandbox, MAX_ATTEMPTS, RETRY_DELAYS_MS, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { type Receiver, startReceiver } from '@certificate-service/sandbox/testing';

const TIME_SCALE = 0.00001; // 1 m -> 0.6 ms ... 24 h -> 864 ms
// Long enough that a busy machine's answer of 200 ms is in time; the hang test waits it once.
const TIMEOUT_MS = 1000;
let sb: Sandbox;
let api: Api;
const receivers: Receiver[] = [];

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, timeScale: TIME_SCALE, deliveryTimeoutMs: TIMEOUT_MS });
});
beforeEach(() => {
  api = new Api(sb.baseUrl, sb.controls.createWorkspace().apiKey);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => sb.close());

async function setup(respond: Parameters<typeof startReceiver>[0], url?: string) {
  const rx = await startReceiver(respond);
  receivers.push(rx);
  const sub = (await api.post('/webhooks/subscriptions', { url: url ?? rx.url, events: ['certificate.issued'] })).body;
  const test = (await api.post(`/webhooks/subscriptions/${sub.id}/test`)).body;
  const mine = () => sb.controls.deliveries().filter((d) => d.deliveryId === test.deliveryId);
  return { rx, sub, deliveryId: test.deliveryId as string, mine };
}

test('the schedule is 1 m, 5 m, 30 m, 2 h, 12 h, 24 h with 7 attempts', () => {
  expect(RETRY_DELAYS_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000, 86_400_000]);
  expect(MAX_ATTEMPTS).toBe(7);
});

test('a receiver that always fails gets 7 attempts at the scaled delays, then the delivery is failed', async () => {
  sb.controls.resetCounters();
  const { rx, sub, deliveryId, mine } = await setup(() => 500);
  await sb.controls.waitForDeliveries((log) => log.some((d) => d.deliveryId === deliveryId && d.outcome === 'failed'), 8000);

  const attempts = mine();
  expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(attempts.map((a) => a.outcome)).toEqual([...Array(6).fill('retrying'), 'failed']);
  expect(attempts.every((a) => a.status === 500)).toBe(true);

  // Each gap is at least its scheduled delay (timers never fire early; 2 ms for clock rounding)...
  const gaps = attempts.slice(1).map((a, i) => a.atMs - attempts[i].atMs);
  gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i] * TIME_SCALE - 2));
  // ...the long ones clearly grow in order, and none is wildly late.
  expect(gaps[3]).toBeLessThan(gaps[4]);
  expect(gaps[4]).toBeLessThan(gaps[5]);
  expect(gaps[5]).toBeLessThan(RETRY_DELAYS_MS[5] * TIME_SCALE + 1000);

  // Every attempt carries the same delivery id and a fresh, valid signature.
  expect(rx.received).toHaveLength(7);
  expect(new Set(rx.received.map((r) => r.headers['x-service-delivery']))).toEqual(new Set([deliveryId]));
  for (const r of rx.received) expect(() => verifyDelivery(r.rawBody, r.headers, sub.secret)).not.toThrow();

  expect(sb.controls.counters().deliveries).toEqual({ attempted: 7, succeeded: 0, failed: 1, pending: 0 });
  // The subscription itself stays (only 410 unsubscribes).
  expect((await api.get(`/webhooks/subscriptions/${sub.id}`)).status).toBe(200);
});

test('non-2xx and dropped connections are retried; the first 2xx ends the delivery', async () => {
  const { deliveryId, mine, rx } = await setup((_, i) => (i === 0 ? 503 : i === 1 ? 'reset' : i === 2 ? 301 : 204));
  await sb.controls.waitForDeliveries((log) => log.some((d) => d.deliveryId === deliveryId && d.outcome === 'succeeded'));
  await new Promise((r) => setTimeout(r, 50)); // longer than the next scheduled retry would be
  const attempts = mine();
  expect(attempts.map((a) => a.status ?? a.error)).toEqual([503, 'ECONNRESET', 301, 204]);
  expect(attempts.map((a) => a.outcome)).toEqual(['retrying', 'retrying', 'retrying', 'succeeded']);
  expect(rx.received).toHaveLength(4);
});

test('no answer within the timeout counts as a failure and is retried', async () => {
  const { deliveryId, mine } = await setup((_, i) => (i === 0 ? 'hang' : 200));
  await sb.controls.waitForDeliveries((log) => log.some((d) => d.deliveryId === deliveryId && d.outcome === 'succeeded'));
  const [first, second] = mine();
  expect(first.error).toMatch(/timeout/);
  expect(first.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
  expect(first.outcome).toBe('retrying');
  expect(second).toMatchObject({ attempt: 2, status: 200, outcome: 'succeeded' });
});

test('a slow but in-time answer is a success', async () => {
  const { deliveryId, mine } = await setup(() => ({ status: 200, delayMs: 200 }));
  await sb.controls.waitForDeliveries((log) => log.some((d) => d.deliveryId === deliveryId));
  expect(mine()).toEqual([expect.objectContaining({ attempt: 1, status: 200, outcome: 'succeeded' })]);
});

test('connection refused is retried, and deleting the subscription stops the retries', async () => {
  // Its own sandbox, at a time scale where the 4th retry waits 720 ms (2 h): the deletion lands
  // well before it even on a busy machine, and the 5th (12 h, 4.3 s) is never reached.
  const slow = await createSandbox({ rateLimit: false, timeScale: 0.0001 });
  try {
    const own = new Api(slow.baseUrl, slow.controls.createWorkspace().apiKey);
    // Port 1 is privileged and unused: nothing can start listening there during the test.
    const sub = (await own.post('/webhooks/subscriptions', { url: 'http://127.0.0.1:1/hook', events: ['certificate.issued'] })).body;
    const { deliveryId } = (await own.post(`/webhooks/subscriptions/${sub.id}/test`)).body as { deliveryId: string };
    const mine = () => slow.controls.deliveries().filter((d) => d.deliveryId === deliveryId);
    await slow.controls.waitForDeliveries((log) => log.filter((d) => d.deliveryId === deliveryId).length >= 3, 8000);
    expect(mine()[0]).toMatchObject({ error: 'ECONNREFUSED', outcome: 'retrying' });
    expect((await own.delete(`/webhooks/subscriptions/${sub.id}`)).status).toBe(204);
    const countAtDelete = mine().length;
    await new Promise((r) => setTimeout(r, 1200)); // past the 720 ms retry that the deletion cancelled
    expect(mine().length).toBeLessThanOrEqual(countAtDelete + 1); // at most one attempt was already in flight
    expect(mine().length).toBeLessThan(MAX_ATTEMPTS);
    expect(slow.controls.counters().deliveries).toMatchObject({ failed: 1, pending: 0 });
  } finally {
    await slow.close();
  }
});
