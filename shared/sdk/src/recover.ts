import { createHash } from 'crypto';
import { validationError } from './errors';
import type { Api } from './client/api';
import { iterateBatches } from './client/batches';
import { collect, MAX_PAGE_SIZE } from './pagination';
import { POLL_EVENT_TYPES, type Occurrence, type PollEvent } from './occurrence';
import { DAY_MS } from './poll/rules';
import { readFromFloor } from './poll/walk';
import { counting } from './poll';
import { requireObject } from './validation';
import { checkRecoverSettings, DEFAULT_WINDOW_DAYS, type RecoverSettingsInput } from './poll/settings';
import type { WebhookEvent } from './types';
import { claimOccurrence, type DeliveryStore } from './webhooks/store';

// Recovery: the events a receiver missed past the service's last retry (7 attempts over about
// 39 hours), derived from the lists, since the service keeps no list of past events. Each
// occurrence at or after `since` is found by one walk of each list from a floor of `since`
// (poll/walk.ts readFromFloor: the polls' reader, with no budget and nothing known) and handed
// over as the event the service would have delivered, marked `recovered: true`.
//
// - issued: certificates created at or after `since`;
// - sent: sends stamped (`emailSentAt`) at or after `since`, of any certificate: one issued
//   long before can be sent during the outage, so every batch read is read whole;
// - failed: the list gives no failure time (and `emailSentAt` stays at the last successful
//   send), so a failed certificate counts when it was issued at or after `since` minus 7 days
//   (the poll's window: a failure follows its send, mostly within days of the issue). A failure
//   of an older certificate is not recovered; one that had already run is a duplicate in a store
//   that holds that window. Its `createdAt` is the time its list was read: it stands for every
//   failure of the certificate until then (webhooks/store.ts claimOccurrence), so the service's
//   late copy of one of them is a duplicate, and a failure after the read runs;
// - viewed: not derivable from any list: never recovered.
// Cost: one list request per 100 certificates of every batch read (all batches, `status=all`,
// unless batches are named; a certificate whose email is not in a state asked for is not read).

/** An event recovered from the lists: the delivered shape, plus `recovered: true` at the top (readers ignore it). */
export type RecoveredEvent = WebhookEvent & { recovered: true };

/** What to recover: checked by checkRecoverSettings. */
export type FindOptions = RecoverSettingsInput;

export interface Found {
  /** Oldest first, with the key each is claimed by and the delivery id a forwarder sends it with. */
  events: { event: RecoveredEvent; key: string; deliveryId: string }[];
  /** List requests made (one per page of 100). */
  requests: number;
  notes: string[];
}

export interface RecoverOptions extends FindOptions {
  /**
   * The receiver's store. Recovery is exactly once only against a store that survives restarts
   * and still holds the keys of the whole window (`since` minus 7 days for failures), and that the
   * receiver shares while both run: fileStore on its machine, redisStore or postgresStore from any.
   * `memoryStore` forgets on restart and is one process's.
   */
  store: DeliveryStore;
  /** The receiver's own `onEvent`: each occurrence not yet claimed runs here once. */
  onEvent: (event: RecoveredEvent, delivery: { id: string; timestamp: number }) => unknown;
}

export interface RecoverResult {
  /** Occurrences in the window. */
  found: number;
  /** Run by `onEvent` now. */
  ran: number;
  /** Already claimed (run before, live or by an earlier recovery): not run again. */
  duplicates: number;
  /** Held by an attempt under way elsewhere: not run here (recover again later). */
  pending: number;
  /** `onEvent` threw: released, so a later recovery (or the service's retry) runs them. */
  failed: { key: string; error: unknown }[];
  requests: number;
  notes: string[];
}

