import type { DecodedPage } from '../decode';
import { CertificateServiceError } from '../errors';
import type { Recipient } from '../types';
import type { Api } from '../client/api';
import { pages } from '../pagination';
import { listPage } from '../client/recipients';
import type { PollSettings } from './settings';
import { LIST_ENDPOINT, occurrence, pollFilter, type Occurrence } from './occurrence';
import { bounds, judge, keepUntil, latestTime, newestFirst, orderAfter, serviceTime, type ListOrder } from './rules';
import { prune, type Place, type PollState, type Walk } from './state';

/** Thrown by fetch when the service refuses a saved cursor: the walk restarts from the top. */
const REFUSED = Symbol('refused cursor');

/** A cursor the service will not take any more (expired, or unknown to it): the walk restarts from the top. */
const isRefusal = (error: unknown): error is CertificateServiceError =>
  error instanceof CertificateServiceError && (error.status === 400 || error.status === 404 || error.status === 410);

const TOP: Place = { cursor: null, ids: [] };
/** The first walk before the service's clock is known: everything it reads is noted, not emitted. */
const ALL_QUIET = Number.MAX_SAFE_INTEGER;
/** A timestamp may be to the second: what is stamped in the second of the first answer may have existed before it. */
const SECOND = 1000;

/** One poll of one batch (index.ts says what and why): the walk of the list within the budget, the verdicts, the next state. */
export class PollRun {
  private order: ListOrder | undefined;
  private floor: number | undefined;
  private readonly known: Map<string, number>;
  private walk: Walk | undefined;
  private from: PollState['from'];
  private readonly emitted = new Map<string, Occurrence>();
  /** Remember off: what the first poll noted, returned so the host knows it (Zapier seeds its dedupe). */
  private readonly noted = new Map<string, Occurrence>();
  private readonly read = new Map<string, Occurrence>();
  readonly notes: string[] = [];
  /** List requests made (each fetch is one). */
  requests = 0;

  constructor(
    private readonly api: Api,
    private readonly batchId: string,
    private readonly settings: PollSettings,
    private readonly first: boolean,
    state: PollState,
  ) {
    this.order = state.order;
    this.floor = state.floor;
    this.known = new Map(state.known);
    this.walk = state.walk && { ...state.walk };
    this.from = state.from;
  }

  async poll(): Promise<void> {
    // The first poll is one walk, the first (it notes what exists). Later: the walk the last
    // poll left unfinished, if any, then at most one new walk.
    let resumed = this.walk !== undefined;
    if (this.first) this.walk = { quiet: ALL_QUIET };
    this.walk ??= {};
    for (;;) {
      if (!(await this.walkOn())) {
        this.notes.push(`Read ${this.requests} pages of the list (the budget of one poll) before the walk was done; the next poll goes on from there.`);
        return;
      }
      this.finishWalk();
      // A new walk right away only where one is short (a time-ordered list): the whole of an unordered one waits for the next poll.
      if (this.first || !resumed || this.requests >= this.settings.budget || this.order === undefined || this.order === 'unordered') return;
      resumed = false;
      this.walk = {};
    }
  }

  /** Goes on with the walk: true when it is done, false when the budget ran out first. */
  private async walkOn(): Promise<boolean> {
    const walk = this.walk!;
    for (;;) {
      if (this.requests >= this.settings.budget) return false;
      const start = this.startPlace(walk);
      try {
        const page = await this.fetch(start.cursor);
        if (start.fits(page)) return await this.follow(page, start.cursor);
        this.stepBack(walk);
      } catch (error) {
        if (error !== REFUSED) throw error;
        walk.at = TOP;
        delete walk.back;
        this.from = undefined;
      }
    }
  }

