// A poll's and a recovery's settings, checked once in the core (poll/settings.ts): one row per
// rule, each naming the field, and in the host's name for it when the host gives one (n8n's
// "Batch", the CLI's "--events"). The client runs the same checks (poll.test.ts, recover.test.ts).
import { checkPollSettings, checkRecoverSettings, CertificateServiceError, DEFAULT_BUDGET, type PollSettingsInput } from '@certificate-service/sdk/core';

const DAY = 24 * 60 * 60 * 1000;

function refusal(check: () => unknown): { code: string; field?: string; message: string } {
  try {
    check();
  } catch (error) {
    if (!(error instanceof CertificateServiceError)) throw error;
    return { code: String(error.code), field: error.field, message: error.message };
  }
  throw new Error('accepted');
}

describe('checkPollSettings', () => {
  test('the defaults, and a batch trimmed once', () => {
    expect(checkPollSettings({ batchId: '  batch_1 ', event: 'sent' })).toEqual({
      batchId: 'batch_1',
      event: 'sent',
      firstPoll: 0,
      pageSize: 100,
      budget: DEFAULT_BUDGET,
      remember: true,
      windowMs: 7 * DAY,
    });
    // Every active batch: no batchId key, none checked.
    expect(checkPollSettings({ event: 'issued', firstPoll: 1000, pageSize: 1, budget: 100, remember: false, windowDays: 365 })).toEqual({
      event: 'issued',
      firstPoll: 1000,
      pageSize: 1,
      budget: 100,
      remember: false,
      windowMs: 365 * DAY,
    });
  });

  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ['an empty batch', { batchId: '  ', event: 'issued' }, 'batchId', /choose the batch/],
    ['a batch that is no string', { batchId: 7, event: 'issued' }, 'batchId', /choose the batch/],
    ['viewed (no list says when)', { event: 'viewed' }, 'event', /must be one of issued, sent, failed; got "viewed"/],
    ['remember as a string', { event: 'issued', remember: 'yes' }, 'remember', /true or false/],
    ['firstPoll below 0', { event: 'issued', firstPoll: -1 }, 'firstPoll', /from 0 to 1000; got -1/],
    ['firstPoll above 1000', { event: 'issued', firstPoll: 1001 }, 'firstPoll', /from 0 to 1000/],
    ['a page size of 0', { event: 'issued', pageSize: 0 }, 'pageSize', /from 1 to 100/],
    ['a page size of 101', { event: 'issued', pageSize: 101 }, 'pageSize', /from 1 to 100/],
    ['a budget of 1 (a walk needs two)', { event: 'issued', budget: 1 }, 'budget', /from 2 to 100; got 1/],
    ['a budget of 2.5', { event: 'issued', budget: 2.5 }, 'budget', /whole number/],
    ['a window of 0 days', { event: 'sent', windowDays: 0 }, 'windowDays', /from 1 to 365; got 0/],
    ['a window of 366 days', { event: 'failed', windowDays: 366 }, 'windowDays', /from 1 to 365/],
  ])('%s: a VALIDATION_ERROR naming the field', (_rule, options, field, problem) => {
    const error = refusal(() => checkPollSettings(options as unknown as PollSettingsInput));
    expect(error).toEqual({ code: 'VALIDATION_ERROR', field, message: expect.stringMatching(problem) });
    expect(error.message.startsWith(`Invalid "${field}": `)).toBe(true);
  });

  test("a host's names for the fields are the ones its errors name", () => {
    expect(refusal(() => checkPollSettings({ batchId: '', event: 'issued' }, { batchId: 'Batch' }))).toMatchObject({ field: 'Batch', message: 'Invalid "Batch": choose the batch whose certificates are watched' });
    expect(refusal(() => checkPollSettings({ event: 'issued', budget: 0 }, { batchId: 'Batch' }))).toMatchObject({ field: 'budget' });
  });
});

