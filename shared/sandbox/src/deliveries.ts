// Webhook delivery engine (spec section 6 "Delivery rules"): at-least-once, signed at send
// time with the core's signer, retried on any non-2xx / network error / timeout after
// 1 m, 5 m, 30 m, 2 h, 12 h, 24 h (times timeScale), 7 attempts in all; 410 unsubscribes.
import http from 'node:http';
import https from 'node:https';
import { redact, SecretSet, signPayload, type EventType } from '@certificate-service/sdk';
import { pushBounded } from './bounded-log';
import type { Counters } from './counters';
import type { Ids } from './ids';
import type { Store, SubscriptionRecord } from './store';
import type { Timers } from './timers';
import type { DeliveryAttempt } from './types';

export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const USER_AGENT = 'Service-Webhook/1';

interface Job {
  deliveryId: string;
  eventId: string;
  type: EventType;
  body: string;
  subscriptionId: string;
  url: string;
  attempt: number;
  copy: number;
  /** Jobs from before a reset() are dropped when their in-flight attempt returns. */
  generation: number;
}

type PostResult = { status: number; answer: string } | { error: string };

/** How much of a receiver's answer body the log keeps. */
const ANSWER_CHARS = 200;
/**
 * How much of it is read before the secrets are taken out and the rest is cut: a secret that
 * the 200th character falls inside (or that shorter redactions before it pull into the first
 * 200) is still whole when it is redacted, so no part of it is kept.
 */
const ANSWER_READ_CHARS = 16 * 1024;

export interface DeliveryConfig {
  timeScale: number;
  timeoutMs: number;
  maxLog: number;
  /** Attempts in flight at once per subscription; Infinity = no cap (see README, "deliveryConcurrency"). */
  concurrency: number;
}

