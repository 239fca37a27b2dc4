import type { Occurrence, PollEvent } from './occurrence';

// The pure rules of a poll (walk.ts does the reading): whether an occurrence is new, which
// order the list is in, and how far a read must go. No I/O here.

/** The order of the list as detected from `createdAt`; `unordered` once it contradicted itself. */
export type ListOrder = 'newest-first' | 'oldest-first' | 'unordered';

/** A day in ms: the sent/failed window is given in days. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How sure a read must make us of the order before it is trusted: a list in no order would
 * read as sorted (ties together, all steps one way) by chance less than once in this many.
 * Until then the whole list is read, which for a short list is one page anyway. Ten different
 * values in a row are enough (10! / 2 = 1.8 million), and so are five bulk calls of 100.
 */
export const ORDER_ODDS = 1_000_000;

/**
 * The service's clock when it answered a walk's first page: its `Date` header. Every
 * occurrence stamped before it was in the list then. Undefined when the header is missing or
 * unreadable; the walk then goes by the latest time it read (latestTime).
 */
export function serviceTime(date: string | undefined): number | undefined {
  const header = date === undefined ? NaN : Date.parse(date);
  return Number.isNaN(header) ? undefined : header;
}

/**
 * Without the service's clock: the latest time on a page. Everything was there when the page
 * was answered, so it is a lower bound of that clock: for the first page of any list, and, for
 * an oldest-first list (new certificates come last), for every page of a walk to its end.
 */
export function latestTime(page: readonly Occurrence[]): number | undefined {
  const times = page.map((o) => o.at ?? o.created);
  return times.length > 0 ? Math.max(...times) : undefined;
}

/**
 * The list order after reading `created` (first sightings, in list order, of one contiguous
 * read): a known order that the read contradicts becomes `unordered`; an unknown one becomes
 * known once a list in no order would read like this less than once in ORDER_ODDS: of the
 * n! / (n1! n2! …) arrangements of these values, 2 are sorted.
 */
export function orderAfter(created: readonly number[], known: ListOrder | undefined): ListOrder | undefined {
  if (known === 'unordered') return known;
  let up = false;
  let down = false;
  for (let i = 1; i < created.length; i++) {
    if (created[i] > created[i - 1]) up = true;
    if (created[i] < created[i - 1]) down = true;
  }
  const seen: ListOrder | undefined = up && down ? 'unordered' : up ? 'oldest-first' : down ? 'newest-first' : undefined;
  if (seen === 'unordered') return seen;
  if (known) return seen === undefined || seen === known ? known : 'unordered';
  return seen !== undefined && logArrangements(created) - Math.log(2) >= Math.log(ORDER_ODDS) ? seen : undefined;
}

/** ln(n! / (n1! n2! …)): in how many orders the values could come (ties count once). */
function logArrangements(values: readonly number[]): number {
  const lnFactorial = (n: number) => {
    let sum = 0;
    for (let i = 2; i <= n; i++) sum += Math.log(i);
    return sum;
  };
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let ln = lnFactorial(values.length);
  for (const c of counts.values()) ln -= lnFactorial(c);
  return ln;
}

/** What a poll knows when it judges an occurrence. */
export interface Judge {
  event: PollEvent;
  /** Occurrences before it (ms) were all accounted for by earlier reads; undefined: none were. */
  floor?: number;
  /** Sent/failed: certificates created before it are outside the window (ms). */
  windowStart?: number;
  /** Occurrences accounted for already (emitted, or existing at the first poll). */
  known: ReadonlyMap<string, number>;
  /**
   * The first walk of the list: occurrences that may have existed when it began are noted,
   * not emitted. `true` in the first poll (all of them); later polls of that walk, those
   * before this time or without one.
   */
  quiet?: true | number;
}

export type Verdict = 'new' | 'note' | 'skip';

/**
 * Whether an occurrence is emitted (`new`), only remembered as accounted for (`note`: it
 * existed before the trigger), or neither (`skip`: outside the
 * window, older than the floor, or known).
 */
export function judge(o: Occurrence, j: Judge): Verdict {
  if (j.windowStart !== undefined && o.created < j.windowStart) return 'skip';
  if (j.known.has(o.key)) return 'skip';
  if (j.floor !== undefined && o.at !== undefined && o.at < j.floor) return 'skip';
  if (j.quiet === true || (j.quiet !== undefined && (o.at === undefined || o.at < j.quiet))) return 'note';
  return 'new';
}

/**
 * Until when (ms) an accounted-for occurrence must be remembered: while the floor has not
 * passed it, it could be read again and pass every other test. Issued: its time. Sent: its
 * time, or the end of its window if earlier. Failed (no time): the end of its window.
 */
export function keepUntil(o: Occurrence, event: PollEvent, windowMs: number): number {
  if (event === 'issued') return o.created;
  const windowEnd = o.created + windowMs;
  return o.at === undefined ? windowEnd : Math.min(o.at, windowEnd);
}

/** The times a walk judges by (ms). */
export interface Bounds {
  /** Occurrences before it are old (Judge.floor). */
  floor?: number;
  /** Sent/failed: certificates created before it are outside the window (Judge.windowStart). */
  windowStart?: number;
  /**
   * Where the part of the list the walk must cover begins, by `createdAt`: a newest-first walk
   * stops once a page ends before it; an oldest-first walk may start at a page that begins before it.
   */
  region: number;
}

/**
 * The bounds of a walk from the state's floor and the walk's start (`since`). The first walk
 * (`initial`) takes its own start as the floor: what was there before is old, and what is
 * stamped in that very instant is read and noted. A batch never walked (no floor, not
 * initial) is new throughout. The sent/failed window reaches `windowMs` back from the floor.
 */
export function bounds(event: PollEvent, floor: number | undefined, since: number | undefined, initial: boolean, windowMs: number): Bounds {
  const base = floor ?? (initial ? since : undefined);
  if (event === 'issued') return { ...(base === undefined ? {} : { floor: base }), region: base ?? -Infinity };
  const windowFrom = floor ?? since;
  const windowStart = windowFrom === undefined ? undefined : windowFrom - windowMs;
  return { ...(base === undefined ? {} : { floor: base }), ...(windowStart === undefined ? {} : { windowStart }), region: windowStart ?? -Infinity };
}

/** Newest first: the event time, then `createdAt`, latest first (Zapier's dedupe wants the newest first). */
export function newestFirst(list: readonly Occurrence[]): Occurrence[] {
  return [...list].sort((a, b) => (b.at ?? b.created) - (a.at ?? a.created) || b.created - a.created);
}