  /**
   * Where the walk reads next, and how to tell that the page found there is the right one:
   * - a walk under way: its last page again, which must still hold one of the ids read there
   *   (or on the page before): else the list shifted under the cursor and an item may be skipped;
   * - a new walk of an oldest-first list: `from`, whose first item must come before the region;
   * - otherwise the top, which skips nothing.
   */
  private startPlace(walk: Walk): { cursor: string | null; fits: (page: DecodedPage<Recipient>) => boolean } {
    if (walk.at && walk.at.cursor !== null) {
      const ids = new Set([...walk.at.ids, ...(walk.back?.ids ?? [])]);
      return { cursor: walk.at.cursor, fits: (page) => page.items.some((r) => ids.has(r.id)) };
    }
    if (!walk.at && this.order === 'oldest-first' && this.from && this.from.cursor !== null) {
      const region = this.bounds(walk).region;
      const fits = (page: DecodedPage<Recipient>) => page.items.length > 0 && occurrence(this.settings.event, page.items[0], 0).created < region;
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

  /** One list request, within the budget; a refused saved cursor throws REFUSED (walkOn restarts from the top). */
  private async fetch(cursor: string | null): Promise<DecodedPage<Recipient>> {
    this.requests++;
    try {
      return await listPage(this.api, this.batchId, { cursor: cursor ?? undefined, limit: this.settings.pageSize, emailStatus: pollFilter(this.settings.event) });
    } catch (error) {
      if (cursor === null || !isRefusal(error)) throw error;
      this.notes.push(`The service refused a saved list cursor (${error.status} ${error.code}: ${error.message}); reading the list again from the top.`);
      throw REFUSED;
    }
  }

  /** Takes a page and follows the next cursors (the one walk over pages, pagination.ts): true when the walk is done, false when the budget ran out. */
  private async follow(first: DecodedPage<Recipient>, fetchedWith: string | null): Promise<boolean> {
    const orderBefore = this.order;
    const created: number[] = [];
    const next = (cursor: string | undefined) => this.fetch(cursor ?? null);
    for await (const { page, cursor } of pages(LIST_ENDPOINT, next, { page: first, cursor: fetchedWith ?? undefined })) {
      const last = this.take(page, cursor ?? null, created);
      this.order = orderAfter(created, orderBefore);
      if (this.order === 'newest-first' && last !== undefined && last < this.bounds(this.walk!).region && page.nextCursor) return true;
      // Stopping here asks for no further page: the walk goes on from this one at the next poll.
      if (page.nextCursor && page.items.length > 0 && this.requests >= this.settings.budget) return false;
    }
    return true;
  }

  private bounds(walk: Walk) {
    return bounds(this.settings.event, this.floor, walk.since, walk.quiet !== undefined, this.settings.windowMs);
  }

  /** Judges one page and moves the walk's place to it. Returns the `createdAt` of its last item. */
  private take(page: DecodedPage<Recipient>, fetchedWith: string | null, created: number[]): number | undefined {
    const walk = this.walk!;
    const list = page.items.map((r, i) => occurrence(this.settings.event, r, i));
    if (walk.since === undefined) {
      const clock = serviceTime(page.date);
      if (clock === undefined) [walk.since, walk.guessed] = [latestTime(list), true];
      else walk.since = clock;
      // The first walk: later polls of it emit what was stamped after the second of its first answer.
      if (clock !== undefined && walk.quiet === ALL_QUIET) walk.quiet = clock + SECOND;
    } else if (walk.guessed && this.order === 'oldest-first') {
      walk.since = Math.max(walk.since, latestTime(list) ?? walk.since);
    }
    const b = this.bounds(walk);
    const quiet = this.first ? true : walk.quiet;
    for (const o of list) {
      if (!this.read.has(o.key)) created.push(o.created);
      this.read.set(o.key, o);
      const verdict = judge(o, { event: this.settings.event, ...b, known: this.known, quiet });
      if (verdict === 'skip') continue;
      if (this.settings.remember) this.known.set(o.key, keepUntil(o, this.settings.event, this.settings.windowMs));
      if (verdict === 'new') this.emitted.set(o.key, o);
      else if (!this.settings.remember) this.noted.set(o.key, o);
    }
    // Oldest first, the next walk starts at the last page that begins before its region.
    const nextRegion = bounds(this.settings.event, Math.max(this.floor ?? -Infinity, walk.since ?? -Infinity), undefined, false, this.settings.windowMs).region;
    if (list.length > 0 && list[0].created < nextRegion) walk.from = { cursor: fetchedWith, back: walk.at?.cursor };
    walk.back = walk.at;
    walk.at = { cursor: fetchedWith, ids: page.items.map((r) => r.id) };
    return list.length > 0 ? list[list.length - 1].created : undefined;
  }

  /** The walk is done: its start becomes the floor, and what the floor passed is no longer kept as known. */
  private finishWalk(): void {
    const since = this.walk!.since;
    if (since !== undefined) this.floor = Math.max(this.floor ?? since, since);
    const dropped = prune(this.known, this.floor);
    if (dropped > 0) this.notes.push(`Over ${this.known.size} known events: the ${dropped} closest to expiring were forgotten, and may be emitted again if the list shows them again.`);
    this.from = this.order === 'oldest-first' ? this.walk!.from : undefined;
    this.walk = undefined;
  }

  /** What a poll leaves: the occurrences to return, newest first, and the state for the next. */
  result(): { occurrences: Occurrence[]; state: PollState; notes: string[] } {
    let out = [...this.emitted.values()];
    if (this.first) {
      const newest = newestFirst([...this.read.values()]).slice(0, this.settings.firstPoll);
      out = [...new Map([...newest, ...this.noted.values()].map((o) => [o.key, o])).values()];
    }
    // Absent fields are undefined (dropped in JSON, as the hosts store it).
    const state: PollState = { v: 2, order: this.order, floor: this.floor, known: [...this.known], walk: this.walk, from: this.from };
    return { occurrences: newestFirst(out), state, notes: this.notes };
  }
}

