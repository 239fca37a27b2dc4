// The options every shared store takes (fileStore, redisStore, postgresStore), checked alike.
import { DEFAULT_KEEP_DAYS, DEFAULT_PENDING_MS } from './webhooks/store';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `keepDays` in ms: a positive number of days (a fraction is fine: tests keep keys for seconds). */
export function keepMsOf(store: string, keepDays: number | undefined): number {
  const days = keepDays ?? DEFAULT_KEEP_DAYS;
  if (typeof days !== 'number' || !(days > 0) || !Number.isFinite(days)) throw new RangeError(`${store}: keepDays must be a positive number of days (got ${String(keepDays)}).`);
  return Math.max(1, Math.round(days * DAY_MS));
}

/** `pendingMs`: a positive whole number of ms. */
export function pendingMsOf(store: string, pendingMs: number | undefined): number {
  const ms = pendingMs ?? DEFAULT_PENDING_MS;
  if (typeof ms !== 'number' || !(ms > 0) || !Number.isFinite(ms)) throw new RangeError(`${store}: pendingMs must be a positive number of ms (got ${String(pendingMs)}).`);
  return Math.max(1, Math.round(ms));
}
