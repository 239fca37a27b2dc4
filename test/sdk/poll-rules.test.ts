// The pure rules of a poll (shared/sdk/src/occurrence.ts, poll/rules.ts, poll/state.ts), table by
// table: what a listed certificate stands for, the verdict on it, the order a read shows, the
// bounds of a walk, how long a key is kept, the service's clock, and the stored state: checked
// field by field, pruned.
import { CertificateServiceError, type Recipient } from '@certificate-service/sdk/core';
import { bounds, DAY_MS, END_OF_TIME, judge, keepUntil, latestTime, newestFirst, orderAfter, serviceTime, type Judge } from '../../shared/sdk/src/poll/rules';
import { occurrence, occurrenceKey, type Occurrence } from '../../shared/sdk/src/occurrence';
import { MAX_KNOWN, prune, readState } from '../../shared/sdk/src/poll/state';
import { recipientFixture } from '../support/recipient';

const T = Date.parse('2026-11-25T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const rec = (n: number, over: Partial<Recipient> = {}) => recipientFixture(n, { createdAt: iso(T + n * 1000), ...over });
const occ = (key: string, created: number, at?: number): Occurrence => ({ key, created, ...(at === undefined ? {} : { at }), recipient: rec(1, { id: key }) });

describe('occurrence: what a listed certificate stands for', () => {
  test.each<[string, 'issued' | 'sent' | 'failed', Partial<Recipient>, string, number | undefined]>([
    ['issued: the certificate, at its createdAt', 'issued', {}, 'rec_1', T + 1000],
    ['sent: each send, at emailSentAt (in ms)', 'sent', { emailStatus: 'sent', emailSentAt: iso(T + 5000) }, `rec_1:sent:${T + 5000}`, T + 5000],
    ['sent: the same send to the second or in another zone is one key', 'sent', { emailStatus: 'sent', emailSentAt: '2026-11-25T11:00:05+01:00' }, `rec_1:sent:${T + 5000}`, T + 5000],
    ['failed after a send: one per successful send, no time', 'failed', { emailStatus: 'failed', emailSentAt: iso(T) }, `rec_1:failed:${T}`, undefined],
    ['failed, never sent: one per certificate', 'failed', { emailStatus: 'failed', emailSentAt: null }, 'rec_1:failed', undefined],
  ])('%s', (_name, event, over, key, at) => {
    const o = occurrence(event, rec(1, over), 0);
    expect([o.key, o.at, o.created]).toEqual([key, at, T + 1000]);
    expect(occurrenceKey(event, rec(1, over))).toBe(key);
  });

  test.each<[string, 'issued' | 'sent', Partial<Recipient>, RegExp]>([
    ['no createdAt', 'issued', { createdAt: undefined as unknown as string }, /item 3\) .*createdAt/],
    ['a createdAt that is no time', 'issued', { createdAt: 'yesterday' }, /createdAt/],
    ['a sent item whose emailSentAt is no time', 'sent', { emailSentAt: 'soon' }, /emailSentAt/],
    ['a sent item without emailSentAt', 'sent', { emailSentAt: null }, /emailSentAt/],
  ])('an unreadable time makes the list unreadable: %s', (_name, event, over, message) => {
    const error = (() => {
      try {
        occurrence(event, rec(1, over), 3);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CertificateServiceError);
    expect((error as CertificateServiceError).code).toBe('UNEXPECTED_RESPONSE');
    expect((error as Error).message).toMatch(message);
  });
});

describe("the service's clock", () => {
  test.each<[string | undefined, number | undefined]>([
    ['Wed, 25 Nov 2026 10:00:07 GMT', T + 7000],
    [undefined, undefined],
    ['not a date', undefined],
  ])('Date %s', (date, expected) => expect(serviceTime(date)).toBe(expected));

  test('without one: the latest time on the page (its event time, else createdAt)', () => {
    expect(latestTime([occ('a', T + 1, T + 9), occ('b', T + 5)])).toBe(T + 9);
    expect(latestTime([])).toBeUndefined();
  });
});

describe('orderAfter: the order a read shows', () => {
  const distinct = (n: number, step: number) => Array.from({ length: n }, (_, i) => T + i * step);
  const ties = (counts: number[], step: number) => counts.flatMap((c, i) => Array.from({ length: c }, () => T + i * step));
  test.each<[string, number[], string | undefined, string | undefined]>([
    ['10 different values going down', distinct(10, -1), undefined, 'newest-first'],
    ['10 going up', distinct(10, 1), undefined, 'oldest-first'],
    ['9 are not enough (a list in no order reads so once in 181,440)', distinct(9, -1), undefined, undefined],
    ['two bulk calls of 100, each one createdAt', ties([100, 100], -1), undefined, 'newest-first'],
    ['one bulk call and one more: not enough', ties([100, 1], -1), undefined, undefined],
    ['all one value: no order yet', ties([150], 1), undefined, undefined],
    ['steps both ways: no order at all', [T, T + 2, T + 1], undefined, 'unordered'],
    ['a known order agreeing stays', [T + 2, T + 1], 'newest-first', 'newest-first'],
    ['a known order contradicted becomes unordered', [T + 1, T + 2], 'newest-first', 'unordered'],
    ['unordered stays unordered', distinct(20, -1), 'unordered', 'unordered'],
    ['nothing read keeps what was known', [], 'oldest-first', 'oldest-first'],
  ])('%s', (_name, created, known, expected) => {
    expect(orderAfter(created, known as never)).toBe(expected);
  });
});

describe('judge: new, noted, or skipped', () => {
  const base: Judge = { event: 'issued', known: new Map() };
  test.each<[string, Occurrence, Partial<Judge>, string]>([
    ['no floor (a batch never walked): new', occ('a', T), {}, 'new'],
    ['before the floor: skipped', occ('a', T, T), { floor: T + 1 }, 'skip'],
    ['at the floor, not known: new (a tie that grew)', occ('a', T, T), { floor: T }, 'new'],
    ['at the floor, known: skipped (the tie emitted once)', occ('a', T, T), { floor: T, known: new Map([['a', T]]) }, 'skip'],
    ['no time (failed), not known: new whatever the floor', occ('a:failed', T - DAY_MS), { floor: T }, 'new'],
    ['sent/failed created before the window: skipped', occ('a', T - 1, T + 5), { windowStart: T }, 'skip'],
    ['the first poll notes everything', occ('a', T, T), { noteBefore: END_OF_TIME }, 'note'],
    ['later polls of the first walk note what may have existed', occ('a', T, T + 999), { noteBefore: T + 1000 }, 'note'],
    ['and emit what was stamped after', occ('a', T, T + 1000), { noteBefore: T + 1000 }, 'new'],
    ['no time during the first walk: noted', occ('a:failed', T), { noteBefore: T + 1000 }, 'note'],
  ])('%s', (_name, o, j, verdict) => {
    expect(judge(o, { ...base, ...j })).toBe(verdict);
  });
});

describe('keepUntil: how long an accounted-for occurrence is remembered', () => {
  const W = 7 * DAY_MS;
  test.each<[string, 'issued' | 'sent' | 'failed', Occurrence, number]>([
    ['issued: until the floor passes its time', 'issued', occ('a', T, T), T],
    ['sent: until the floor passes its send', 'sent', occ('a', T, T + DAY_MS), T + DAY_MS],
    ['sent long after issue: until its window ends', 'sent', occ('a', T, T + 9 * DAY_MS), T + W],
    ['failed: until its window ends', 'failed', occ('a', T), T + W],
  ])('%s', (_name, event, o, keep) => expect(keepUntil(o, event, W)).toBe(keep));
});

describe('bounds of a walk', () => {
  const W = 7 * DAY_MS;
  test.each<[string, 'issued' | 'sent', number | undefined, number | undefined, boolean, object]>([
    ['issued, a floor: judged and read down to it', 'issued', T, T + 5000, false, { floor: T, region: T }],
    ['issued, the first walk: its own start', 'issued', undefined, T + 5000, true, { floor: T + 5000, region: T + 5000 }],
    ['issued, a batch never walked: everything', 'issued', undefined, T + 5000, false, { region: -Infinity }],
    ['sent: the window reaches back from the floor', 'sent', T, T + 5000, false, { floor: T, windowStart: T - W, region: T - W }],
    ['sent, a batch never walked: the window from the walk start, no floor', 'sent', undefined, T + 5000, false, { windowStart: T + 5000 - W, region: T + 5000 - W }],
  ])('%s', (_name, event, floor, since, initial, expected) => expect(bounds(event, floor, since, initial, W)).toEqual(expected));
});

test('newestFirst: by event time, then createdAt', () => {
  const list = [occ('a', T, T + 5), occ('b', T + 9), occ('c', T + 1, T + 5), occ('d', T + 2)];
  expect(newestFirst(list).map((o) => o.key)).toEqual(['b', 'c', 'a', 'd']);
});

describe('readState: a stored state, checked field by field', () => {
  test.each<[string, unknown, string]>([
    ['not an object', 'x', 'state'],
    ['a list', [], 'state'],
    ['an unknown version', { v: 3, known: [] }, 'state.v'],
    ['no version (nothing before v2 was published)', { known: [] }, 'state.v'],
    ['known not pairs', { v: 2, known: ['rec_1'] }, 'state.known'],
    ['known with a bad time', { v: 2, known: [['rec_1', 'soon']] }, 'state.known'],
    ['too many known', { v: 2, known: Array.from({ length: MAX_KNOWN + 1 }, (_, i) => [`k${i}`, 1]) }, 'state.known'],
    ['a bad floor', { v: 2, known: [], floor: '2026' }, 'state.floor'],
    ['an unknown order', { v: 2, known: [], order: 'random' }, 'state.order'],
    ['a walk without its place', { v: 2, known: [], walk: { at: { cursor: 5, ids: [] } } }, 'state.walk'],
    ['a walk with a bad time', { v: 2, known: [], walk: { since: 'now' } }, 'state.walk'],
    ['a walk with a bad noteBefore', { v: 2, known: [], walk: { since: T, noteBefore: '2026' } }, 'state.walk'],
    ['a walk with a field this release does not know (quiet, an earlier name of noteBefore)', { v: 2, known: [], walk: { since: T, quiet: T } }, 'state.walk.quiet'],
    ['a walk with a bad from', { v: 2, known: [], walk: { from: { cursor: 1 } } }, 'state.walk'],
    ['a bad from', { v: 2, known: [], from: { cursor: 7 } }, 'state.from'],
  ])('%s: an error naming %s', (_name, state, field) => {
    let error: unknown;
    try {
      readState(state);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CertificateServiceError);
    expect([(error as CertificateServiceError).code, (error as CertificateServiceError).field]).toEqual(['VALIDATION_ERROR', field]);
    expect((error as Error).message).toMatch(/reset the trigger's saved state|previous poll/);
  });

  test('none: undefined (a first poll); a good one as it is', () => {
    expect(readState(undefined)).toBeUndefined();
    expect(readState(null)).toBeUndefined();
    const good = { v: 2, order: 'oldest-first', floor: T, known: [['rec_1', T]], walk: { since: T, noteBefore: T + 1000, at: { cursor: 'c', ids: ['rec_1'] } }, from: { cursor: null } };
    expect(readState(good)).toEqual(good);
  });
});

test('a full state stays under 0.7 MB as JSON (n8n saves it with the workflow)', () => {
  const id = (i: number) => `rec_${i.toString(16).padStart(16, '0')}`;
  const page = { cursor: 'c'.repeat(200), ids: Array.from({ length: 100 }, (_, i) => id(i)) };
  const known = Array.from({ length: MAX_KNOWN }, (_, i) => [`${id(i)}:sent:2026-11-25T10:00:00.000Z`, T + i]);
  const state = { v: 2, order: 'newest-first', floor: T, known, walk: { since: T, at: page, back: page }, from: { cursor: 'c'.repeat(200), back: 'c'.repeat(200) } };
  expect(readState(state)).toBe(state);
  expect(JSON.stringify(state).length).toBeLessThan(700_000);
});

describe('prune', () => {
  test('what the floor passed is forgotten', () => {
    const known = new Map([['a', T - 1], ['b', T], ['c', T + 1]]);
    expect(prune(known, T)).toBe(0);
    expect([...known.keys()]).toEqual(['b', 'c']);
  });
  test(`over ${MAX_KNOWN}, the ones closest to expiring go, and how many is said`, () => {
    const known = new Map(Array.from({ length: MAX_KNOWN + 3 }, (_, i) => [`k${i}`, T + i] as [string, number]));
    expect(prune(known, undefined)).toBe(3);
    expect(known.size).toBe(MAX_KNOWN);
    expect(known.has('k0') || known.has('k2')).toBe(false);
    expect(known.has('k3')).toBe(true);
  });
});
