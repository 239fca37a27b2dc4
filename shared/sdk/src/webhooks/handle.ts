import { getHeader, type HeaderBag } from '../headers';
import type { WebhookEvent } from '../types';
import { DeliveryDeduper } from './dedupe';
import { checkDelivery, type VerificationFailure, type VerifyOptions } from './verify';

/**
 * Where a receiver remembers the delivery ids it has handled (delivery is at-least-once, and a
 * retry or duplicate carries the same `X-Service-Delivery`). `claim(id)` returns true the first
 * time an id is seen and false after that. The n8n trigger backs it with its memory and static
 * data, the Zapier trigger with `z.cache` (nx), an app with Redis `SET id 1 NX EX 86400`, a
 * unique key in SQL, …; the default is an in-memory LRU of 1,000 ids.
 */
export interface DeliveryStore {
  claim(id: string): boolean | Promise<boolean>;
  /** Called when handling the event failed, so the service's retry is handled instead of skipped. */
  release?(id: string): void | Promise<void>;
}

/** The default store: the core's bounded `DeliveryDeduper`, in this process's memory. */
export function memoryStore(maxSize = 1000): DeliveryStore {
  const deduper = new DeliveryDeduper(maxSize);
  return { claim: (id) => !deduper.seen(id), release: (id) => deduper.forget(id) };
}

export interface HandleOptions extends VerifyOptions {
  /** The subscription's signing secret; several while rotating (any one may match). */
  secrets: string | Array<string | undefined | null>;
  /** Remembers delivery ids; without one, duplicates are not dropped. */
  store?: DeliveryStore;
  /** Why a verified event is not wanted here (another event type, another batch), or undefined to take it. */
  accept?: (event: WebhookEvent) => string | undefined;
}

/** What became of a delivery. `deliveryId` is the idempotency key: `X-Service-Delivery`, else the event id. */
export type DeliveryResult =
  | { outcome: 'accepted'; event: WebhookEvent; deliveryId: string; timestamp: number }
  | { outcome: 'rejected'; reason: VerificationFailure; message: string; deliveryId?: string }
  | { outcome: 'filtered'; why: string; event: WebhookEvent; deliveryId: string }
  | { outcome: 'duplicate'; event: WebhookEvent; deliveryId: string };

/**
 * The one delivery pipeline, for every host (the n8n trigger, the Zapier trigger, the SDK's
 * receivers): verify, filter, deduplicate, in that order.
 * - Verify first: nothing from an unsigned or forged request is read or remembered.
 * - Filter before deduplicating: a delivery this receiver does not want takes no place in
 *   the store (n8n keeps only 200 ids in static data; Zapier's cache writes are rate limited).
 * - Deduplicate last, with one key: `X-Service-Delivery` (the spec's idempotency key), or
 *   the event id when a delivery lacks the header.
 */
export async function handleDelivery(rawBody: unknown, headers: HeaderBag | null | undefined, options: HandleOptions): Promise<DeliveryResult> {
  const headerId = getHeader(headers, 'X-Service-Delivery');
  const check = checkDelivery(rawBody, headers, options.secrets, options);
  if (!check.ok) return { outcome: 'rejected', reason: check.reason, message: check.message, ...(headerId ? { deliveryId: headerId } : {}) };
  const { event } = check;
  const deliveryId = headerId ?? event.id;
  const why = options.accept?.(event);
  if (why !== undefined) return { outcome: 'filtered', why, event, deliveryId };
  if (options.store && !(await options.store.claim(deliveryId))) return { outcome: 'duplicate', event, deliveryId };
  return { outcome: 'accepted', event, deliveryId, timestamp: check.timestamp };
}

/** An `accept` for the usual filters: the event types chosen (none: all) and one batch (empty: all). */
export function acceptOnly(filter: { events?: readonly string[]; batchId?: string }): (event: WebhookEvent) => string | undefined {
  return (event) => {
    if (filter.events?.length && !filter.events.includes(event.type)) return `event ${event.type} is not selected`;
    if (filter.batchId && event.data?.batchId !== filter.batchId) return `batch ${String(event.data?.batchId)} is not the selected batch`;
    return undefined;
  };
}