/** Failures: certificates issued up to this many days before `since` are read (the list gives no failure time). */
export const RECOVER_FAILED_WINDOW_DAYS = DEFAULT_WINDOW_DAYS;

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);
/** Derived from the occurrence key, so a second recovery repeats the ids. */
export const recoveredIds = (key: string) => ({ eventId: `whe_r${hash(`event:${key}`)}`, deliveryId: `whd_r${hash(`delivery:${key}`)}` });

/** The time an event stands at: issued, its creation; sent, its send; failed, the latest time the list gives (the failure came after it). */
function eventTime(event: PollEvent, o: Occurrence): number {
  if (event === 'failed') return Math.max(o.created, o.recipient.emailSentAt ? Date.parse(o.recipient.emailSentAt) : -Infinity);
  return o.at ?? o.created;
}

/** Every occurrence in the window, read from the lists (see the top of this file); nothing is run or claimed. */
export async function findEvents(outer: Api, options: FindOptions): Promise<Found> {
  const { since, until = Infinity, events, batches } = checkRecoverSettings(options);
  const { api, count } = counting(outer);
  const batchIds = batches ?? (await collect(iterateBatches(api, { status: 'all' }))).map((b) => b.id);
  const found: (Found['events'][number] & { at: number })[] = [];
  const notes: string[] = [];
  for (const batchId of batchIds) {
    for (const event of events) {
      // One walk from a floor of `since`, no budget: sent reaches back to any issue, failed 7 days.
      const windowMs = event === 'failed' ? RECOVER_FAILED_WINDOW_DAYS * DAY_MS : Infinity;
      const read = await readFromFloor(api, { batchId, event, pageSize: MAX_PAGE_SIZE, windowMs }, since);
      const readAt = Date.now();
      notes.push(...read.notes.map((n) => `Batch ${batchId}: ${n}`));
      for (const o of read.occurrences) {
        const at = eventTime(event, o);
        // After `until` by the time its envelope carries (`createdAt`): not in the window.
        if (at > until) continue;
        const ids = recoveredIds(o.key);
        const envelope: RecoveredEvent = { id: ids.eventId, type: POLL_EVENT_TYPES[event], createdAt: new Date(event === 'failed' ? readAt : at).toISOString(), data: o.recipient, recovered: true };
        found.push({ event: envelope, key: o.key, deliveryId: ids.deliveryId, at });
      }
    }
  }
  found.sort((a, b) => a.at - b.at);
  return { events: found.map(({ at: _at, ...rest }) => rest), requests: count(), notes };
}

/**
 * Recovery into a receiver: each occurrence in the window is claimed in `store` by its key (the
 * receivers' own claim) and, when it was not claimed before, run by `onEvent` once.
 */
export async function recoverEvents(api: Api, options: RecoverOptions): Promise<RecoverResult> {
  requireObject(options, 'options');
  const { store, onEvent } = options;
  if (!store || typeof store.claim !== 'function' || typeof store.settle !== 'function') throw validationError('store', "must be the receiver's DeliveryStore");
  if (typeof onEvent !== 'function') throw validationError('onEvent', "must be the receiver's onEvent function");
  const found = await findEvents(api, options);
  const result: RecoverResult = { found: found.events.length, ran: 0, duplicates: 0, pending: 0, failed: [], requests: found.requests, notes: found.notes };
  for (const { event, key, deliveryId } of found.events) {
    // The receivers' own claim: a recovered failure stands at the time its list was read.
    const failure = event.type === 'certificate.failed' ? { at: Date.parse(event.createdAt), recovered: true } : undefined;
    const { state, attempt } = await claimOccurrence(store, key, failure);
    if (state === 'done') result.duplicates++;
    if (state === 'pending') result.pending++;
    if (state !== 'taken') continue;
    try {
      await onEvent(event, { id: deliveryId, timestamp: Math.floor(Date.now() / 1000) });
    } catch (error) {
      await store.settle(key, false, undefined, attempt);
      result.failed.push({ key, error });
      continue;
    }
    await store.settle(key, true, failure?.at, attempt);
    result.ran++;
  }
  return result;
}
