import type { DecodedPage } from '../decode';
import { CertificateServiceError, validationError } from '../errors';
import { MAX_PAGE_SIZE } from '../pagination';
import { validateLimit } from '../validation';
import type { Batch, EventType, Recipient } from '../types';
import { flattenEvent, type FlatEvent } from '../webhooks/flatten';
import type { Api } from './api';
import { seg } from './api';
import { iterateBatches } from './batches';
import { listPage } from './recipients';
import {
  bounds,
  DAY_MS,
  judge,
  keepUntil,
  newestFirst,
  occurrence,
  occurrenceKey,
  orderAfter,
  POLL_EVENTS,
  latestTime,
  serviceTime,
  unreadableList,
  type ListOrder,
  type Occurrence,
  type PollEvent,
} from './poll-rules';
import { prune, readState, type Place, type PollState, type Walk } from './poll-state';

export { POLL_EVENTS, type ListOrder, type PollEvent } from './poll-rules';
export { MAX_KNOWN, type PollState } from './poll-state';

// Polling: how a trigger without a webhook subscription finds what is new in a batch, each
// certificate (issued) and each send (sent/failed) once, within a budget of requests per poll.
//
// A poll walks the list (`GET /batches/{id}/recipients`, filtered by `emailStatus` for
// sent/failed) and judges each certificate by time (poll-rules.ts): a walk that began when the
// service's clock (its `Date` header) read S sees everything stamped before S, so once it is
// done S becomes the floor. Later walks skip what happened before the floor and remember the
// keys they emitted after it (`known`), so ties in `createdAt` (one bulk call, a timestamp to
// the second) are emitted once, and a tie stops growing once the clock has passed it.
//
// Where a walk goes depends on the order of the list, detected from `createdAt`:
// - newest first: from the top until a page ends before the region (the floor; sent/failed,
//   the window): one request while fewer than a page are new;
// - oldest first: from the page where the last walk found the region to begin (`from`),
//   checked to still begin before it, to the end: one request when nothing is new;
// - no order yet, or none at all: the whole list, over as many polls as the budget needs.
// Each poll makes at most `budget` requests; a walk the budget cut short goes on in the next
// poll from the last page read, which is read again to check that the list has not shifted
// under the cursor (offset cursors do); if it has, from the page before, else from the top.
// A cursor the service refuses (400: expired) restarts the walk from the top. Nothing is
// dropped: the state says where to go on.
//
// Sent/failed: a certificate can be sent long after it was issued, and the list is sorted by
// issue, so only a window is walked: certificates issued up to `windowDays` before the floor.

/** List requests a poll makes at most (Zapier gives a poll 30 s; the key has 120 a minute). */
export const DEFAULT_BUDGET = 10;
/** Sent/failed: sends of certificates issued up to this many days before are seen. */
export const DEFAULT_WINDOW_DAYS = 7;

export interface PollOptions {
  batchId: string;
  event: PollEvent;
  /** The previous poll's state (or one of the previous version); undefined on the first poll. */
  state?: PollState;
  /**
   * How many of the newest the first poll returns (default 0: it only notes what exists).
   * Zapier shows them as samples and seeds its dedupe with them.
   */
  firstPoll?: number;
  /** Page size asked for (1-100, default 100). */
  pageSize?: number;
  /** List requests at most in this poll (2-100, default 10). */
  budget?: number;
  /**
   * true (default): the state remembers what was emitted and only the new is returned.
   * false: the host dedupes by `polledEvent().id` (Zapier): every occurrence that may be new is
   * returned each time it is read, and the state keeps no keys.
   */
  remember?: boolean;
  /** Sent/failed: the window in days (1-365, default 7). */
  windowDays?: number;
}

export interface PollResult {
  /** New certificates, newest first. */
  certificates: Recipient[];
  state: PollState;
  /** List requests this poll made. */
  requests: number;
  /** What the host should log: a refused cursor, a shifted list, a walk the budget cut short. */
  notes: string[];
}

export interface PollAllOptions extends Omit<PollOptions, 'batchId' | 'state'> {
  /** The states by batch id from the previous poll; undefined on the first poll. */
  states?: Record<string, PollState>;
}

export interface PollAllResult {
  certificates: Recipient[];
  states: Record<string, PollState>;
  requests: number;
  notes: string[];
}

/** The webhook event type each poll event stands for. */
export const POLL_EVENT_TYPES: Record<PollEvent, EventType> = { issued: 'certificate.issued', sent: 'certificate.sent', failed: 'certificate.failed' };

/**
 * A polled certificate in the flat shape the instant triggers emit (flattenEvent), so a
 * workflow or Zap can switch between them. `id` identifies the occurrence (occurrenceKey;
 * Zapier dedupes on it). `createdAt` is when it happened, as far as the list says.
 */