describe('checkRecoverSettings', () => {
  const now = Date.parse('2026-11-27T08:00:00Z');

  test('the defaults; since as a Date, ms or ISO; events and batches distinct, batches trimmed', () => {
    expect(checkRecoverSettings({ since: '2026-11-25T08:00:00Z' })).toEqual({ since: now - 2 * DAY, events: ['issued', 'sent', 'failed'], batches: undefined });
    expect(checkRecoverSettings({ since: new Date(now), events: ['sent', 'sent'], batches: [' b1', 'b1', 'b2'] })).toEqual({ since: now, events: ['sent'], batches: ['b1', 'b2'] });
    expect(checkRecoverSettings({ since: now }, {}, now).since).toBe(now);
  });

  test('until: a Date, ms or ISO, not before since (the same instant is an empty window); after now it is the present', () => {
    expect(checkRecoverSettings({ since: now - DAY, until: '2026-11-27T08:00:00Z' }).until).toBe(now);
    expect(checkRecoverSettings({ since: now, until: new Date(now) }, {}, now).until).toBe(now);
    expect(checkRecoverSettings({ since: now, until: now + DAY }, {}, now).until).toBe(now + DAY);
    expect(checkRecoverSettings({ since: now }).until).toBeUndefined();
  });

  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ['since no time', { since: 'last week' }, 'since', /must be a time.*got "last week"/],
    ['since missing', {}, 'since', /must be a time/],
    ['since after now (a host passed its clock)', { since: now + 1 }, 'since', /2026-11-27T08:00:00.001Z is in the future/],
    ['viewed', { since: 0, events: ['issued', 'viewed'] }, 'events', /viewed cannot be recovered/],
    ['certificate.viewed', { since: 0, events: ['certificate.viewed'] }, 'events', /viewed cannot be recovered/],
    ['no events', { since: 0, events: [] }, 'events', /must be some of issued, sent, failed/],
    ['an unknown event', { since: 0, events: ['opened'] }, 'events', /got \["opened"\]/],
    ['until no time', { since: 0, until: 'tomorrow' }, 'until', /must be a time.*got "tomorrow"/],
    ['until null', { since: 0, until: null }, 'until', /must be a time/],
    ['until before since', { since: now, until: now - 1 }, 'until', /^Invalid "until": 2026-11-27T07:59:59.999Z is before since \(2026-11-27T08:00:00.000Z\)/],
    ['batches not a list', { since: 0, batches: 'b1' }, 'batches', /a list of batch ids/],
    ['an empty list of batches', { since: 0, batches: [] }, 'batches', /a list of batch ids/],
  ])('%s: a VALIDATION_ERROR naming the field', (_rule, options, field, problem) => {
    expect(refusal(() => checkRecoverSettings(options as never, {}, now))).toEqual({ code: 'VALIDATION_ERROR', field, message: expect.stringMatching(problem) });
  });

  test('a blank batch id names its place in the list', () => {
    expect(refusal(() => checkRecoverSettings({ since: 0, batches: ['b1', ' '] }))).toMatchObject({ field: 'batches[1]' });
    expect(refusal(() => checkRecoverSettings({ since: 0, batches: ['b1', ' '] }, { batches: '--batch' }))).toMatchObject({ field: '--batch[1]' });
  });

  test('without a clock the client leaves the future to the service (its clock, not this machine\'s)', () => {
    expect(checkRecoverSettings({ since: Date.now() + DAY }).since).toBeGreaterThan(Date.now());
  });

  test("the CLI's names: its flags", () => {
    const flags = { since: '--since', events: '--events', batches: '--batch' };
    expect(refusal(() => checkRecoverSettings({ since: 0, events: ['viewed' as never] }, flags))).toMatchObject({ field: '--events', message: expect.stringMatching(/^Invalid "--events": viewed cannot be recovered/) });
    expect(refusal(() => checkRecoverSettings({ since: now + DAY }, flags, now))).toMatchObject({ field: '--since' });
    expect(refusal(() => checkRecoverSettings({ since: now, until: now - DAY }, { ...flags, until: '--until' }, now))).toMatchObject({ field: '--until', message: expect.stringMatching(/is before --since \(/) });
  });
});
