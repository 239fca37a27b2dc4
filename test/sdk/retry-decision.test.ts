// The retry policy as a table: one pure function of (method, attempt, result).
import { DEFAULT_RETRY, retryDecision, type AttemptResult } from '../../shared/sdk/src/retry';
import { reply, scripted, netError } from './scripted';

const net: AttemptResult = { kind: 'network', failure: 'NETWORK_ERROR' };
const timeout: AttemptResult = { kind: 'network', failure: 'TIMEOUT' };
const status = (s: number, retryAfterSeconds?: number): AttemptResult => ({ kind: 'status', status: s, retryAfterSeconds });

test.each<[string, string, boolean, number, number, AttemptResult, false | number]>([
  // method, safeToRepeat, attempt, waitedMs, result → false (stop) or the delay
  ['GET after a reset: backoff', 'GET', false, 0, 0, net, 500],
  ['GET after a timeout, 3rd attempt: doubled twice', 'GET', false, 2, 0, timeout, 2000],
  ['DELETE after a 503', 'DELETE', false, 0, 0, status(503), 500],
  ['POST (issue) after a reset: never repeated', 'POST', false, 0, 0, net, false],
  ['POST (issue) after a 500: never repeated', 'POST', false, 0, 0, status(500), false],
  ['PATCH after a 502: never repeated', 'PATCH', false, 0, 0, status(502), false],
  ['POST /auth (safe) after a reset', 'POST', true, 0, 0, net, 500],
  ['POST after a 429: refused, so repeated after Retry-After', 'POST', false, 0, 0, status(429, 7), 7000],
  ['GET after a 429 without Retry-After: 1 s', 'GET', false, 0, 0, status(429), 1000],
  ['GET after a 404: an answer, not retried', 'GET', false, 0, 0, status(404), false],
  ['GET after a 400', 'GET', false, 0, 0, status(400), false],
  ['GET after the last attempt', 'GET', false, DEFAULT_RETRY.maxRetries, 0, net, false],
  ['GET when the wait would pass maxWaitMs', 'GET', false, 0, DEFAULT_RETRY.maxWaitMs - 100, net, false],
  ['429 whose Retry-After is past maxWaitMs', 'POST', false, 0, 0, status(429, 121), false],
])('%s', (_name, method, safeToRepeat, attempt, waitedMs, result, expected) => {
  const decision = retryDecision({ method, safeToRepeat, attempt, waitedMs, result, options: DEFAULT_RETRY });
  expect(decision).toEqual(expected === false ? { retry: false } : { retry: true, delayMs: expected });
});

test("jitter is added to a 429's wait only", () => {
  expect(retryDecision({ method: 'GET', attempt: 0, waitedMs: 0, result: status(429, 2), options: DEFAULT_RETRY, jitterMs: 123 })).toEqual({ retry: true, delayMs: 2123 });
  expect(retryDecision({ method: 'GET', attempt: 0, waitedMs: 0, result: status(503), options: DEFAULT_RETRY, jitterMs: 123 })).toEqual({ retry: true, delayMs: 500 });
});

describe('a DELETE after an answer that may have been applied', () => {
  test.each([
    ['a 503', reply(503, { error: 'UNKNOWN', message: 'busy' })],
    ['a reset', netError('ECONNRESET')],
  ])('then a 404 on retry: done ("already deleted"), not NOT_FOUND (after %s)', async (_n, first) => {
    const s = scripted([first, reply(404, { error: 'NOT_FOUND', message: 'No such recipient' })]);
    await expect(s.client.deleteRecipient('b1', 'r1')).resolves.toEqual({ id: 'r1', batchId: 'b1', deleted: true, alreadyDeleted: true });
    expect(s.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
  });

  test('a first-attempt 404 is still NOT_FOUND', async () => {
    const s = scripted([reply(404, { error: 'NOT_FOUND', message: 'No such subscription' })]);
    await expect(s.client.deleteSubscription('whs_1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
