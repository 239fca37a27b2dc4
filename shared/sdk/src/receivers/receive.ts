import type { WebhookEvent } from '../types';
import type { HeaderBag } from '../headers';
import { handleDelivery, memoryStore, type DeliveryStore } from '../webhooks/handle';
import type { VerificationFailure } from '../webhooks/verify';

export { memoryStore, type DeliveryStore } from '../webhooks/handle';

export interface DeliveryInfo {
  /** `X-Service-Delivery` (the event id when the header is missing). */
  id: string;
  /** The signed timestamp, unix seconds. */
  timestamp: number;
}

export interface ReceiverOptions {
  /**
   * The subscription's signing secret; several while rotating (any one may match). It may be
   * `undefined` in the type (`sub.secret`, `process.env.…` under `strict`); a missing one throws
   * when the receiver is made, not when the first delivery arrives.
   */
  secret: string | readonly string[] | undefined;
  /** Runs once per delivery id, after the signature checked out. A throw answers 500 (the service retries). */
  onEvent: (event: WebhookEvent, delivery: DeliveryInfo) => unknown;
  /** Default: `memoryStore()`. */
  store?: DeliveryStore;
  /** Replay window around the signed timestamp (default 300 s). */
  toleranceSeconds?: number;
  /** Told about a failed `onEvent` or store (default: `console.error`). */
  onError?: (error: unknown, event: WebhookEvent | undefined) => void;
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
  const secrets = (typeof options.secret === 'string' || options.secret === undefined ? [options.secret] : [...options.secret]).filter((s): s is string => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new Error('A receiver needs the subscription\'s signing secret (`secret`, starting with wh_sec_).');
  if (typeof options.onEvent !== 'function') throw new Error('A receiver needs an `onEvent(event, delivery)` function.');
  const store = options.store ?? memoryStore();
  const onError = options.onError ?? ((error: unknown) => console.error('Certificate Service receiver: answered 500 so the service retries.', error));

  return async (rawBody, headers) => {
    let claimed: string | undefined;
    let event: WebhookEvent | undefined;
    try {
      // The core's pipeline: verify, then claim the delivery id (forged requests cannot fill the store).
      const result = await handleDelivery(rawBody, headers, { secrets, store, toleranceSeconds: options.toleranceSeconds });
      if (result.outcome === 'rejected') return { status: BAD_REQUEST.includes(result.reason) ? 400 : 401, body: { error: result.reason, message: result.message } };
      if (result.outcome !== 'accepted') return { status: 200, body: { received: true, duplicate: true } };
      ({ event, deliveryId: claimed } = result);
      await options.onEvent(result.event, { id: result.deliveryId, timestamp: result.timestamp });
    } catch (error) {
      // A failed store or handler answers 500, so the service delivers it again later.
      if (claimed !== undefined) await Promise.resolve(store.release?.(claimed)).catch(() => {});
      onError(error, event);
      return { status: 500, body: { error: 'HANDLER_FAILED', message: 'The receiver could not handle this delivery; the service will retry it.' } };
    }
    return { status: 200, body: { received: true } };
  };
}
