// Fixed-window rate limit per API key (spec section 8: 120 requests per minute per key).
import type { RateLimitConfig } from './types';

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1 while a window is open). */
  resetSeconds: number;
}

interface Window {
  start: number;
  count: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly config: RateLimitConfig | false) {}

  /** Counts one request for `key`. Null when limiting is disabled. */
  consume(key: string, now = Date.now()): RateLimitState | null {
    if (!this.config) return null;
    const { limit, windowMs } = this.config;
    let w = this.windows.get(key);
    if (!w || now >= w.start + windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return {
      allowed: w.count <= limit,
      limit,
      remaining: Math.max(0, limit - w.count),
      resetSeconds: secondsUntil(w.start + windowMs, now),
    };
  }

  /** Current state without counting: for responses that must not use up the budget. */
  peek(key: string | null, now = Date.now()): RateLimitState | null {
    if (!this.config) return null;
    const { limit, windowMs } = this.config;
    const w = key ? this.windows.get(key) : undefined;
    if (!w || now >= w.start + windowMs) {
      return { allowed: true, limit, remaining: limit, resetSeconds: secondsUntil(now + windowMs, now) };
    }
    return {
      allowed: w.count < limit,
      limit,
      remaining: Math.max(0, limit - w.count),
      resetSeconds: secondsUntil(w.start + windowMs, now),
    };
  }

  reset(): void {
    this.windows.clear();
  }
}

function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

export function rateLimitHeaders(state: RateLimitState | null): Record<string, string> {
  if (!state) return {};
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
}
