import { CertificateServiceError, validationError } from '../errors';
import { MAX_PAGE_SIZE } from '../pagination';
import { validateLimit } from '../validation';
import type { Batch, EventType, Recipient } from '../types';
import { flattenEvent, type FlatEvent } from '../webhooks/flatten';
import type { Api } from './api';
import { endpointName, ENDPOINTS } from './endpoints';
import { seg } from './api';
import { iterateBatches } from './batches';
import { listPage } from './recipients';

// Polling: what a trigger without a webhook subscription reads to find new certificates.
//
// The spec does not say in which order `GET /batches/{id}/recipients` lists them, so the
// order is read from `createdAt` (the first two different values) and every poll returns
// newest first, as Zapier's dedupe needs. Each poll reads only the pages it needs:
//
// - newest first: pages from the top until one reaches the high-water mark (the newest
//   `createdAt` seen): 1 request while fewer than a page of certificates are new;
// - oldest first: from the cursor that fetched the last page read, which is read again
//   (the list gave no cursor past its end) and then followed: 1 request plus one per new
//   full page, whatever the size of the batch. Only the very first poll of an oldest-first
//   list walks it once, to find its end.
//
// Events: `issued` reads the whole list; `sent` and `failed` read it filtered by
// `emailStatus`. A certificate is new for `issued` when it is newer than the mark (or as old
// and not among the ids at the mark: ties in `createdAt`, such as one bulk call's). A
// certificate becomes `sent` or `failed` later than it was created, so for those events it
// is new when its id is not among those of the overlap page (the top page, newest first; the
// re-read last page, oldest first): a late send is seen while the certificate is within that
// page of the filtered list. Older late changes are out of reach of a list ordered by
// creation; the instant triggers see every one. A full top page also keeps its oldest
// `createdAt` (the floor), so a certificate that a deletion moves up into it is not new.

export type PollEvent = 'issued' | 'sent' | 'failed';
export const POLL_EVENTS: readonly PollEvent[] = ['issued', 'sent', 'failed'];
export type ListOrder = 'newest-first' | 'oldest-first';

/** What a poll leaves for the next one of the same batch and event. JSON-safe; the host stores it as is. */
export interface PollState {
  /** Detected from `createdAt`; absent until two different values were seen. */
  order?: ListOrder;
  /** The newest `createdAt` seen (as the service wrote it); absent while nothing was seen. */
  mark?: string;
  /** Ids of the overlap page (`sent`/`failed`) or of the certificates at the mark (`issued`). */
  known: string[];
  /** Oldest first: the cursor that fetched the last page read (null: the first page). */
  cursor?: string | null;
  /**
   * Sent/failed, newest first, when the overlap page was full: its oldest `createdAt`. A
   * certificate below it was outside the page, so when a deletion moves it into the page it
   * is not taken for a new one.
   */
  floor?: string;
}

export interface PollOptions {
  batchId: string;
  event: PollEvent;
  /** The previous poll's state; undefined on the first poll. */
  state?: PollState;
  /**
   * How many of the newest certificates the first poll returns (default 0: it only sets the
   * mark). Hosts choose: Zapier shows them as samples and seeds its dedupe with them.
   */
  firstPoll?: number;
  /** Page size asked for (1-100, default 100). */
  pageSize?: number;
}

export interface PollResult {
  /** New certificates, newest first. */
  certificates: Recipient[];
  state: PollState;
  /** List requests this poll made. */
  requests: number;
}

export interface PollAllOptions {
  event: PollEvent;
  /** The states by batch id from the previous poll; undefined on the first poll. */
  states?: Record<string, PollState>;
  firstPoll?: number;
  pageSize?: number;
}

export interface PollAllResult {
  certificates: Recipient[];
  states: Record<string, PollState>;
  requests: number;
}

/** The webhook event type each poll event stands for. */
export const POLL_EVENT_TYPES: Record<PollEvent, EventType> = { issued: 'certificate.issued', sent: 'certificate.sent', failed: 'certificate.failed' };

/**
 * A polled certificate in the flat shape the instant triggers emit (flattenEvent), so a
 * workflow or Zap can switch between them. `id` identifies the occurrence (Zapier dedupes on
 * it): issued, the certificate; sent, the certificate and when it was sent (a later send is
 * another occurrence); failed, the certificate and its status (the list does not say when an
 * email failed). `createdAt` is when it happened, as far as the list says.
 */
export function polledEvent(event: PollEvent, recipient: Recipient): FlatEvent {
  const id = event === 'issued' ? recipient.id : event === 'sent' ? `${recipient.id}:sent:${recipient.emailSentAt ?? ''}` : `${recipient.id}:${event}`;
  const createdAt = event === 'sent' ? (recipient.emailSentAt ?? recipient.createdAt) : recipient.createdAt;
  return flattenEvent({ id, type: POLL_EVENT_TYPES[event], createdAt, data: recipient });
}

/** The one `emailStatus` filter of an event (issued: none). */
export const pollFilter = (event: PollEvent): string | undefined => (event === 'issued' ? undefined : event);

