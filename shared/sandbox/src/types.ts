// Sandbox-wide types: options, response-shape variants and what the controls return.
import type { EventType } from '@certificate-service/sdk';
import type { CursorExpiry, CursorKind, FailedSendTime, RecipientOrder, TimestampPrecision } from './choices';

/** Wrappers a list endpoint can answer with; the spec leaves the wrapper "not shown". */
export const KNOWN_LIST_SHAPES = ['default', 'bare', 'items', 'results', 'named', 'pagination', 'meta', 'has_more'] as const;
/**
 * Answers no client version knows, for first-contact tests: a wrapper under another name,
 * a nested one, and a 200 HTML page such as a proxy or sign-in page sends. A client must
 * refuse them with an error, never read them as an empty list.
 */
export const UNKNOWN_LIST_SHAPES = ['entries', 'payload_rows', 'html_page'] as const;
export const LIST_SHAPES = [...KNOWN_LIST_SHAPES, ...UNKNOWN_LIST_SHAPES] as const;
export type ListShape = (typeof LIST_SHAPES)[number];

/** Bodies the bulk-issue endpoint can answer with; the spec leaves it "not shown". */
export const BULK_RESPONSE_SHAPES = ['data', 'bare', 'recipients', 'results'] as const;
export type BulkResponseShape = (typeof BULK_RESPONSE_SHAPES)[number];

// The list models (order, timestamp precision, cursor kind and lifetime) are choices: see choices.ts.
export { RECIPIENT_ORDERS, TIMESTAMP_PRECISIONS, CURSOR_KINDS, FAILED_SEND_TIMES } from './choices';
export type { RecipientOrder, TimestampPrecision, CursorKind, CursorExpiry, FailedSendTime } from './choices';

/**
 * The `data` of the test delivery (`POST /webhooks/subscriptions/{id}/test`); the spec does not
 * show it. `recipient` (default): a made-up recipient shaped like a real one. `empty-object` and
 * `empty-array`: a sample that is no recipient, which receivers must answer 2xx and not run.
 */
export const TEST_DELIVERY_SHAPES = ['recipient', 'empty-object', 'empty-array'] as const;
export type TestDeliveryShape = (typeof TEST_DELIVERY_SHAPES)[number];

export interface RateLimitConfig {
  limit: number;
  windowMs: number;
}

export interface SandboxOptions {
  port?: number;
  host?: string;
  /**
   * Host names the sandbox also answers to, besides the loopback names and `host` (e.g. the
   * name a container reaches it by). Any other `Host` header is refused (DNS rebinding).
   */
  allowedHosts?: string[];
  /** Fixed window per API key; `false` disables limiting (and the RateLimit-* headers). */
  rateLimit?: RateLimitConfig | false;
  /** Plan quota of each new workspace (issued certificates). */
  quota?: number;
  /** Multiplies webhook retry delays and the rotation grace period (e.g. 0.0001 in tests). */
  timeScale?: number;
  listShape?: ListShape;
  /** Order of `GET /batches/{id}/recipients` (default newest first). */
  recipientOrder?: RecipientOrder;
  /** `createdAt` and `emailSentAt` to the millisecond (default) or to the second. */
  timestampPrecision?: TimestampPrecision;
  /** Recipient list cursors: keyset (`opaque`, default) or `offset`. */
  cursorKind?: CursorKind;
  /** When a recipient list cursor is refused (400 on `cursor`); default never. */
  cursorExpiry?: CursorExpiry;
  /**
   * The service's clock (epoch ms): `createdAt`, `emailSentAt`, the `Date` header and cursor
   * lifetimes read it. Default `Date.now`; a test passes its own to step time.
   */
  clock?: () => number;
  /** `emailSentAt` after a failed send: the last successful send's time (default) or the attempt's. */
  failedSendTime?: FailedSendTime;
  /** Seed the demo workspace, its key and designs. */
  seed?: boolean;
  /** Delay of the simulated mail provider (not scaled). */
  mailDelayMs?: number;
  /** How long a webhook receiver may take to answer before the attempt counts as failed (not scaled). */
  deliveryTimeoutMs?: number;
  /** How long the previous signing secret still signs after a rotation (multiplied by timeScale). */
  rotationGraceMs?: number;
  /** Entries kept in the delivery and event logs (oldest dropped first). */
  maxLogEntries?: number;
  /**
   * Delivery attempts in flight at once per subscription; the others wait for a slot, in
   * order. `Infinity` (default): every delivery is sent as soon as its event fires.
   */
  deliveryConcurrency?: number;
}

export type ResolvedOptions = Required<SandboxOptions>;

export const DEFAULT_OPTIONS: ResolvedOptions = {
  port: 0,
  host: '127.0.0.1',
  allowedHosts: [],
  rateLimit: { limit: 120, windowMs: 60_000 },
  quota: 10_000,
  timeScale: 1,
  listShape: 'default',
  recipientOrder: 'newest-first',
  timestampPrecision: 'ms',
  cursorKind: 'opaque',
  cursorExpiry: false,
  clock: Date.now,
  failedSendTime: 'last-success',
  seed: true,
  mailDelayMs: 20,
  deliveryTimeoutMs: 10_000,
  rotationGraceMs: 24 * 60 * 60 * 1000,
  maxLogEntries: 50_000,
  deliveryConcurrency: Infinity,
};

/** One webhook delivery attempt, as kept in the log returned by `controls.deliveries()`. */
export interface DeliveryAttempt {
  deliveryId: string;
  eventId: string;
  type: EventType;
  subscriptionId: string;
  url: string;
  attempt: number;
  /** 0 for the original; 1.. for simulated duplicates (same deliveryId). */
  copy: number;
  status?: number;
  error?: string;
  /**
   * The start of the receiver's answer body (at most 200 characters), so a test can tell who
   * answered: the receiver's own code, or the host or proxy in front of it.
   */
  answer?: string;
  /** What the engine did next. */
  outcome: 'succeeded' | 'retrying' | 'failed' | 'unsubscribed';
  at: string;
  atMs: number;
  durationMs: number;
}

/** An event as it was emitted (one per event, whatever the number of subscriptions). */
export interface EventLogEntry {
  id: string;
  type: EventType;
  workspaceId: string;
  recipientId: string;
  createdAt: string;
  deliveryIds: string[];
}
