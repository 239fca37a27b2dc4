import type { DecodedPage } from '../decode';
import { CertificateServiceError } from '../errors';
import type { Recipient } from '../types';
import type { Api } from '../client/api';
import { pages } from '../pagination';
import { listPage } from '../client/recipients';
import { LIST_ENDPOINT, occurrence, pollFilter, type Occurrence, type PollEvent } from '../occurrence';
import { bounds, judge, latestTime, newestFirst, orderAfter, serviceTime, type ListOrder } from './rules';
import { prune, type Place, type PollState, type Walk } from './state';

// A *walk* reads one batch's list (`GET /batches/{id}/recipients`) from a start place to its end,
// page after page; newest first it stops once it is past its region (rules.ts bounds). It begins
// when the service's clock reads `since` (the `Date` of its first answer), so it sees everything
// stamped before `since`; once done, `since` is the floor of the walks after it. Each occurrence
// read is judged (rules.ts judge) and the new and the noted are handed to the walk's owner.
//
// A walk can span polls: the state keeps the page it reached (`at`, and the one before, `back`).
// The next poll asks for that page again, and it must still hold an id read there, or the list
// moved under the cursor and an item may be skipped: then it steps back a page. A read ends in
// one of four ways, each a value (ReadEnd): done; the budget spent; the start page moved
// (`shifted`); or the service refused a cursor (expired or unknown: `refused`), and the walk
// reads the list again from the top. Only an answer that cannot be read, and a refusal of the top
// (no cursor: the batch itself is refused), are thrown: they are errors, not places.

/** The list a walk reads: one batch's, for one event, in pages of `pageSize`; sent/failed within `windowMs` before the floor. */
export interface ListSpec {
  batchId: string;
  event: PollEvent;
  pageSize: number;
  windowMs: number;
}

/** What the walk's owner does with an occurrence judged new or noted (rules.ts judge); a skipped one is not handed over. */
export type OnJudged = (o: Occurrence, verdict: 'new' | 'note') => void;

/** How a read from a start place ended (see the top of this file). */
type ReadEnd = { kind: 'done' | 'budget' | 'shifted' } | { kind: 'refused'; error: CertificateServiceError };

/** A cursor the service will not take (expired, or unknown to it): the walk reads again from the top. */
const isRefusal = (error: unknown): error is CertificateServiceError =>
  error instanceof CertificateServiceError && (error.status === 400 || error.status === 404 || error.status === 410);

/** Where a read starts, and how to tell the page found there is the one meant. */
type Start = { cursor: string | null; fits: (page: DecodedPage<Recipient>) => boolean };

const TOP: Place = { cursor: null, ids: [] };

/**
 * The walks of one batch's list, from the place a state gives, within a budget of requests:
 * each occurrence judged against the floor, the window, what is known and the walk's
 * noteBefore, and handed to `onJudged`. A poll (run.ts) and recovery (readFromFloor) walk with it.
 */
export class ListWalk {
  order: ListOrder | undefined;
  private floor: number | undefined;
  readonly known: Map<string, number>;
  /** The walk under way; walkOn begins one (`{}`) when there is none, finishWalk ends it. */
  walk: Walk | undefined;
  private from: PollState['from'];
  /** Every occurrence read, by key. */
  readonly read = new Map<string, Occurrence>();
  readonly notes: string[] = [];
  /** List requests made (each fetch is one). */
  requests = 0;

  constructor(
    private readonly api: Api,
    private readonly list: ListSpec,
    state: Partial<PollState>,
    private readonly onJudged: OnJudged,
    private readonly budget = Infinity,
  ) {
    this.order = state.order;
    this.floor = state.floor;
    this.known = new Map(state.known);
    this.walk = state.walk && { ...state.walk };
    this.from = state.from;
  }

  /** Goes on with the walk under way (or begins one) until it is done or the budget is spent. */
  async walkOn(): Promise<'done' | 'budget'> {
    const walk = (this.walk ??= {});
    for (;;) {
      if (this.requests >= this.budget) return 'budget';
      const end = await this.readFrom(this.startPlace(walk));
      if (end.kind === 'shifted') this.stepBack(walk);
      else if (end.kind === 'refused') this.restart(walk, end.error);
      else return end.kind;
    }
  }

  /**
   * Where the walk reads next, and how to tell that the page found there is the right one:
   * - a walk under way: its last page again, which must still hold one of the ids read there
   *   (or on the page before): else the list shifted under the cursor and an item may be skipped;
   * - a new walk of an oldest-first list: `from`, whose first item must come before the region;
   * - otherwise the top, which skips nothing.
   */
  private startPlace(walk: Walk): Start {
    if (walk.at && walk.at.cursor !== null) {
      const ids = new Set([...walk.at.ids, ...(walk.back?.ids ?? [])]);
      return { cursor: walk.at.cursor, fits: (page) => page.items.some((r) => ids.has(r.id)) };
    }
    if (!walk.at && this.order === 'oldest-first' && this.from && this.from.cursor !== null) {
      const region = this.bounds(walk).region;
      const fits = (page: DecodedPage<Recipient>) => page.items.length > 0 && occurrence(this.list.event, page.items[0], 0).created < region;
      return { cursor: this.from.cursor, fits };
    }
    return { cursor: null, fits: () => true };
  }

