import { getHeader, type HeaderBag } from './headers';

export interface RateLimitState {
  limit?: number;
  remaining?: number;
  /** Epoch ms when the window resets, derived from `RateLimit-Reset` (delta seconds). */
  resetAt?: number;
  /**
   * Requests other clients made on the same key while one of ours was under way (e.g. n8n
   * queue-mode workers sharing an API key). Derived from `RateLimit-Remaining`, the one counter
   * all of them see; 0 for a client alone on its key.
   */
  others?: number;
}

/**
 * How many requests others made on the key between two of our responses: the drop in
 * `RateLimit-Remaining` beyond our own one. Undefined when it cannot be told (no previous
 * figure, or a new window began, since the counter went up).
 */
export function othersBetween(previous: RateLimitState, next: RateLimitState): number | undefined {
  if (previous.remaining === undefined || next.remaining === undefined || next.remaining > previous.remaining) return undefined;
  return Math.max(0, previous.remaining - next.remaining - 1);
}

/** A random 0..maxMs wait, so clients woken by the same reset or Retry-After do not retry in lockstep. */
export function jitterMs(maxMs = 250, random: () => number = Math.random): number {
  return Math.floor(random() * maxMs);
}

function nonNegativeNumber(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** `Retry-After` is either delta seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const seconds = nonNegativeNumber(value);
  if (seconds !== undefined) return Math.ceil(seconds);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

export function parseRateLimit(headers: HeaderBag, nowMs: number): RateLimitState {
  const reset = nonNegativeNumber(getHeader(headers, 'RateLimit-Reset'));
  return {
    limit: nonNegativeNumber(getHeader(headers, 'RateLimit-Limit')),
    remaining: nonNegativeNumber(getHeader(headers, 'RateLimit-Remaining')),
    // Values above a day are treated as epoch seconds, which some servers send instead of a delta.
    resetAt: reset === undefined ? undefined : reset > 86_400 ? reset * 1000 : nowMs + reset * 1000,
  };
}
