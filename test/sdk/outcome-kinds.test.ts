// Outcome kinds: hosts switch on the union with the core's assertNever in each `default:`, so a
// kind added to the union and forgotten fails `npm run typecheck` (the counts' records fail it
// too); here, the counts and the one report, and what assertNever says at run time.
import { assertNever, CertificateServiceError, countOutcomes, ISSUE_OUTCOME_KINDS, lineList, outcomeReport, type IssueOutcome, type Recipient } from '@certificate-service/sdk/core';

test('assertNever names the discriminant that came, and nothing else of the value', () => {
  const secretish = { kind: 'forgotten', recipient: { email: 'ada@example.com' } };
  expect(() => assertNever(secretish as never)).toThrow(/^Unhandled case: kind "forgotten"\./);
  expect(() => assertNever(secretish as never)).not.toThrow(/ada@example\.com/);
  expect(() => assertNever({ outcome: 'later' } as never)).toThrow('Unhandled case: outcome "later".');
  expect(() => assertNever('csv' as never)).toThrow('Unhandled case: "csv".');
  expect(() => assertNever({ id: 1 } as never)).toThrow('Unhandled case: an object with no kind, type or outcome (keys: id).');
  expect(() => assertNever({} as never)).toThrow('Unhandled case: an object with no kind, type or outcome (keys: none).');
  expect(() => assertNever(undefined as never)).toThrow('Unhandled case: undefined.');
});

test('every kind is counted, in the order hosts report them', () => {
  expect(ISSUE_OUTCOME_KINDS).toEqual(['issued', 'skipped', 'invalid', 'failed', 'unknown', 'notSent', 'refusedEarlier', 'unreadBatch']);
  expect(countOutcomes([])).toEqual({ issued: 0, skipped: 0, invalid: 0, failed: 0, unknown: 0, notSent: 0, refusedEarlier: 0, unreadBatch: 0, total: 0 });
});

test('the one report every host prints: held-over refusals and unread batches count as failed, a stopped run as not sent', () => {
  const error = (code: string, message: string) => new CertificateServiceError({ code, phase: 'validation', message });
  const recipient = { id: 'r', name: 'A', email: 'a@example.com', certificateId: 'c' } as Recipient;
  const outcomes: IssueOutcome[] = [
    { kind: 'issued', ok: true, recipient },
    { kind: 'skipped', ok: true, recipient, reason: 'inBatch' },
    { kind: 'invalid', ok: false, error: error('VALIDATION_ERROR', 'bad email') },
    { kind: 'failed', ok: false, error: error('BATCH_ARCHIVED', 'archived') },
    { kind: 'refusedEarlier', ok: false, error: error('BATCH_ARCHIVED', 'held'), because: 3 },
    { kind: 'unreadBatch', ok: false, error: error('UNKNOWN', 'unread'), batchId: 'b' },
    { kind: 'unknown', ok: false, error: error('UNKNOWN', 'no answer') },
    { kind: 'notSent', ok: false, error: error('NOT_SENT', 'stopped'), reason: 'cancelled' },
  ];
  const report = outcomeReport(outcomes);
  expect(report.counts).toEqual(countOutcomes(outcomes));
  expect(report.tally).toEqual({ total: 8, issued: 1, skipped: 1, invalid: 1, failed: 3, unknown: 1, notSent: 1 });
  expect(report.notIssued).toBe(6);
  expect(report.problems.map((p) => p.items)).toEqual([[2], [3], [4], [5], [6], [7]]);
  expect(report.sentence).toBe('Of 8 items, 1 certificate was issued, 1 skipped (already issued), 1 invalid, 3 failed, 1 with an unknown outcome and 1 not sent.');
});

test.each([
  [[4], 'line 4'],
  [[3, 4, 5], 'lines 3-5'],
  [[3, 5, 9], '3 lines (3, 5, 9)'],
  [[1, 3, 5, 7, 9, 11], '6 lines (1, 3, 5, 7, 9, …)'],
])('lineList(%j): %s, as every host names a problem\'s lines', (lines, said) => {
  expect(lineList(lines)).toBe(said);
});
