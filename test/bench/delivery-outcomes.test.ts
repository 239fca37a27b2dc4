// The per-delivery count P9 and R9 report: who answered each attempt, and why a delivery that
// never ran was lost (ours: answered "duplicate"; n8n's: refused first, or lost after its 2xx).
import { answerer, attemptLabel, lostDeliveries, releasedIds, type AttemptSeen } from '../support/delivery-outcomes';

const a = (eventId: string, status: number | undefined, answer = '', extra: Partial<AttemptSeen> = {}): AttemptSeen => ({
  deliveryId: `whd_${eventId}`,
  eventId,
  outcome: status && status < 300 ? 'succeeded' : 'retrying',
  ...(status === undefined ? { error: 'timeout: no response within 10000 ms' } : { status, answer }),
  ...extra,
});

test.each([
  [a('e', 200, '{"received":true,"duplicate":true}'), 'duplicate', '200 duplicate'],
  [a('e', 503, '{"error":"DELIVERY_PENDING","message":"Another attempt"}'), 'pending', '503 pending'],
  [a('e', 200, '{"received":true,"notCertificate":true}'), 'ours', '200 ours'],
  [a('e', 401, '{"error":"NO_MATCHING_SIGNATURE","message":"x"}'), 'ours', '401 ours'],
  [a('e', 200, '{"received":true}'), 'started', '200 started'],
  [a('e', 200, '{"message":"Workflow was started"}'), 'started', '200 started'],
  [a('e', 503, '{"code":503,"message":"Database is not ready!"}'), 'n8nRefused', '503 Database is not ready!'],
  [a('e', 500, '{"code":0,"message":"There was a problem executing the workflow"}'), 'n8nFailed', '500 There was a problem executing the workflow'],
  [a('e', 502, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>'), 'proxy', '502 proxy'],
  [a('e', undefined), 'none', 'timeout'],
  [{ ...a('e', undefined), error: 'ECONNRESET' }, 'none', 'ECONNRESET'],
] as const)('%j is answered by %s', (attempt, who, label) => {
  expect(answerer(attempt)).toBe(who);
  expect(attemptLabel(attempt)).toBe(label);
});

test('each lost delivery lands in one group, with its attempts as the why', () => {
  const events = ['ran', 'twice', 'dupNothingStored', 'dupAfterN8n2xx', 'sawStarted', 'refusedFirst', 'releasedOnly', 'timedOutOnly'];
  const runs = new Map([['ran', 1], ['twice', 2]]);
  const attempts = [
    a('ran', 200, '{"received":true}'),
    a('twice', 200, '{"received":true}'),
    // our code answered "duplicate", and n8n stored nothing: ours
    a('dupNothingStored', 500, '{"code":0,"message":"There was a problem executing the workflow"}'),
    a('dupNothingStored', 200, '{"received":true,"duplicate":true}'),
    // the sender timed out, n8n answered 2xx after storing it, a copy was a duplicate: n8n's
    a('dupAfterN8n2xx', undefined),
    a('dupAfterN8n2xx', 200, '{"received":true,"duplicate":true}'),
    a('sawStarted', 200, '{"received":true}'),
    a('refusedFirst', 503, '{"code":503,"message":"Database is not ready!"}'),
    a('refusedFirst', undefined),
    a('releasedOnly', undefined),
    a('timedOutOnly', undefined),
  ];
  const r = lostDeliveries(events, runs, attempts, { released: new Set(['whd_releasedOnly']), stored: new Set(['dupAfterN8n2xx', 'ran', 'twice']) });
  expect(r).toEqual({
    lost: 6,
    runTwice: 1,
    duplicateButNeverRan: 1,
    lostAfterN8n2xx: 2,
    neverReachedUs: 2,
    reachedUsNotRun: 1,
    why: {
      lostAfterN8n2xx: { timeout: 1, '200 duplicate': 1, '200 started': 1 },
      neverReachedUs: { '503 Database is not ready!': 1, timeout: 2 },
      reachedUsNotRun: { timeout: 1 },
    },
  });
});

test('Verify: a copy it dropped as a duplicate counts as answered "duplicate"', () => {
  const r = lostDeliveries(['e'], new Map(), [a('e', 200, '{"message":"Workflow was started"}', { deliveryId: 'whd_x' })], { droppedAsDuplicate: new Set(['whd_x']) });
  expect(r).toMatchObject({ lost: 1, lostAfterN8n2xx: 1, duplicateButNeverRan: 0 });
  const ours = lostDeliveries(['e'], new Map(), [a('e', undefined, '', { deliveryId: 'whd_y' })], { droppedAsDuplicate: new Set(['whd_y']) });
  expect(ours).toMatchObject({ lost: 1, duplicateButNeverRan: 1 });
});

test('the trigger\'s release lines name the delivery ids', () => {
  const logs = 'x\nCertificate Service Trigger: n8n answered 500 to delivery whd_1; the service will retry it, and the retry runs.\n' +
    'Certificate Service Trigger: n8n answered 503 to delivery whd_2; the service will retry it, and the retry runs.\n';
  expect([...releasedIds(logs)]).toEqual(['whd_1', 'whd_2']);
});
