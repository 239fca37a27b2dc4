import type { WebhookEvent } from '../types';
import { assertNever } from '../assert-never';
import type { HeaderBag } from '../headers';
import { handleDelivery, PENDING_RETRY_AFTER_SECONDS } from '../webhooks/handle';
import { memoryStore, type DeliveryStore } from '../webhooks/store';
import type { OtherEnvelope, VerificationFailure } from '../webhooks/verify';

export { memoryStore, type DeliveryStore } from '../webhooks/store';

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
  /**
   * Told about a failed `onEvent` or store (answered 500), a handled delivery the store could
   * not record as done (a `NotRecordedError`, answered 200), or a body a parser had already read
   * (a `NotRawBodyError`, answered 400: the app's wiring, with the fix). Default: `console.error`.
   */
  onError?: (error: unknown, event: WebhookEvent | undefined) => void;
  /**
   * Told about a genuine delivery that is not a certificate event (its `data` is no recipient,
   * or its type is not one of the four; the service's test delivery may be one). It is answered
   * 200 and never reaches `onEvent`. Default: `console.warn`.
   */
  onNotCertificate?: (envelope: OtherEnvelope, why: string, deliveryId: string) => void;
}

export interface ReceiverAnswer {
  status: 200 | 400 | 401 | 413 | 500 | 503;
  /** `Retry-After` on a 503. */
  headers?: Record<string, string>;
  body:
    | { received: true; duplicate?: true; notCertificate?: true }
    | { error: VerificationFailure | 'BODY_TOO_LARGE' | 'HANDLER_FAILED' | 'DELIVERY_PENDING'; message: string };
}

/** What `onError` is told when a handled delivery could not be recorded as done (the cause in `cause`). */
export class NotRecordedError extends Error {
  constructor(cause: unknown) {
    super('The delivery was handled and answered 200, but the store could not record it as done: a copy may run again.', { cause });
    this.name = 'NotRecordedError';
  }
}

/**
 * What `onError` is told when a body parser read the delivery before the receiver: every
 * delivery is then answered 400 NOT_RAW_BODY (the signature covers the exact bytes), and the
 * sender's log is the only other place that shows it. The message says why and how to fix it.
 */
export class NotRawBodyError extends Error {
  constructor(fix: string) {
    super(`Answered 400 NOT_RAW_BODY: the request body was already parsed before the receiver, so its signature cannot be checked (it covers the exact bytes sent). ${fix}`);
    this.name = 'NotRawBodyError';
  }
}

/** The fix for a parsed body where the framework is not known. */
const RAW_BODY_FIX = 'Pass the raw request body (a string or Buffer), exactly as received.';

// A body problem is the sender's or the app's wiring (400); a signature problem is who sent it (401).
const BAD_REQUEST: VerificationFailure[] = ['MISSING_BODY', 'NOT_RAW_BODY', 'INVALID_PAYLOAD'];

/**
 * The framework-neutral receiver every adapter wraps: verify the raw body against the
 * signature, claim the delivery id, run `onEvent`, settle the id, and say what to answer.
 */
export function createReceiver(options: ReceiverOptions): (rawBody: unknown, headers: HeaderBag | undefined) => Promise<ReceiverAnswer> {
  return receiverWith(options, RAW_BODY_FIX);
}

/** `createReceiver`, with the framework adapter's own words for the fix of a parsed body. */
export function receiverWith(options: ReceiverOptions, rawBodyFix: string): (rawBody: unknown, headers: HeaderBag | undefined) => Promise<ReceiverAnswer> {
  const secrets = (typeof options.secret === 'string' || options.secret === undefined ? [options.secret] : [...options.secret]).filter((s): s is string => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new Error('A receiver needs the subscription\'s signing secret (`secret`, starting with wh_sec_).');
  if (typeof options.onEvent !== 'function') throw new Error('A receiver needs an `onEvent(event, delivery)` function.');
  const store = options.store ?? memoryStore();
  const onError =
    options.onError ??
    ((error: unknown) =>
      console.error(error instanceof NotRecordedError || error instanceof NotRawBodyError ? 'Certificate Service receiver:' : 'Certificate Service receiver: answered 500 so the service retries.', error));
  const onNotCertificate =
    options.onNotCertificate ??
    ((envelope: OtherEnvelope, why: string, deliveryId: string) =>
      console.warn(`Certificate Service receiver: delivery ${deliveryId} (${envelope.type}) is not a certificate event (${why}); answered 200, not handled. The service's test delivery may look like this.`));

  return async (rawBody, headers) => {
    let settle: ((ok: boolean) => Promise<void>) | undefined;
    let event: WebhookEvent | undefined;
    try {
      // The core's pipeline: verify, then claim the delivery id (forged requests cannot fill the store).
      const result = await handleDelivery(rawBody, headers, { secrets, store, toleranceSeconds: options.toleranceSeconds });
      switch (result.outcome) {
        case 'rejected':
          // Not the sender's fault but the app's wiring: say so where the developer looks.
          if (result.reason === 'NOT_RAW_BODY') onError(new NotRawBodyError(rawBodyFix), undefined);
          return { status: BAD_REQUEST.includes(result.reason) ? 400 : 401, body: { error: result.reason, message: result.message } };
        case 'notCertificate':
          onNotCertificate(result.envelope, result.why, result.deliveryId);
          return { status: 200, body: { received: true, notCertificate: true } };
        case 'pending':
          return {
            status: 503,
            headers: { 'Retry-After': String(PENDING_RETRY_AFTER_SECONDS) },
            body: { error: 'DELIVERY_PENDING', message: 'Another attempt of this delivery is still being handled; try again later.' },
          };
        case 'filtered':
        case 'duplicate':
          return { status: 200, body: { received: true, duplicate: true } };
        case 'accepted':
          ({ event, settle } = result);
          await options.onEvent(result.event, { id: result.deliveryId, timestamp: result.timestamp });
          break;
        default:
          assertNever(result);
      }
    } catch (error) {
      // A failed store or handler answers 500, and the id is released: the service's retry runs it.
      await settle?.(false).catch(() => {});
      onError(error, event);
      return { status: 500, body: { error: 'HANDLER_FAILED', message: 'The receiver could not handle this delivery; the service will retry it.' } };
    }
    // Handled: later copies are duplicates, whether or not the sender is still there to hear the
    // 200. A store that fails to record it is told, but the answer stays 200: a 500 would have the
    // service deliver again what already ran.
    await settle?.(true).catch((error: unknown) => onError(new NotRecordedError(error), event));
    return { status: 200, body: { received: true } };
  };
}
