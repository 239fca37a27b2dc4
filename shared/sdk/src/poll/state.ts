import { validationError } from '../errors';
import type { ListOrder } from './rules';

// What a poll leaves for the next one (the host stores it: n8n static data, Zapier's cache),
// and how a stored one is checked. Pure.

/** Where a read can go on: the cursor that fetched a page (null: the first page) and that page's ids. */
export interface Place {
  cursor: string | null;
  ids: string[];
}

/** Oldest first: the cursor of a page that begins before a region, and the one before it. */
export type From = { cursor: string | null; back?: string | null };

/** A walk of the list the budget left unfinished; the next poll goes on with it. */
export interface Walk {
  /** The service's clock when the walk began (ms): the floor once it is done. */
  since?: number;
  /** The service sent no readable `Date`: `since` is the latest time read (rules.ts latestTime). */
  guessed?: true;
  /** The first walk of the list (Judge.quiet): occurrences before this time (or without one) are noted, not emitted. */
  quiet?: number;
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
  /** Every occurrence before this time (ms) is accounted for; absent: none is (a batch never walked). */
  floor?: number;
  /** Occurrences accounted for that could still be read again: [key, keep until (ms)], at most MAX_KNOWN. */
  known: [string, number][];
  /** A walk in progress. */
  walk?: Walk;
  /** Oldest first: the page the next walk starts at (it begins before the region still to read). */
  from?: From;
}

/**
 * The most occurrences a state remembers. Only what could be read again is kept: for issued
 * and sent, what happened since the previous walk began (a few at a time); for failed, whose
 * time the list does not give, the failures inside the window. 10,000 keys keep n8n's static
 * data under 0.7 MB of JSON (poll-rules.test.ts); past it the ones closest to expiring go first.
 */
export const MAX_KNOWN = 10_000;

/** The known occurrences the floor has passed are dropped; over MAX_KNOWN, those closest to expiring. Returns how many over the cap went. */
export function prune(known: Map<string, number>, floor: number | undefined): number {
  if (floor !== undefined) for (const [key, keep] of known) if (keep < floor) known.delete(key);
  const over = known.size - MAX_KNOWN;
  if (over <= 0) return 0;
  const closest = [...known].sort((a, b) => a[1] - b[1]).slice(0, over);
  for (const [key] of closest) known.delete(key);
  return over;
}

const ORDERS: readonly ListOrder[] = ['newest-first', 'oldest-first', 'unordered'];

/** A stored state, checked: a damaged one is an error naming the field, never "nothing new". */
export function readState(state: unknown, field = 'state'): PollState | undefined {
  if (state === undefined || state === null) return undefined;
  if (typeof state !== 'object' || Array.isArray(state)) throw validationError(field, 'must be the object a previous poll returned');
  const s = state as Record<string, unknown>;
  const bad = (key: string, what: string) => validationError(`${field}.${key}`, `must be ${what}; reset the trigger's saved state`);
  if (s.v !== 2) throw bad('v', 'a state version this release knows (2)');
  const time = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  const ids = (v: unknown) => Array.isArray(v) && v.every((id) => typeof id === 'string');
  const cursor = (v: unknown) => v === null || typeof v === 'string';
  const place = (v: unknown) => !!v && typeof v === 'object' && cursor((v as Place).cursor) && ids((v as Place).ids);
  const from = (v: unknown) => !!v && typeof v === 'object' && cursor((v as Place).cursor) && ((v as { back?: unknown }).back === undefined || cursor((v as { back?: unknown }).back));
  if (s.order !== undefined && !ORDERS.includes(s.order as ListOrder)) throw bad('order', `one of ${ORDERS.join(', ')}`);
  if (s.floor !== undefined && !time(s.floor)) throw bad('floor', 'a time in milliseconds');
  if (!Array.isArray(s.known) || !s.known.every((k) => Array.isArray(k) && k.length === 2 && typeof k[0] === 'string' && time(k[1]))) {
    throw bad('known', 'a list of [key, time] pairs');
  }
  if (s.known.length > MAX_KNOWN) throw bad('known', `at most ${MAX_KNOWN} pairs`);
  if (s.walk !== undefined) {
    const w = s.walk as Record<string, unknown>;
    if (!w || typeof w !== 'object' || (w.at !== undefined && !place(w.at)) || (w.back !== undefined && !place(w.back)) || (w.from !== undefined && !from(w.from))) {
      throw bad('walk', 'a walk with the place it reached');
    }
    if ((w.since !== undefined && !time(w.since)) || (w.quiet !== undefined && !time(w.quiet)) || (w.guessed !== undefined && w.guessed !== true)) {
      throw bad('walk', 'a walk with times in milliseconds');
    }
  }
  if (s.from !== undefined && !from(s.from)) throw bad('from', 'a cursor or null');
  return s as unknown as PollState;
}