export class Deliveries {
  readonly log: DeliveryAttempt[] = [];
  duplicates = 1;
  private pendingJobs = 0;
  private closed = false;
  private generation = 0;
  private readonly waiters = new Set<() => void>();
  // No keep-alive: each attempt is a fresh connection, and nothing lingers after close().
  private readonly httpAgent = new http.Agent({ keepAlive: false });
  private readonly httpsAgent = new https.Agent({ keepAlive: false });
  private readonly inflight = new Set<http.ClientRequest>();
  /** Per subscription: attempts in flight, and the attempts waiting for a slot (FIFO). */
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly ids: Ids,
    private readonly store: Store,
    private readonly timers: Timers,
    private readonly counters: Counters,
    private readonly config: DeliveryConfig,
  ) {}

  get pending(): number {
    return this.pendingJobs;
  }

  /** Queues a delivery (and its simulated duplicates) and returns its X-Service-Delivery id. */
  enqueue(sub: SubscriptionRecord, eventId: string, type: EventType, body: string): string {
    const deliveryId = this.ids.id('whd_');
    for (let copy = 0; copy < Math.max(1, this.duplicates); copy++) {
      const job: Job = { deliveryId, eventId, type, body, subscriptionId: sub.id, url: sub.url, attempt: 0, copy, generation: this.generation };
      this.pendingJobs++;
      // A timer, not a direct call: the API response is never held up by a delivery.
      this.timers.set(() => void this.run(job), 0);
    }
    return deliveryId;
  }

  private async run(job: Job): Promise<void> {
    if (this.closed || job.generation !== this.generation) return;
    if (!Number.isFinite(this.config.concurrency)) return this.attempt(job);
    // A capped sender: the attempt waits (unsigned, its timeout not started) for a free slot
    // of its subscription, in arrival order, as retries do behind a flood.
    const generation = this.generation;
    await this.acquire(job.subscriptionId);
    try {
      await this.attempt(job);
    } finally {
      if (generation === this.generation) this.release(job.subscriptionId);
    }
  }

  private acquire(subscriptionId: string): Promise<void> {
    const n = this.active.get(subscriptionId) ?? 0;
    if (n < this.config.concurrency) {
      this.active.set(subscriptionId, n + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(subscriptionId) ?? [];
      queue.push(resolve);
      this.waiting.set(subscriptionId, queue);
    });
  }

  /** Hands the slot to the next waiting attempt, or frees it. */
  private release(subscriptionId: string): void {
    const next = this.waiting.get(subscriptionId)?.shift();
    if (next) return next();
    this.active.set(subscriptionId, (this.active.get(subscriptionId) ?? 1) - 1);
  }

  private async attempt(job: Job): Promise<void> {
    if (this.closed || job.generation !== this.generation) return;
    const sub = this.store.subscriptions.get(job.subscriptionId);
    if (!sub) return this.finish(false); // unsubscribed meanwhile: nothing left to deliver to
    job.attempt++;
    // Signed now, with a fresh timestamp per attempt, so a late retry is still inside the
    // receiver's 5-minute window. During a rotation grace period both secrets sign.
    const now = Date.now();
    const secrets =
      sub.previousSecret && sub.previousSecretExpiresAt !== null && sub.previousSecretExpiresAt > now
        ? [sub.secret, sub.previousSecret]
        : [sub.secret];
    const headers = {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(job.body)),
      'User-Agent': USER_AGENT,
      'X-Service-Event': job.type,
      'X-Service-Delivery': job.deliveryId,
      ...signPayload(secrets, job.body, Math.floor(now / 1000)),
    };
    this.counters.deliveriesAttempted++;
    const result = await this.post(job.url, headers, job.body);
    if (this.closed || job.generation !== this.generation) return;

    // What a receiver answers is its own: it may echo a signing secret or an API key (its
    // config, the request it got). The log and the page keep it without any the sandbox knows.
    if ('answer' in result && result.answer) result.answer = redact(result.answer, this.knownSecrets()).slice(0, ANSWER_CHARS);
    const status = 'status' in result ? result.status : undefined;
    let outcome: DeliveryAttempt['outcome'];
    if (status !== undefined && status >= 200 && status < 300) outcome = 'succeeded';
    else if (status === 410) outcome = 'unsubscribed';
    else if (job.attempt >= MAX_ATTEMPTS) outcome = 'failed';
    else outcome = 'retrying';

    const entry: DeliveryAttempt = {
      deliveryId: job.deliveryId,
      eventId: job.eventId,
      type: job.type,
      subscriptionId: job.subscriptionId,
      url: job.url,
      attempt: job.attempt,
      copy: job.copy,
      ...result,
      outcome,
      at: new Date(now).toISOString(),
      atMs: now,
      durationMs: Date.now() - now,
    };
    pushBounded(this.log, entry, this.config.maxLog);

    if (outcome === 'unsubscribed') this.store.removeSubscription(job.subscriptionId);
    if (outcome === 'retrying') {
      this.timers.set(() => void this.run(job), RETRY_DELAYS_MS[job.attempt - 1] * this.config.timeScale);
    } else {
      this.finish(outcome === 'succeeded');
    }
    for (const wake of this.waiters) wake();
  }

  /** Every subscription's signing secrets (current and previous) and every API key, all workspaces. */
  private knownSecrets(): string[] {
    const secrets = new SecretSet();
    for (const sub of this.store.subscriptions.values()) {
      secrets.add(sub.secret);
      secrets.add(sub.previousSecret ?? undefined);
    }
    for (const key of this.store.apiKeys.keys()) secrets.add(key);
    return secrets.list();
  }

  private finish(succeeded: boolean): void {
    this.pendingJobs--;
    if (succeeded) this.counters.deliveriesSucceeded++;
    else this.counters.deliveriesFailed++;
  }

  private post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    return new Promise((resolve) => {
      let req: http.ClientRequest;
      try {
        const target = new URL(url);
        const secure = target.protocol === 'https:';
        req = (secure ? https : http).request(target, {
          method: 'POST',
          headers,
          agent: secure ? this.httpsAgent : this.httpAgent,
        });
      } catch (err) {
        resolve({ error: (err as Error).message });
        return;
      }
      let settled = false;
      const done = (r: PostResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inflight.delete(req);
        resolve(r);
      };
      const timer = setTimeout(() => {
        done({ error: `timeout: no response within ${this.config.timeoutMs} ms` });
        req.destroy();
      }, this.config.timeoutMs);
      timer.unref();
      this.inflight.add(req);
      req.on('response', (res) => {
        // The status decides; the start of the body is kept for the log (who answered).
        const status = res.statusCode ?? 0;
        let answer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (answer.length < ANSWER_READ_CHARS) answer = (answer + chunk).slice(0, ANSWER_READ_CHARS);
        });
        res.on('end', () => done({ status, answer }));
        res.on('error', () => done({ status, answer }));
        res.on('close', () => done({ status, answer }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
      req.end(body);
    });
  }

  /** Resolves with the log once `predicate(log)` holds; rejects after `timeoutMs`. */
  waitFor(predicate: (log: DeliveryAttempt[]) => boolean, timeoutMs = 5000): Promise<DeliveryAttempt[]> {
    return new Promise((resolve, reject) => {
      if (predicate(this.log)) return resolve(this.log);
      const wake = () => {
        if (!predicate(this.log)) return;
        cleanup();
        resolve(this.log);
      };
      const timer = setTimeout(() => {
        cleanup();
        const seen = this.log.map((a) => `${a.type}#${a.attempt}:${a.status ?? a.error}`).join(', ');
        reject(new Error(`waitForDeliveries timed out after ${timeoutMs} ms; log: [${seen}]`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      this.waiters.add(wake);
    });
  }

  /** Forget everything (reset): pending retries are cancelled by the caller's Timers. */
  reset(): void {
    this.generation++;
    this.log.length = 0;
    this.pendingJobs = 0;
    this.duplicates = 1;
    this.active.clear();
    this.waiting.clear(); // their jobs belong to the old generation and end when woken (never)
    for (const req of this.inflight) req.destroy();
    this.inflight.clear();
  }

  close(): void {
    this.closed = true;
    for (const req of this.inflight) req.destroy();
    this.inflight.clear();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
