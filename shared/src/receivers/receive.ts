import type { WebhookEvent } from '../types';
import { DeliveryDeduper } from '../webhooks/dedupe';
import { getHeader, type HeaderBag } from '../headers';
import { checkDelivery, type VerificationFailure } from '../webhooks/verify';

/**
 * Where a receiver remembers the delivery ids it has handled (delivery is at-least-once, and a
 * retry or duplicate carries the same `X-Service-Delivery`). `claim(id)` returns true the first
 * time an id is seen and false after that. Back it with Redis `SET id 1 NX EX 86400`, a unique
 * key in SQL, …, when several processes receive; the default is an in-memory LRU of 1,000 ids.
 */
export interface DeliveryStore {
  claim(id: string): boolean | Promise<boolean>;
  /** Called when `onEvent` failed, so the service's retry is handled instead of skipped. */
  release?(id: string): void | Promise<void>;
}

/** The default store: the core's bounded `DeliveryDeduper`, in this process's memory. */
export function memoryStore(maxSize = 1000): DeliveryStore {
  const deduper = new DeliveryDeduper(maxSize);
  return { claim: (id) => !deduper.seen(id), release: (id) => deduper.forget(id) };
}

export interface DeliveryInfo {
  /** `X-Service-Delivery` (the event id when the header is missing). */
  id: string;
  /** The signed timestamp, unix seconds. */
  timestamp: number;
}

export interface ReceiverOptions {
  /** The subscription's signing secret; several while rotating (any one may match). */
  secret: string | string[];
  /** Runs once per delivery id, after the signature checked out. A throw answers 500 (the service retries). */
  onEvent: (event: WebhookEvent, delivery: DeliveryInfo) => unknown;
  /** Default: `memoryStore()`. */
  store?: DeliveryStore;
  /** Replay window around the signed timestamp (default 300 s). */
  toleranceSeconds?: number;
  /** Told about a failed `onEvent` or store (default: `console.error`). */
  onError?: (error: unknown, event: WebhookEvent) => void;
}

export interface ReceiverAnswer {
  status: 200 | 400 | 401 | 413 | 500;
  body: { received: true; duplicate?: true } | { error: VerificationFailure | 'BODY_TOO_LARGE' | 'HANDLER_FAILED'; message: string };
}

// A body problem is the sender's or the app's wiring (400); a signature problem is who sent it (401).
const BAD_REQUEST: VerificationFailure[] = ['MISSING_BODY', 'NOT_RAW_BODY', 'INVALID_PAYLOAD'];

/**
 * The framework-neutral receiver every adapter wraps: verify the raw body against the
 * signature, claim the delivery id, run `onEvent`, and say what to answer.
 */
export function createReceiver(options: ReceiverOptions): (rawBody: unknown, headers: HeaderBag | undefined) => Promise<ReceiverAnswer> {
  const secrets = (Array.isArray(options.secret) ? options.secret : [options.secret]).filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new Error('A receiver needs the subscription\'s signing secret (`secret`, starting with wh_sec_).');
  if (typeof options.onEvent !== 'function') throw new Error('A receiver needs an `onEvent(event, delivery)` function.');
  const store = options.store ?? memoryStore();
  const onError = options.onError ?? ((error: unknown) => console.error('Certificate Service receiver: answered 500 so the service retries.', error));

  return async (rawBody, headers) => {
    const result = checkDelivery(rawBody, headers, secrets, { toleranceSeconds: options.toleranceSeconds });
    if (!result.ok) return { status: BAD_REQUEST.includes(result.reason) ? 400 : 401, body: { error: result.reason, message: result.message } };
    // Claimed only after the signature checked out, so forged requests cannot fill the store.
    const delivery = { id: getHeader(headers, 'X-Service-Delivery') ?? result.event.id, timestamp: result.timestamp };
    let claimed = false;
    try {
      claimed = await store.claim(delivery.id);
      if (!claimed) return { status: 200, body: { received: true, duplicate: true } };
      await options.onEvent(result.event, delivery);
    } catch (error) {
      // A failed store or handler answers 500, so the service delivers it again later.
      if (claimed) await Promise.resolve(store.release?.(delivery.id)).catch(() => {});
      onError(error, result.event);
      return { status: 500, body: { error: 'HANDLER_FAILED', message: 'The receiver could not handle this delivery; the service will retry it.' } };
    }
    return { status: 200, body: { received: true } };
  };
}