  /** The page found at the start place has shifted: the place before it next, else the top. */
  private stepBack(walk: Walk): void {
    if (walk.at && walk.at.cursor !== null) {
      this.notes.push('The list shifted since the last page read (certificates before it were deleted or added); reading again from the page before it.');
      walk.at = walk.back ?? TOP;
      delete walk.back;
      return;
    }
    this.notes.push('The list shifted since the last walk; starting this one a page earlier.');
    this.from = this.from?.back === undefined ? undefined : { cursor: this.from.back };
  }

  /** The service refused a cursor: the walk reads the list again from the top. */
  private restart(walk: Walk, error: CertificateServiceError): void {
    this.notes.push(`The service refused a saved list cursor (${error.status} ${error.code}: ${error.message}); reading the list again from the top.`);
    walk.at = TOP;
    delete walk.back;
    this.from = undefined;
  }

  /**
   * Reads the page at the start place and follows the next cursors (the one walk over pages,
   * pagination.ts), each page judged, each request within the budget; how it ended, as a value.
   */
  private async readFrom(start: Start): Promise<ReadEnd> {
    const orderBefore = this.order;
    const created: number[] = [];
    let asked = start.cursor;
    const fetch = (cursor: string | undefined) => {
      asked = cursor ?? start.cursor;
      this.requests++;
      return listPage(this.api, this.list.batchId, { cursor: asked ?? undefined, limit: this.list.pageSize, emailStatus: pollFilter(this.list.event) });
    };
    try {
      for await (const { page, cursor } of pages(LIST_ENDPOINT, fetch)) {
        // The first page comes without a cursor: the one asked at the start place.
        if (cursor === undefined && !start.fits(page)) return { kind: 'shifted' };
        const last = this.take(page, cursor ?? start.cursor, created);
        this.order = orderAfter(created, orderBefore);
        if (this.order === 'newest-first' && last !== undefined && last < this.bounds(this.walk!).region && page.nextCursor) return { kind: 'done' };
        // Stopping here asks for no further page: the walk goes on from this one at the next poll.
        if (page.nextCursor && page.items.length > 0 && this.requests >= this.budget) return { kind: 'budget' };
      }
    } catch (error) {
      if (asked !== null && isRefusal(error)) return { kind: 'refused', error };
      throw error;
    }
    return { kind: 'done' };
  }

  private bounds(walk: Walk) {
    return bounds(this.list.event, this.floor, walk.since, walk.noteBefore !== undefined, this.list.windowMs);
  }

  /** Judges one page and moves the walk's place to it. Returns the `createdAt` of its last item. */
  private take(page: DecodedPage<Recipient>, fetchedWith: string | null, created: number[]): number | undefined {
    const walk = this.walk!;
    const { event, windowMs } = this.list;
    const list = page.items.map((r, i) => occurrence(event, r, i));
    if (walk.since === undefined) {
      const clock = serviceTime(page.date);
      if (clock === undefined) [walk.since, walk.guessed] = [latestTime(list), true];
      else walk.since = clock;
    } else if (walk.guessed && this.order === 'oldest-first') {
      walk.since = Math.max(walk.since, latestTime(list) ?? walk.since);
    }
    const b = this.bounds(walk);
    for (const o of list) {
      if (!this.read.has(o.key)) created.push(o.created);
      this.read.set(o.key, o);
      const verdict = judge(o, { event, ...b, known: this.known, noteBefore: walk.noteBefore });
      if (verdict !== 'skip') this.onJudged(o, verdict);
    }
    // Oldest first, the next walk starts at the last page that begins before its region.
    const nextRegion = bounds(event, Math.max(this.floor ?? -Infinity, walk.since ?? -Infinity), undefined, false, windowMs).region;
    if (list.length > 0 && list[0].created < nextRegion) walk.from = { cursor: fetchedWith, back: walk.at?.cursor };
    walk.back = walk.at;
    walk.at = { cursor: fetchedWith, ids: page.items.map((r) => r.id) };
    return list.length > 0 ? list[list.length - 1].created : undefined;
  }

  /** The walk is done: its start becomes the floor, and what the floor passed is no longer kept as known. */
  finishWalk(): void {
    const since = this.walk!.since;
    if (since !== undefined) this.floor = Math.max(this.floor ?? since, since);
    const dropped = prune(this.known, this.floor);
    if (dropped > 0) this.notes.push(`Over ${this.known.size} known events: the ${dropped} closest to expiring were forgotten, and may be emitted again if the list shows them again.`);
    this.from = this.order === 'oldest-first' ? this.walk!.from : undefined;
    this.walk = undefined;
  }

  /** The state for the next poll (absent fields undefined: dropped in JSON, as the hosts store it). */
  state(): PollState {
    return { v: 2, order: this.order, floor: this.floor, known: [...this.known], walk: this.walk, from: this.from };
  }
}

/**
 * One walk of a batch's list from the top, without a budget, judged against `floor` alone: the
 * occurrences at or after it (sent/failed: of certificates created up to `windowMs` before it),
 * newest first. It reads to the end, except past the region of a list found newest first.
 * Recovery's read (recover.ts); a poll's walks are the same, resumed and within a budget.
 */
export async function readFromFloor(api: Api, list: ListSpec, floor: number): Promise<{ occurrences: Occurrence[]; notes: string[] }> {
  const found = new Map<string, Occurrence>();
  const walk = new ListWalk(api, list, { floor }, (o) => found.set(o.key, o));
  await walk.walkOn();
  return { occurrences: newestFirst([...found.values()]), notes: walk.notes };
}
