import { validationError } from '../errors';
import type { ListOrder } from './rules';

// What a poll leaves for the next one (the host stores it: n8n static data, Zapier's cache),
// and how a stored one is checked. Pure.

/** Where a read can go on: the cursor that fetched a page (null: the first page) and that page's ids. */
export type Place = { cursor: string | null; ids: string[] };

/** Oldest first: the cursor of a page that begins before a region, and the one before it. */
export type From = { cursor: string | null; back?: string | null };

/** A walk of the list the budget left unfinished; the next poll goes on with it. */
export interface Walk {
  /** The service's clock when the walk began (ms): the floor once it is done. */
  since?: number;
  /** The service sent no readable `Date`: `since` is the latest time read (rules.ts latestTime). */
  guessed?: true;
  /**
   * Only in the first walk (the trigger's activation): an occurrence with no time, or stamped
   * before this (ms), is noted (made known, not emitted): it may have existed when the trigger
   * began. The first poll notes all it reads (rules.ts END_OF_TIME); if the walk goes on, later
   * polls emit what was stamped from the second after the service's first answer (`Date` is to
   * the second), or still nothing when the service gave no clock (run.ts). Its presence also makes
   * the walk's start its floor (rules.ts bounds).
   */
  noteBefore?: number;
  /** The last page read (absent: none yet), and the one before it (to step back to when the list shifted). */
  at?: Place;
  back?: Place;
  /** Oldest first: the last page read that begins before the next walk's region (its `from`). */
  from?: From;
}

/** JSON-safe and bounded: the host stores it as it is. */
export interface PollState {
  v: 2;
  /** Detected from `createdAt`; absent while not known. */
  order?: ListOrder;
  /** Every occurrence before this time (ms) is known; absent: none is (a batch never walked). */
  floor?: number;
  /** Known occurrences that could still be read again: [key, keep until (ms)], at most MAX_KNOWN. */
  known: [string, number][];
  /** A walk in progress. */
  walk?: Walk;
  /** Oldest first: the page the next walk starts at (it begins before the region still to read). */
  from?: From;
}

/**
 * The most known occurrences a state keeps. Only what could be read again is kept: for issued and
 * sent, what happened since the previous walk began; for failed (no time), the failures inside the
 * window. 10,000 keep n8n's static data under 0.7 MB of JSON (poll-rules.test.ts).
 */
export const MAX_KNOWN = 10_000;

/** Drops the known occurrences the floor has passed; over MAX_KNOWN, those closest to expiring. Returns how many over the cap went. */
export function prune(known: Map<string, number>, floor: number | undefined): number {
  if (floor !== undefined) for (const [key, keep] of known) if (keep < floor) known.delete(key);
  const over = known.size - MAX_KNOWN;
  if (over <= 0) return 0;
  for (const [key] of [...known].sort((a, b) => a[1] - b[1]).slice(0, over)) known.delete(key);
  return over;
}

const ORDERS: readonly ListOrder[] = ['newest-first', 'oldest-first', 'unordered'];
/** Every field of a Walk (the compiler checks the list is whole). */
const WALK_FIELDS = Object.keys({ since: 0, guessed: 0, noteBefore: 0, at: 0, back: 0, from: 0 } satisfies Record<keyof Walk, 0>);

/** A stored state, checked: a damaged one is an error naming the field, never "nothing new". */
export function readState(state: unknown, field = 'state'): PollState | undefined {
  if (state === undefined || state === null) return undefined;
  if (typeof state !== 'object' || Array.isArray(state)) throw validationError(field, 'must be the object a previous poll returned');
  const s = state as Record<string, unknown>;
  const bad = (key: string, what: string) => validationError(`${field}.${key}`, `must be ${what}; reset the trigger's saved state`);
  if (s.v !== 2) throw bad('v', 'a state version this release knows (2)');
  const time = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  const cursor = (v: unknown) => v === null || typeof v === 'string';
  const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object';
  const place = (v: unknown) => obj(v) && cursor(v.cursor) && Array.isArray(v.ids) && v.ids.every((id) => typeof id === 'string');
  const from = (v: unknown) => obj(v) && cursor(v.cursor) && (v.back === undefined || cursor(v.back));
  if (s.order !== undefined && !ORDERS.includes(s.order as ListOrder)) throw bad('order', `one of ${ORDERS.join(', ')}`);
  if (s.floor !== undefined && !time(s.floor)) throw bad('floor', 'a time in milliseconds');
  if (!Array.isArray(s.known) || !s.known.every((k) => Array.isArray(k) && k.length === 2 && typeof k[0] === 'string' && time(k[1]))) {
    throw bad('known', 'a list of [key, time] pairs');
  }
  if (s.known.length > MAX_KNOWN) throw bad('known', `at most ${MAX_KNOWN} pairs`);
  const walk = (w: Record<string, unknown>) =>
    [w.at, w.back].every((p) => p === undefined || place(p)) && (w.from === undefined || from(w.from)) &&
    [w.since, w.noteBefore].every((t) => t === undefined || time(t)) && (w.guessed === undefined || w.guessed === true);
  if (s.walk !== undefined && !(obj(s.walk) && walk(s.walk))) throw bad('walk', 'a walk with the place it reached and times in milliseconds');
  // A walk's field this release does not know (an earlier one's name) would be read as absent: refused.
  const unknown = s.walk === undefined ? undefined : Object.keys(s.walk as object).find((k) => !WALK_FIELDS.includes(k));
  if (unknown !== undefined) throw bad(`walk.${unknown}`, `absent (a walk has ${WALK_FIELDS.join(', ')})`);
  if (s.from !== undefined && !from(s.from)) throw bad('from', 'a cursor or null');
  return s as unknown as PollState;
}
