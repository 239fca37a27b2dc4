import type { Occurrence, PollEvent } from '../occurrence';

// The pure rules of a poll (walk.ts does the reading): whether an occurrence is new, which
// order the list is in, and how far a read must go. No I/O here.

/** The order of the list as detected from `createdAt`; `unordered` once it contradicted itself. */
export type ListOrder = 'newest-first' | 'oldest-first' | 'unordered';

/** A day in ms: the sent/failed window is given in days. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How sure a read must make us of the order before it is trusted: a list in no order reads as
 * sorted by chance less than once in this many. Until then the whole list is read (one page for a
 * short list). Ten different values in a row are enough (10! / 2 = 1.8 million).
 */
export const ORDER_ODDS = 1_000_000;

/**
 * The service's clock when it answered (its `Date` header): every occurrence stamped before it
 * was in the list. Undefined when unreadable; the walk then goes by latestTime.
 */
export function serviceTime(date: string | undefined): number | undefined {
  const header = Date.parse(date ?? '');
  return Number.isNaN(header) ? undefined : header;
}

/**
 * Without the service's clock: the latest time on a page, a lower bound of that clock when the
 * page was answered. It holds for a walk's first page, and, oldest first (new certificates come
 * last), for every page of a walk to its end.
 */
export function latestTime(page: readonly Occurrence[]): number | undefined {
  const times = page.map((o) => o.at ?? o.created);
  return times.length > 0 ? Math.max(...times) : undefined;
}

/**
 * The list order after reading `created` (first sightings, in list order, of one contiguous
 * read): an order the read contradicts becomes `unordered`; none yet becomes the one read once a
 * list in no order would read like this less than once in ORDER_ODDS: of the n! / (n1! n2! …)
 * arrangements of these values, 2 are sorted.
 */
export function orderAfter(created: readonly number[], before: ListOrder | undefined): ListOrder | undefined {
  if (before === 'unordered') return before;
  const steps = created.slice(1).map((c, i) => Math.sign(c - created[i]));
  const [up, down] = [steps.includes(1), steps.includes(-1)];
  const seen: ListOrder | undefined = up && down ? 'unordered' : up ? 'oldest-first' : down ? 'newest-first' : undefined;
  if (seen === 'unordered') return seen;
  if (before) return seen === undefined || seen === before ? before : 'unordered';
  return seen !== undefined && logArrangements(created) - Math.log(2) >= Math.log(ORDER_ODDS) ? seen : undefined;
}

/** ln(n! / (n1! n2! …)): in how many orders the values could come (ties count once). */
function logArrangements(values: readonly number[]): number {
  // Built up value by value: the i-th value, the c-th of its kind, multiplies n! by i and n1! … by c.
  const counts = new Map<number, number>();
  let ln = 0;
  values.forEach((v, i) => {
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    ln += Math.log(i + 1) - Math.log(c);
  });
  return ln;
}

/** What a poll knows when it judges an occurrence: the walk's floor and window (Bounds), and what is known. */
export interface Judge extends Omit<Bounds, 'region'> {
  event: PollEvent;
  /** Occurrences known already (emitted, or existing at the first poll). */
  known: ReadonlyMap<string, number>;
  /** The first walk's (state.ts Walk.noteBefore): what has no time or one before it is noted, not emitted. */
  noteBefore?: number;
}

/** noteBefore for "note everything read": a time no list holds (a state is JSON, which has no Infinity). */
export const END_OF_TIME = Number.MAX_SAFE_INTEGER;

/**
 * Whether an occurrence is emitted (`new`), only made known (`note`: it may have existed before
 * the trigger), or neither (`skip`: outside the window, before the floor, or known).
 */
export function judge(o: Occurrence, j: Judge): 'new' | 'note' | 'skip' {
  if (j.windowStart !== undefined && o.created < j.windowStart) return 'skip';
  if (j.known.has(o.key)) return 'skip';
  if (j.floor !== undefined && o.at !== undefined && o.at < j.floor) return 'skip';
  if (j.noteBefore !== undefined && (o.at === undefined || o.at < j.noteBefore)) return 'note';
  return 'new';
}

/**
 * Until when (ms) a known occurrence must stay known: while the floor has not passed it, it could
 * be read again and pass every other test. Issued: its time. Sent: its time, or the end of its
 * window if earlier. Failed (no time): the end of its window.
 */
export function keepUntil(o: Occurrence, event: PollEvent, windowMs: number): number {
  if (event === 'issued') return o.created;
  const windowEnd = o.created + windowMs;
  return o.at === undefined ? windowEnd : Math.min(o.at, windowEnd);
}

/** The times a walk judges by (ms). */
export interface Bounds {
  /** Occurrences before it are all known to earlier walks; undefined: none are. */
  floor?: number;
  /** Sent/failed: certificates created before it are outside the window. */
  windowStart?: number;
  /** Where the walk must read from, by `createdAt`: newest first, it stops past it; oldest first, it may start just before it. */
  region: number;
}

/**
 * The bounds of a walk from the state's floor and the walk's start (`since`). The first walk
 * (`initial`) takes its own start as the floor: what was there before is old, and what is stamped
 * in that very instant is read and noted. A batch never walked (no floor, not initial) is new
 * throughout. The sent/failed window reaches `windowMs` back from the floor (else from `since`).
 */
export function bounds(event: PollEvent, floor: number | undefined, since: number | undefined, initial: boolean, windowMs: number): Bounds {
  const base = floor ?? (initial ? since : undefined);
  const windowFrom = floor ?? since;
  const windowStart = event === 'issued' || windowFrom === undefined ? undefined : windowFrom - windowMs;
  return { floor: base, windowStart, region: (event === 'issued' ? base : windowStart) ?? -Infinity };
}

/** Newest first: the event time, then `createdAt`, latest first (Zapier's dedupe wants the newest first). */
export function newestFirst(list: readonly Occurrence[]): Occurrence[] {
  return [...list].sort((a, b) => (b.at ?? b.created) - (a.at ?? a.created) || b.created - a.created);
}