export function polledEvent(event: PollEvent, recipient: Recipient): FlatEvent {
  const createdAt = event === 'sent' ? (recipient.emailSentAt ?? recipient.createdAt) : recipient.createdAt;
  return flattenEvent({ id: occurrenceKey(event, recipient), type: POLL_EVENT_TYPES[event], createdAt, data: recipient });
}

/** The one `emailStatus` filter of an event (issued: none). */
export const pollFilter = (event: PollEvent): string | undefined => (event === 'issued' ? undefined : event);

function checkEvent(event: unknown): PollEvent {
  if (!POLL_EVENTS.includes(event as PollEvent)) {
    throw validationError('event', `must be one of ${POLL_EVENTS.join(', ')}; got ${JSON.stringify(event)}`);
  }
  return event as PollEvent;
}

function checkCount(value: unknown, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw validationError(field, `must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value as number;
}

interface Settings {
  event: PollEvent;
  firstPoll: number;
  pageSize: number;
  budget: number;
  remember: boolean;
  windowMs: number;
}

function checkSettings(options: Omit<PollOptions, 'batchId' | 'state'>): Settings {
  const event = checkEvent(options.event);
  if (options.remember !== undefined && typeof options.remember !== 'boolean') throw validationError('remember', 'must be true or false');
  return {
    event,
    firstPoll: checkCount(options.firstPoll ?? 0, 'firstPoll', 0, 1000),
    pageSize: options.pageSize === undefined ? MAX_PAGE_SIZE : validateLimit(options.pageSize, 'pageSize'),
    budget: checkCount(options.budget ?? DEFAULT_BUDGET, 'budget', 2, 100),
    remember: options.remember ?? true,
    windowMs: checkCount(options.windowDays ?? DEFAULT_WINDOW_DAYS, 'windowDays', 1, 365) * DAY_MS,
  };
}

/** The same Api, counting the calls made through it. */
function counting(api: Api): { api: Api; count: () => number } {
  let n = 0;
  return { api: { call: (spec, decode) => (n++, api.call(spec, decode)), secrets: api.secrets }, count: () => n };
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
class PollRun {
  private order: ListOrder | undefined;
  private floor: number | undefined;
  private readonly known: Map<string, number>;
  private walk: Walk | undefined;
  private from: PollState['from'];
  private legacy: PollState['legacy'];
  private readonly legacyIds: Set<string>;
  /** Oldest first: where the next walk should start, found during this one. */
  private nextFrom: PollState['from'];
  private readonly emitted = new Map<string, Occurrence>();
  private readonly seeds = new Map<string, Occurrence>();
  private readonly read = new Map<string, Occurrence>();
  readonly notes: string[] = [];
  private requests = 0;

  constructor(
    private readonly api: Api,
    private readonly batchId: string,
    private readonly s: Settings,
    private readonly first: boolean,
    state: PollState,
  ) {
    this.order = state.order;
    this.floor = state.floor;
    this.known = new Map(state.known);
    this.walk = state.walk && { ...state.walk };
    this.from = state.from;
    this.legacy = state.legacy;
    this.legacyIds = new Set(state.legacy?.ids ?? []);
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
      const legacy = this.legacyIds;
      return {
        cursor: this.from.cursor,
        fits: (page) => {
          const head = page.items[0];
          if (!head) return false;
          // The previous version's cursor fetched its page of `legacy` ids: that page again is where it stopped.
          if (legacy.size > 0) return page.items.some((r) => legacy.has(r.id));
          return occurrence(this.s.event, head, 0).created < region;
        },
      };
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
    if (!this.from) this.onTopFallback(walk);
  }

  private restartFromTop(walk: Walk): void {
    walk.at = TOP;
    delete walk.back;
    this.from = undefined;
    this.onTopFallback(walk);
  }

  /** A walk of the previous version's state that lost its place cannot tell old from new: it notes everything. */
  private onTopFallback(walk: Walk): void {
    if (this.legacy) walk.quiet ??= ALL_QUIET;
  }

  /** One list request, within the budget; a refused cursor is 'refused' (the caller restarts from the top), any other failure throws. */
  private async fetch(cursor: string | null): Promise<DecodedPage<Recipient> | 'refused'> {
    this.requests++;
    try {
      return await listPage(this.api, this.batchId, { cursor: cursor ?? undefined, limit: this.s.pageSize, emailStatus: this.s.event === 'issued' ? undefined : this.s.event });
    } catch (error) {
      if (cursor === null || !isRefusal(error)) throw error;
      this.notes.push(`The service refused a saved list cursor (${error.status} ${error.code}: ${error.message}); reading the list again from the top.`);
      return 'refused';
    }
  }

  /** Takes a page and follows the next cursors: true when the walk is done, false when the budget ran out, 'refused' for a refused cursor. */
  private async follow(first: DecodedPage<Recipient>, fetchedWith: string | null): Promise<boolean | 'refused'> {
    const orderBefore = this.order;
    const created: number[] = [];
    const used = new Set<string>();
    let page = first;
    let cursor = fetchedWith;
    for (;;) {
      const last = this.take(page, cursor, created);
      this.order = orderAfter(created, orderBefore);
      if (page.restUnknown) throw page.restUnknown;
      const next = page.nextCursor;
      if (!next || page.items.length === 0) return true;
      if (this.order === 'newest-first' && last !== undefined && last < this.bounds(this.walk!).region) return true;
      if (used.has(next)) throw unreadableList('gave a next-page cursor it had given before, so the rest of the list cannot be read.');
      used.add(next);
      if (this.requests >= this.s.budget) return false;
      const fetched = await this.fetch(next);
      if (fetched === 'refused') return 'refused';
      [page, cursor] = [fetched, next];
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
    const legacy = this.legacy && { ids: this.legacyIds, ...(this.legacy.floor === undefined ? {} : { floor: this.legacy.floor }) };
    for (const o of list) {
      if (!this.read.has(o.key)) created.push(o.created);
      this.read.set(o.key, o);
      const verdict = judge(o, { event: this.s.event, ...b, known: this.known, ...(quiet === undefined ? {} : { quiet }), ...(legacy ? { legacy } : {}) });
      if (verdict === 'skip') continue;
      if (this.s.remember) this.known.set(o.key, keepUntil(o, this.s.event, this.s.windowMs));
      if (verdict === 'new') this.emitted.set(o.key, o);
      else if (!this.s.remember) this.seeds.set(o.key, o);
    }
    // Oldest first, the next walk starts at the last page that begins before its region.
    const nextRegion = bounds(this.s.event, Math.max(this.floor ?? -Infinity, walk.since ?? -Infinity), undefined, false, this.s.windowMs).region;
    if (list.length > 0 && list[0].created < nextRegion) this.nextFrom = { cursor: fetchedWith, ...(walk.at ? { back: walk.at.cursor } : {}) };
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
    this.from = this.order === 'oldest-first' && this.nextFrom ? this.nextFrom : undefined;
    this.nextFrom = undefined;
    this.legacy = undefined;
    this.legacyIds.clear();
    this.walk = undefined;
  }

  result(): PollResult {
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
      ...(this.legacy ? { legacy: this.legacy } : {}),
    };
    return { certificates: newestFirst(out).map((o) => o.recipient), state, requests: this.requests, notes: this.notes };
  }
}

/** One poll of one batch: what is new since `state`, newest first, and the state for the next poll (see the top of this file). */
export async function pollBatch(outer: Api, options: PollOptions): Promise<PollResult> {
  seg(options.batchId, 'batchId');
  const settings = checkSettings(options);
  const state = readState(options.state, settings.event);
  const { api, count } = counting(outer);
  const run = new PollRun(api, options.batchId, settings, state === undefined, state ?? { v: 2, known: [] });
  await run.poll();
  return { ...run.result(), requests: count() };
}

/**
 * One poll of every active batch: one paged read of the batch list, then one poll per batch
 * (each within the budget). A batch first seen after the first poll (created or unarchived
 * since) is new throughout. States of batches no longer active are kept, so an unarchived
 * batch does not replay its certificates.
 */
export async function pollActiveBatches(outer: Api, options: PollAllOptions): Promise<PollAllResult> {
  const settings = checkSettings(options);
  const first = options.states === undefined || options.states === null;
  const states: Record<string, PollState> = {};
  if (!first) {
    if (typeof options.states !== 'object' || Array.isArray(options.states)) throw validationError('states', 'must be the object a previous poll returned');
    for (const [id, s] of Object.entries(options.states as Record<string, unknown>)) states[id] = readState(s, settings.event, `states.${id}`)!;
  }
  const { api, count } = counting(outer);
  const batches: Batch[] = [];
  for await (const b of iterateBatches(api, { status: 'active' })) batches.push(b);
  const all: Occurrence[] = [];
  const notes: string[] = [];
  for (const batch of batches) {
    const state = first ? undefined : (states[batch.id] ?? { v: 2, known: [] });
    const result = await pollBatch(api, { ...options, batchId: batch.id, state });
    states[batch.id] = result.state;
    notes.push(...result.notes.map((n) => `Batch ${batch.id}: ${n}`));
    result.certificates.forEach((r, i) => all.push(occurrence(settings.event, r, i)));
  }
  const certificates = newestFirst(all).map((o) => o.recipient);
  return { certificates: first ? certificates.slice(0, settings.firstPoll) : certificates, states, requests: count(), notes };
}
