import { getHeader, type HeaderBag } from '../headers';
import type { WebhookEvent } from '../types';
import { occurrenceEvent, occurrenceKey } from '../occurrence';
import { checkSignature, failureMessage, readEnvelope, type OtherEnvelope, type VerificationFailure, type VerifyOptions } from './verify';
import { claimOccurrence, type DeliveryStore, type FailureTime } from './store';

export interface HandleOptions extends VerifyOptions {
  /** The subscription's signing secret; several while rotating (any one may match). */
  secrets: string | Array<string | undefined | null>;
  /** Remembers claims (claimKey); without one, duplicates are not dropped. */
  store?: DeliveryStore;
  /** Why a verified event is not wanted here (another event type, another batch), or undefined to take it. */
  accept?: (event: WebhookEvent) => string | undefined;
}

/**
 * The one key a receiver claims for a certificate event: its occurrence (occurrence.ts),
 * so a delivery, its retries, the service's copies, a poll and a recovery of the same thing
 * run once between them, and each delivery takes one place in the store (two claims could
 * half-fail on a crash, and would halve what a store holds). `certificate.viewed` cannot be
 * read from a list: it keeps the delivery id, as does a `sent` event without a readable
 * `emailSentAt`.
 */
export function claimKey(event: WebhookEvent, deliveryId: string): string {
  const kind = occurrenceEvent(event.type);
  return (kind && event.data && occurrenceKey(kind, event.data)) || deliveryId;
}

/**
 * When a certificate failure happened, for its claim (store.ts claimOccurrence): the envelope's
 * `createdAt`, the service's time of the event. A recovered copy (`recovered: true`, inside the
 * signed body) carries the time its list was read. Undefined for other events, for a failure
 * claimed by its delivery id, and for a time that cannot be read (the key alone then decides).
 */
function failureTime(event: WebhookEvent, deliveryId: string): FailureTime | undefined {
  if (event.type !== 'certificate.failed' || claimKey(event, deliveryId) === deliveryId) return undefined;
  const at = Date.parse(event.createdAt);
  return Number.isNaN(at) ? undefined : { at, recovered: (event as { recovered?: unknown }).recovered === true };
}

/**
 * What became of a delivery, and what the host answers. `deliveryId` is `X-Service-Delivery`,
 * else the envelope's id; `claim` is what the store holds (claimKey).
 * - `accepted`: run it. The claim is now pending in the store: call `settle(true)` once the host
 *   answered 2xx (it was handled), `settle(false)` when it answered anything else or failed, so
 *   the service's retry runs it. Only the first call counts.
 * - `rejected`: not from the service, or not readable (answer 400/401).
 * - `notCertificate`: genuine, but not a certificate event (the test delivery may be one).
 *   Answer 2xx (a non-2xx is retried 7 times), log it, run nothing.
 * - `filtered`: not wanted by this receiver (answer 2xx, run nothing).
 * - `pending`: another attempt of this delivery is still under way. Answer 503 with
 *   `Retry-After` (never 410, which unsubscribes) and run nothing: the first attempt's outcome
 *   decides, and the service's retry then finds the id done or free.
 * - `duplicate`: handled before (answer 2xx, run nothing).
 */
export type DeliveryResult =
  | { outcome: 'accepted'; event: WebhookEvent; deliveryId: string; claim: string; timestamp: number; settle: (ok: boolean) => Promise<void> }
  | { outcome: 'rejected'; reason: VerificationFailure; message: string; deliveryId?: string }
  | { outcome: 'notCertificate'; why: string; envelope: OtherEnvelope; deliveryId: string }
  | { outcome: 'filtered'; why: string; event: WebhookEvent; deliveryId: string }
  | { outcome: 'pending'; event: WebhookEvent; deliveryId: string; claim: string }
  | { outcome: 'duplicate'; event: WebhookEvent; deliveryId: string; claim: string };

/** What a host answers a copy of a delivery that is pending: the service's first retry delay. */
export const PENDING_RETRY_AFTER_SECONDS = 60;

/**
 * The one delivery pipeline, for every host (the n8n trigger, Verify, the Zapier trigger, the
 * SDK's receivers): verify, read, filter, claim, in that order.
 * - Verify first: nothing from an unsigned or forged request is read or remembered.
 * - Read: a genuine envelope that is not a certificate event is never run as one.
 * - Filter before claiming: a delivery this receiver does not want takes no place in the store
 *   (n8n keeps only 200 ids in static data; Zapier's cache writes are rate limited).
 * - Claim last, with one key: the occurrence (claimKey), else `X-Service-Delivery` (the
 *   spec's idempotency key), or the envelope's id when a delivery lacks the header.
 */
export async function handleDelivery(rawBody: unknown, headers: HeaderBag | null | undefined, options: HandleOptions): Promise<DeliveryResult> {
  const headerId = getHeader(headers, 'X-Service-Delivery');
  const rejected = (reason: VerificationFailure, message: string): DeliveryResult => ({ outcome: 'rejected', reason, message, ...(headerId ? { deliveryId: headerId } : {}) });
  const signature = checkSignature(rawBody, headers, options.secrets, options);
  if (!signature.ok) return rejected(signature.reason, signature.message);
  const read = readEnvelope(rawBody as string | Buffer);
  if (!read) return rejected('INVALID_PAYLOAD', failureMessage('INVALID_PAYLOAD'));
  if (read.kind === 'other') return { outcome: 'notCertificate', why: read.why, envelope: read.envelope, deliveryId: headerId ?? read.envelope.id };
  const { event } = read;
  const deliveryId = headerId ?? event.id;
  const why = options.accept?.(event);
  if (why !== undefined) return { outcome: 'filtered', why, event, deliveryId };
  const { store } = options;
  const failure = failureTime(event, deliveryId);
  const { key: claim, state, attempt } = store ? await claimOccurrence(store, claimKey(event, deliveryId), failure) : { key: claimKey(event, deliveryId), state: 'taken', attempt: undefined };
  if (state === 'pending') return { outcome: 'pending', event, deliveryId, claim };
  if (state === 'done') return { outcome: 'duplicate', event, deliveryId, claim };
  let settled = false;
  const settle = async (ok: boolean) => {
    if (settled) return;
    settled = true;
    await store?.settle(claim, ok, failure?.at, attempt);
  };
  return { outcome: 'accepted', event, deliveryId, claim, timestamp: signature.timestamp, settle };
}

/** An `accept` for the usual filters: the event types chosen (none: all) and one batch (empty: all). */
export function acceptOnly(filter: { events?: readonly string[]; batchId?: string }): (event: WebhookEvent) => string | undefined {
  return (event) => {
    if (filter.events?.length && !filter.events.includes(event.type)) return `event ${event.type} is not selected`;
    if (filter.batchId && event.data?.batchId !== filter.batchId) return `batch ${String(event.data?.batchId)} is not the selected batch`;
    return undefined;
  };
}
