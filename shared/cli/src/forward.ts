// The forwarder of `certsvc events recover`: each recovered event POSTed to the receiver, signed
// as the service signs it (spec section 6), at a pace the receiver sets. At most `concurrency`
// deliveries are in flight. A 503 or 429 means "not now": our receivers answer 503 while another
// attempt of the same delivery is running (receivers/receive.ts), others when they are busy. The
// delivery goes back to the front of the queue and no request starts until the pause ends: as long
// as its Retry-After says (seconds or an HTTP date, read by the SDK's parser, cut to MAX_PAUSE_MS),
// else 1 s, doubling while the receiver stays busy. Sending the same delivery id again is safe:
// receivers claim each occurrence once. The pauses of a run add up to at most `maxWaitMs`; a pause
// that would pass it ends the run, and what was not answered 2xx by then is reported as not
// delivered (the same command, run again, sends it). Any other answer is the delivery's outcome.
import { parseRetryAfter, PENDING_RETRY_AFTER_SECONDS, signPayload, timerSleep } from '@certificate-service/sdk';

export interface Delivery {
  deliveryId: string;
  type: string;
  /** The exact bytes signed and sent. */
  body: string;
}

export interface Pacing {
  /** Deliveries in flight at most. */
  concurrency: number;
  /** The pauses of one run add up to at most this. */
  maxWaitMs: number;
}

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 32;
export const DEFAULT_MAX_WAIT_MS = 5 * 60_000;
/** The longest one answer pauses the run: what our receivers ask of a delivery pending elsewhere. */
export const MAX_PAUSE_MS = PENDING_RETRY_AFTER_SECONDS * 1000;
/** The first pause when no Retry-After says how long, and the shortest (a `Retry-After: 0` loop would spin). */
export const FIRST_PAUSE_MS = 1000;
/** How long a forwarded delivery may take to be answered (the spec expects about 10 s). */
const ANSWER_TIMEOUT_MS = 10_000;

export type Outcome =
  | { kind: 'delivered'; status: number }
  /** Answered other than 2xx, 503 or 429, or not answered. */
  | { kind: 'failed'; status?: number; error?: string }
  /** Not answered 2xx when the pauses reached `maxWaitMs`; `status`: the last 503/429, if one came. */
  | { kind: 'notDelivered'; status?: number };

/** How long a busy answer pauses the run: its Retry-After, else 1 s doubling with `streak` (1, 2, …), within FIRST_PAUSE_MS..MAX_PAUSE_MS. */
export function pauseMs(retryAfter: string | undefined, streak: number, nowMs: number): number {
  const asked = parseRetryAfter(retryAfter, nowMs);
  const ms = asked !== undefined ? asked * 1000 : FIRST_PAUSE_MS * 2 ** Math.max(0, streak - 1);
  return Math.min(MAX_PAUSE_MS, Math.max(FIRST_PAUSE_MS, ms));
}

type Answer = { status: number; retryAfter?: string } | { status?: undefined; error: string };

/** One signed POST, as the service makes it: a fresh `t` per attempt, over the exact bytes sent. */
async function post(url: URL, secret: string, d: Delivery): Promise<Answer> {
  const headers = { ...signPayload(secret, d.body), 'X-Service-Event': d.type, 'X-Service-Delivery': d.deliveryId, 'User-Agent': 'Service-Webhook/1', 'Content-Type': 'application/json' };
  try {
    // redirect: manual: a redirect is an answer other than 2xx, as the service counts it.
    const res = await fetch(url, { method: 'POST', headers, body: d.body, redirect: 'manual', signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, retryAfter: res.headers.get('retry-after') ?? undefined };
  } catch (error) {
    // The cause of a fetch failure names the host and port at most, never a header.
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { error: (error as Error).name === 'TimeoutError' ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s` : (cause ?? (error as Error).name) };
  }
}

/** The clock the pauses run on (tests may pass their own). */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Forwards every delivery (see the top of this file); one outcome per delivery, in their order. */
export async function forwardAll(url: URL, secret: string, deliveries: Delivery[], pacing: Pacing, clock: Clock = { now: Date.now, sleep: timerSleep }): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(deliveries.length);
  const queue = deliveries.map((_, i) => i);
  let pausedUntil = 0;
  let pauseBegan = -Infinity;
  let paused = 0;
  let streak = 0;
  let stopped = false;

  const worker = async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      while (!stopped && clock.now() < pausedUntil) await clock.sleep(pausedUntil - clock.now());
      if (stopped) {
        outcomes[i] ??= { kind: 'notDelivered' };
        continue;
      }
      const sentAt = clock.now();
      const answer = await post(url, secret, deliveries[i]);
      if (answer.status === undefined) outcomes[i] = { kind: 'failed', error: answer.error };
      else if (answer.status >= 200 && answer.status < 300) {
        streak = 0;
        outcomes[i] = { kind: 'delivered', status: answer.status };
      } else if (answer.status !== 503 && answer.status !== 429) outcomes[i] = { kind: 'failed', status: answer.status };
      else {
        // Busy. Answers to requests sent before the current pause began belong to it: only a
        // request sent since, answered busy again, lengthens the next pause.
        if (sentAt >= pauseBegan) streak++;
        const now = clock.now();
        const until = now + pauseMs(answer.retryAfter, streak, now);
        const added = Math.max(0, until - Math.max(pausedUntil, now));
        outcomes[i] = { kind: 'notDelivered', status: answer.status }; // until a later attempt says otherwise
        if (stopped || paused + added > pacing.maxWaitMs) {
          stopped = true;
          continue;
        }
        if (pausedUntil <= now) pauseBegan = now;
        pausedUntil = Math.max(pausedUntil, until);
        paused += added;
        queue.unshift(i);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(pacing.concurrency, deliveries.length) }, worker));
  return outcomes;
}