function checkEvent(event: unknown): PollEvent {
  if (!POLL_EVENTS.includes(event as PollEvent)) {
    throw validationError('event', `must be one of ${POLL_EVENTS.join(', ')}; got ${JSON.stringify(event)}`);
  }
  return event as PollEvent;
}

function checkCount(value: unknown, field: string, max: number): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max) {
    throw validationError(field, `must be a whole number from 0 to ${max}; got ${JSON.stringify(value)}`);
  }
  return value as number;
}

/** A stored state, checked: hosts keep it between polls, and a damaged one must not read as "no new items". */
function checkState(state: unknown, field = 'state'): PollState | undefined {
  if (state === undefined || state === null) return undefined;
  const s = state as Record<string, unknown>;
  const bad = (key: string, what: string) => validationError(`${field}.${key}`, `must be ${what}; reset the trigger's saved state`);
  if (typeof state !== 'object' || Array.isArray(state)) throw validationError(field, 'must be the object a previous poll returned');
  if (!Array.isArray(s.known) || !s.known.every((id) => typeof id === 'string')) throw bad('known', 'a list of ids');
  if (s.order !== undefined && s.order !== 'newest-first' && s.order !== 'oldest-first') throw bad('order', '"newest-first" or "oldest-first"');
  if (s.mark !== undefined && (typeof s.mark !== 'string' || Number.isNaN(Date.parse(s.mark)))) throw bad('mark', 'a timestamp');
  if (s.cursor !== undefined && s.cursor !== null && typeof s.cursor !== 'string') throw bad('cursor', 'a cursor or null');
  if (s.floor !== undefined && (typeof s.floor !== 'string' || Number.isNaN(Date.parse(s.floor)))) throw bad('floor', 'a timestamp');
  return s as unknown as PollState;
}

function unreadable(endpoint: string, message: string): CertificateServiceError {
  return new CertificateServiceError({ code: 'UNEXPECTED_RESPONSE', phase: 'response', status: 200, detail: { endpoint }, message });
}

const ENDPOINT = endpointName(ENDPOINTS.listRecipients);

/** `createdAt` as milliseconds; a certificate without a readable one cannot be placed, so the list is unreadable. */
function timeOf(r: Recipient, index: number): number {
  const t = typeof r.createdAt === 'string' ? Date.parse(r.createdAt) : NaN;
  if (Number.isNaN(t)) {
    throw unreadable(ENDPOINT, `${ENDPOINT} listed a certificate (item ${index}) without a readable "createdAt", so new certificates cannot be told from old ones.`);
  }
  return t;
}

/** The order of `times` (in list order), or undefined while every value is the same. Throws when it is neither. */
function orderOf(times: number[], known?: ListOrder): ListOrder | undefined {
  let order = known;
  for (let i = 1; i < times.length; i++) {
    if (times[i] === times[i - 1]) continue;
    const step: ListOrder = times[i] < times[i - 1] ? 'newest-first' : 'oldest-first';
    if (order === undefined) order = step;
    else if (order !== step) {
      throw unreadable(ENDPOINT, `${ENDPOINT} listed certificates in neither newest-first nor oldest-first order of "createdAt", so new certificates cannot be found without reading the whole batch.`);
    }
  }
  return order;
}

interface Read {
  item: Recipient;
  t: number;
}

/** Newest first; ties keep the list's order (newest-first lists) or are reversed with it. */
function newestFirst(read: Read[], order: ListOrder | undefined): Read[] {
  const list = order === 'oldest-first' ? [...read].reverse() : [...read];
  return list.sort((a, b) => b.t - a.t);
}

/** The same Api, counting the calls made through it. */
function counting(api: Api): { api: Api; count: () => number } {
  let n = 0;
  return { api: { call: (spec, decode) => (n++, api.call(spec, decode)), secrets: api.secrets }, count: () => n };
}

/**
 * One poll of one batch: the certificates new since `state`, newest first, and the state
 * for the next poll. Reads pages as described at the top of this file.
 */
