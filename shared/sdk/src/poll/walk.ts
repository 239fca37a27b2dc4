import type { DecodedPage } from '../decode';
import { CertificateServiceError } from '../errors';
import type { Recipient } from '../types';
import type { Api } from '../client/api';
import { pages } from '../pagination';
import { endpointName, ENDPOINTS } from '../client/endpoints';
import { listPage } from '../client/recipients';
import { occurrence, pollFilter, type Occurrence, type PollEvent } from './occurrence';
import { bounds, judge, keepUntil, latestTime, newestFirst, orderAfter, serviceTime, type ListOrder } from './rules';
import { prune, type Place, type PollState, type Walk } from './state';

const LIST_ENDPOINT = endpointName(ENDPOINTS.listRecipients);
/** Thrown out of the walk over pages when the service refuses a saved cursor: the walk restarts from the top. */
const REFUSED = Symbol('refused cursor');

// One poll of one batch (index.ts says what a poll does and why): the walk of the list, within
// the budget, with the verdict on each certificate read and the state it leaves.

/** A poll's options, checked (index.ts checkSettings). */
export interface PollSettings {
  event: PollEvent;
  firstPoll: number;
  pageSize: number;
  budget: number;
  remember: boolean;
  windowMs: number;
}

/** What a poll leaves: the occurrences to return and the state for the next. */
export interface PollOutcome {
  /** The occurrences to return, newest first. */
  occurrences: Occurrence[];
  state: PollState;
  notes: string[];
}

/** A cursor the service will not take any more (expired, or unknown to it): the walk restarts from the top. */
const isRefusal = (error: unknown): error is CertificateServiceError =>
  error instanceof CertificateServiceError && (error.status === 400 || error.status === 404 || error.status === 410);

const TOP: Place = { cursor: null, ids: [] };
/** The first walk before the service's clock is known: everything it reads is noted, not emitted. */
const ALL_QUIET = Number.MAX_SAFE_INTEGER;
/** A timestamp may be to the second: what is stamped in the second of the first answer may have existed before it. */
const SECOND = 1000;

/** One poll of one batch: the reads, the verdicts and the next state. */
export class PollRun {
  private order: ListOrder | undefined;
  private floor: number | undefined;
  private readonly known: Map<string, number>;
  private walk: Walk | undefined;
  private from: PollState['from'];
  private readonly emitted = new Map<string, Occurrence>();
  private readonly seeds = new Map<string, Occurrence>();
  private readonly read = new Map<string, Occurrence>();
  readonly notes: string[] = [];
  private requests = 0;

