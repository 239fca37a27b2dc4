/**
 * One rate budget per API key shared by several clients (n8n queue-mode workers): the
 * RateLimit-Remaining counter drops faster than our own requests explain, so the client stops
 * that many requests early and wakes with jitter, instead of running into 429s together.
 */
import { jitterMs, othersBetween } from '../../shared/sdk/src/rate-limit';
import { reply, scripted } from './scripted';

const limits = (remaining: number, reset = 30) => ({ 'RateLimit-Limit': '120', 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': String(reset) });
const WS = { workspaceId: 'ws_1', username: 'Demo' };

test.each([
  [{ remaining: 50 }, { remaining: 49 }, 0],
  [{ remaining: 50 }, { remaining: 47 }, 2],
  [{ remaining: 3 }, { remaining: 120 }, undefined], // a new window: cannot tell
  [{}, { remaining: 10 }, undefined],
])('othersBetween(%j, %j) = %s', (previous, next, expected) => {
  expect(othersBetween(previous, next)).toBe(expected);
});

test('jitterMs stays within 0..max', () => {
  expect(jitterMs(250, () => 0)).toBe(0);
  expect(jitterMs(250, () => 0.999)).toBe(249);
});

test('alone on its key, the client waits only when nothing remains (no jitter)', async () => {
  const s = scripted([reply(200, WS, limits(2)), reply(200, WS, limits(1)), reply(200, WS, limits(0, 12)), reply(200, WS, limits(119, 60))]);
  for (let i = 0; i < 4; i++) await s.client.auth();
  expect(s.sleeps).toEqual([12_000]);
});

test('sharing its key with 2 others, the client stops when no more remain than they use, and adds jitter', async () => {
  // Each of our responses shows the counter 3 lower: 2 requests of others per one of ours.
  const s = scripted([reply(200, WS, limits(11)), reply(200, WS, limits(8)), reply(200, WS, limits(5)), reply(200, WS, limits(2, 12)), reply(200, WS, limits(119, 60))]);
  for (let i = 0; i < 5; i++) await s.client.auth();
  expect(s.sleeps).toHaveLength(1);
  expect(s.sleeps[0]).toBeGreaterThanOrEqual(12_000);
  expect(s.sleeps[0]).toBeLessThan(12_250);
  expect(s.left()).toBe(0);
});
