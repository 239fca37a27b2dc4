// Every choice the sandbox makes where the spec says "not shown", in one place. The README's
// "What we chose" table cites this module, and so do the connectors' options that depend on
// one (n8n's Email Status filter; a test keeps them equal). The real service may differ; the
// connectors read what it answers and fail loudly on what they cannot (`certsvc doctor`).

/** Error codes of spec section 7, and two of ours (an injected '500' fault; a foreign request). */
export type ErrorCode =
  | 'MISSING_API_KEY'
  | 'INVALID_API_KEY'
  | 'EXPIRED_API_KEY'
  | 'RATE_LIMITED'
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'BATCH_ARCHIVED'
  | 'QUOTA_EXCEEDED'
  | 'PLAN_LIMIT_EXCEEDED'
  // Not in the spec: only sent by an injected '500' fault.
  | 'INTERNAL_ERROR'
  // Not in the spec: a request under another Host name or from another site's page (server.ts).
  | 'FORBIDDEN';

export const ERROR_STATUS: Record<ErrorCode, number> = {
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  EXPIRED_API_KEY: 401,
  RATE_LIMITED: 429,
  VALIDATION_ERROR: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BATCH_ARCHIVED: 409,
  QUOTA_EXCEEDED: 402,
  PLAN_LIMIT_EXCEEDED: 403,
  INTERNAL_ERROR: 500,
  FORBIDDEN: 403,
};

/**
 * A certificate email's states. The spec shows only `sent`, and the `certificate.failed`
 * event implies `failed`; `not_sent` (never asked) and `queued` (asked, not yet handed to
 * the mail provider) are ours.
 */
export const EMAIL_STATUSES = ['not_sent', 'queued', 'sent', 'failed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** The status of each successful write (the spec names none). */
export const SUCCESS_STATUS = {
  createBatch: 201,
  issue: 201,
  bulkIssue: 201,
  /** A `results`-shaped bulk answer where some item failed. */
  bulkIssuePartial: 207,
  archive: 200,
  update: 200,
  delete: 204,
  send: 202,
  testDelivery: 202,
  rotateSecret: 200,
  createSubscription: 201,
} as const;

/** Page size when `limit` is not given, and the most a page holds (the spec gives 1 to 100). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Items of one bulk call (the spec: "1 to 100 items"; over it is our 400 on `recipients`). */
export const MAX_BULK_ITEMS = 100;
/** Subscriptions per workspace before 403 PLAN_LIMIT_EXCEEDED (the spec: 20). */
export const MAX_SUBSCRIPTIONS = 20;

// --- How a recipient list behaves over time -------------------------------------------------
// The spec says nothing of timestamp precision, cursor kind and lifetime, or list order, and a
// polling client depends on all four. Each plausible model is an option (createSandbox and
// PUT /__sandbox/settings); the defaults are our choice. test/sdk/poll-property.test.ts runs
// the polling triggers against every combination.

/**
 * The order of `GET /batches/{id}/recipients`. Newest first is the default (our choice).
 * `undetectable` lists by a hash of the id, an order a client cannot infer from `createdAt`:
 * a new certificate lands anywhere in the list.
 */
export const RECIPIENT_ORDERS = ['newest-first', 'oldest-first', 'undetectable'] as const;
export type RecipientOrder = (typeof RECIPIENT_ORDERS)[number];

/**
 * Precision of `createdAt` and `emailSentAt`: to the millisecond (default) or to the second.
 * Either way one call stamps one time: every certificate of a bulk call shares its
 * `createdAt` (one transaction, one clock reading), so ties are common.
 */
export const TIMESTAMP_PRECISIONS = ['ms', 's'] as const;
export type TimestampPrecision = (typeof TIMESTAMP_PRECISIONS)[number];

/**
 * Recipient list cursors. `opaque` (default): keyset, so an insert or a delete between two
 * requests shifts nothing. `offset`: the position in the list, so it shifts (a delete before
 * it skips an item, an insert repeats one). Both are opaque strings to a client.
 */
export const CURSOR_KINDS = ['opaque', 'offset'] as const;
export type CursorKind = (typeof CURSOR_KINDS)[number];

/**
 * When a recipient list cursor stops being accepted (a 400 `VALIDATION_ERROR` on `cursor`):
 * never (default, `false`), `afterMs` after it was handed out, or after `afterWrites` newer
 * writes to the batch's certificates (an issue, a delete or a change of email status each
 * count one per certificate).
 */
export type CursorExpiry = false | { afterMs?: number; afterWrites?: number };

/**
 * What `emailSentAt` says after a send that failed (the spec names no failure time).
 * `last-success` (default): it keeps the time of the last successful send (null if none), so a
 * re-send that bounces again looks the same in the list as the first bounce. `attempt`: it is
 * the failed attempt's time, so each failure has its own. Receivers must run each failure once
 * under both (test/sdk/claim-occurrence.test.ts).
 */
export const FAILED_SEND_TIMES = ['last-success', 'attempt'] as const;
export type FailedSendTime = (typeof FAILED_SEND_TIMES)[number];