  constructor(
    private readonly api: Api,
    private readonly batchId: string,
    private readonly s: PollSettings,
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
      if (this.first || !resumed || this.requests >= this.s.budget || this.order === undefined || this.order === 'unordered') return;
      resumed = false;
      this.walk = {};
    }
  }

  /** Goes on with the walk: true when it is done, false when the budget ran out first. */
  private async walkOn(): Promise<boolean> {
    const walk = this.walk!;
    for (;;) {
      if (this.requests >= this.s.budget) return false;
      const start = this.startPlace(walk);
      const page = await this.fetch(start.cursor);
      if (page === 'refused') {
        this.restartFromTop(walk);
        continue;
      }
      if (!start.fits(page)) {
        this.stepBack(walk);
        continue;
      }
      const outcome = await this.follow(page, start.cursor);
      if (outcome !== 'refused') return outcome;
      this.restartFromTop(walk);
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
      const fits = (page: DecodedPage<Recipient>) => page.items.length > 0 && occurrence(this.s.event, page.items[0], 0).created < region;
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

  private restartFromTop(walk: Walk): void {
    walk.at = TOP;
    delete walk.back;
    this.from = undefined;
  }

  /** One list request, within the budget; a refused cursor is 'refused' (the caller restarts from the top), any other failure throws. */
  private async fetch(cursor: string | null): Promise<DecodedPage<Recipient> | 'refused'> {
    this.requests++;
    try {
      return await listPage(this.api, this.batchId, { cursor: cursor ?? undefined, limit: this.s.pageSize, emailStatus: pollFilter(this.s.event) });
    } catch (error) {
      if (cursor === null || !isRefusal(error)) throw error;
      this.notes.push(`The service refused a saved list cursor (${error.status} ${error.code}: ${error.message}); reading the list again from the top.`);
      return 'refused';
    }
  }

  /**
   * Takes a page and follows the next cursors (the one walk over pages, pagination.ts): true when
   * the walk is done, false when the budget ran out, 'refused' for a refused cursor.
   */
  private async follow(first: DecodedPage<Recipient>, fetchedWith: string | null): Promise<boolean | 'refused'> {
    const orderBefore = this.order;
    const created: number[] = [];
    const next = async (cursor: string | undefined) => {
      const page = await this.fetch(cursor ?? null);
      if (page === 'refused') throw REFUSED;
      return page;
    };
    try {
      for await (const { page, cursor } of pages(LIST_ENDPOINT, next, { page: first, cursor: fetchedWith ?? undefined })) {
        const last = this.take(page, cursor ?? null, created);
        this.order = orderAfter(created, orderBefore);
        if (this.order === 'newest-first' && last !== undefined && last < this.bounds(this.walk!).region && page.nextCursor) return true;
        // Stopping here asks for no further page: the walk goes on from this one at the next poll.
        if (page.nextCursor && page.items.length > 0 && this.requests >= this.s.budget) return false;
      }
      return true;
    } catch (error) {
      if (error === REFUSED) return 'refused';
      throw error;
    }
  }

  private bounds(walk: Walk) {
    return bounds(this.s.event, this.floor, walk.since, walk.quiet !== undefined, this.s.windowMs);
  }

  /** Judges one page and moves the walk's place to it. Returns the `createdAt` of its last item. */
  private take(page: DecodedPage<Recipient>, fetchedWith: string | null, created: number[]): number | undefined {
    const walk = this.walk!;
    const list = page.items.map((r, i) => occurrence(this.s.event, r, i));
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
      const verdict = judge(o, { event: this.s.event, ...b, known: this.known, ...(quiet === undefined ? {} : { quiet }) });
      if (verdict === 'skip') continue;
      if (this.s.remember) this.known.set(o.key, keepUntil(o, this.s.event, this.s.windowMs));
      if (verdict === 'new') this.emitted.set(o.key, o);
      else if (!this.s.remember) this.seeds.set(o.key, o);
    }
    // Oldest first, the next walk starts at the last page that begins before its region.
    const nextRegion = bounds(this.s.event, Math.max(this.floor ?? -Infinity, walk.since ?? -Infinity), undefined, false, this.s.windowMs).region;
    if (list.length > 0 && list[0].created < nextRegion) walk.from = { cursor: fetchedWith, ...(walk.at ? { back: walk.at.cursor } : {}) };
    walk.back = walk.at;
    walk.at = { cursor: fetchedWith, ids: page.items.map((r) => r.id) };
    return list.length > 0 ? list[list.length - 1].created : undefined;
  }

  /** The walk is done: its start becomes the floor, what the floor passed is forgotten. */
  private finishWalk(): void {
    const since = this.walk!.since;
    if (since !== undefined) this.floor = Math.max(this.floor ?? since, since);
    const dropped = prune(this.known, this.floor);
    if (dropped > 0) this.notes.push(`Over ${this.known.size} remembered events: the ${dropped} closest to expiring were forgotten, and may be emitted again if the list shows them again.`);
    this.from = this.order === 'oldest-first' ? this.walk!.from : undefined;
    this.walk = undefined;
  }

  result(): PollOutcome {
    let out = [...this.emitted.values()];
    if (this.first) {
      const newest = newestFirst([...this.read.values()]).slice(0, this.s.firstPoll);
      out = [...new Map([...newest, ...this.seeds.values()].map((o) => [o.key, o])).values()];
    }
    const state: PollState = {
      v: 2,
      ...(this.order ? { order: this.order } : {}),
      ...(this.floor === undefined ? {} : { floor: this.floor }),
      known: [...this.known],
      ...(this.walk ? { walk: this.walk } : {}),
      ...(this.from ? { from: this.from } : {}),
    };
    return { occurrences: newestFirst(out), state, notes: this.notes };
  }
}