export async function pollBatch(outer: Api, options: PollOptions): Promise<PollResult> {
  const batchId = options.batchId;
  seg(batchId, 'batchId');
  const event = checkEvent(options.event);
  const firstPoll = checkCount(options.firstPoll ?? 0, 'firstPoll', 1000);
  const pageSize = options.pageSize === undefined ? MAX_PAGE_SIZE : validateLimit(options.pageSize, 'pageSize');
  const state = checkState(options.state);
  const markTime = state?.mark === undefined ? undefined : Date.parse(state.mark);
  const known = new Set(state?.known ?? []);
  const floorTime = state?.floor === undefined ? undefined : Date.parse(state.floor);
  let order = state?.order;
  const { api, count } = counting(outer);

  // A newest-first read has what it needs once it reached the mark (or, on the first poll,
  // once it holds the newest `firstPoll`); a read without a mark needs everything.
  const enough = (read: Read[]): boolean => {
    if (!state) return read.length >= firstPoll;
    return markTime !== undefined && read.some((r) => r.t <= markTime);
  };

  // Oldest first: continue from the last page read. Otherwise (or while the order is not known) from the top.
  const start = order === 'oldest-first' ? (state?.cursor ?? undefined) : undefined;
  let cursor = start;
  let lastPage: Read[] = [];
  let lastPageCursor: string | null = start ?? null;
  const read: Read[] = [];
  const used = new Set<string>();
  for (;;) {
    const page = await listPage(api, batchId, { cursor, limit: pageSize, emailStatus: pollFilter(event) });
    const items = page.items.map((item, i) => ({ item, t: timeOf(item, read.length + i) }));
    read.push(...items);
    order = orderOf(read.map((r) => r.t), order);
    if (items.length > 0) [lastPage, lastPageCursor] = [items, cursor ?? null];
    if (order === 'newest-first' && enough(read)) break;
    // Same guards as every paged read (pagination.ts): no part of a list passes for all of it.
    if (page.restUnknown) throw page.restUnknown;
    if (!page.nextCursor || items.length === 0) break;
    if (used.has(page.nextCursor)) throw unreadable(ENDPOINT, `${ENDPOINT} gave a next-page cursor it had given before, so the rest of the list cannot be read.`);
    used.add(page.nextCursor);
    cursor = page.nextCursor;
  }

  const isNew = (r: Read): boolean => {
    if (event !== 'issued') return !known.has(r.item.id) && (floorTime === undefined || r.t >= floorTime);
    if (markTime === undefined || r.t > markTime) return true;
    return r.t === markTime && !known.has(r.item.id);
  };
  const sorted = dedupeIds(newestFirst(read, order));
  const certificates = (state ? sorted.filter(isNew) : sorted.slice(0, firstPoll)).map((r) => r.item);

  // The next state. The mark only moves forward.
  const newest = sorted[0];
  const mark = newest && (markTime === undefined || newest.t >= markTime) ? newest.item.createdAt : state?.mark;
  const markT = mark === undefined ? undefined : Date.parse(mark);
  let nextKnown: string[];
  let floor: string | undefined;
  if (event === 'issued') {
    const atMark = sorted.filter((r) => r.t === markT).map((r) => r.item.id);
    // Certificates at an unchanged mark that this read did not reach stay known.
    nextKnown = markT === markTime ? [...new Set([...known, ...atMark])] : atMark;
  } else {
    const overlap = order === 'oldest-first' ? lastPage : sorted.slice(0, pageSize);
    nextKnown = overlap.length > 0 ? overlap.map((r) => r.item.id) : [...known];
    // A full top page may have more below it; a shorter one was the whole list.
    if (order !== 'oldest-first' && overlap.length >= pageSize) floor = overlap[overlap.length - 1].item.createdAt;
  }
  const next: PollState = { ...(order ? { order } : {}), ...(mark !== undefined ? { mark } : {}), known: nextKnown, ...(floor ? { floor } : {}) };
  if (order !== 'newest-first') next.cursor = lastPage.length > 0 ? lastPageCursor : (state?.cursor ?? null);
  return { certificates, state: next, requests: count() };
}

function dedupeIds(list: Read[]): Read[] {
  const seen = new Set<string>();
  return list.filter((r) => (seen.has(r.item.id) ? false : (seen.add(r.item.id), true)));
}

/**
 * One poll of every active batch: one paged read of the batch list, then one poll per
 * batch. A batch first seen after the first poll (created or unarchived since) is read from
 * its start: all its certificates are new. States of batches no longer active are kept, so
 * an unarchived batch does not replay its certificates.
 */
export async function pollActiveBatches(outer: Api, options: PollAllOptions): Promise<PollAllResult> {
  const event = checkEvent(options.event);
  const first = options.states === undefined || options.states === null;
  const states: Record<string, PollState> = {};
  if (!first) {
    if (typeof options.states !== 'object' || Array.isArray(options.states)) throw validationError('states', 'must be the object a previous poll returned');
    for (const [id, s] of Object.entries(options.states as Record<string, unknown>)) states[id] = checkState(s, `states.${id}`) as PollState;
  }
  const { api, count } = counting(outer);
  const batches: Batch[] = [];
  for await (const b of iterateBatches(api, { status: 'active' })) batches.push(b);
  const all: Read[] = [];
  let requests = count();
  for (const batch of batches) {
    const state = first ? undefined : (states[batch.id] ?? { known: [] });
    const result = await pollBatch(outer, { batchId: batch.id, event, state, firstPoll: options.firstPoll, pageSize: options.pageSize });
    requests += result.requests;
    states[batch.id] = result.state;
    result.certificates.forEach((item, i) => all.push({ item, t: timeOf(item, i) }));
  }
  const certificates = newestFirst(all, 'newest-first').map((r) => r.item);
  return { certificates: first ? certificates.slice(0, options.firstPoll ?? 0) : certificates, states, requests };
}
