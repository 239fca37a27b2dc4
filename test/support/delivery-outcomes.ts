/**
 * What became of each delivery of a flood or a fault run, counted per delivery from both sides:
 * the sender's log (the sandbox keeps each attempt's status and the start of its answer body)
 * and n8n (which executions ran which event; the trigger's log line for each attempt n8n
 * answered non-2xx after the trigger took it). Used by P9 (test/bench/p9-flood.ts) and R9
 * (test/e2e/queue/faults.e2e.test.ts).
 */
import { N8N_STARTED } from './deliver';

/** One attempt as the sandbox logs it (DeliveryAttempt). */
export interface AttemptSeen {
  deliveryId: string;
  eventId: string;
  status?: number;
  error?: string;
  answer?: string;
  outcome: string;
}

/**
 * Who answered an attempt, from its status and body:
 * - `duplicate`: our code, "already handled" (`{"received":true,"duplicate":true}`);
 * - `pending`: our code, another attempt still under way (503 DELIVERY_PENDING);
 * - `ours`: our code, anything else (filtered, not a certificate, rejected);
 * - `started`: n8n, after our code took the delivery and n8n stored and started (or enqueued)
 *   its execution: the trigger's `{"received":true}` (N8N_STARTED), the Webhook node's "Workflow was started";
 * - `n8nRefused`: n8n, before our code (503 "Database is not ready!", "n8n is starting up");
 * - `n8nFailed`: n8n, a 5xx of its own (before or after our code: the trigger logs the latter);
 * - `proxy`: nginx (502/504: the process behind it is gone or slow);
 * - `none`: no answer (the sender's timeout, a reset, a refused connection).
 */
export type Answerer = 'duplicate' | 'pending' | 'ours' | 'started' | 'n8nRefused' | 'n8nFailed' | 'proxy' | 'none';

export function answerer(a: AttemptSeen): Answerer {
  const body = a.answer ?? '';
  if (a.status === undefined) return 'none';
  if (body.includes('"duplicate":true')) return 'duplicate';
  if (body.includes('DELIVERY_PENDING')) return 'pending';
  if (body === N8N_STARTED || body.includes('Workflow was started')) return 'started';
  if (body.includes('"received":true') || /"error":"[A-Z_]+"/.test(body)) return 'ours';
  if (body.includes('Database is not ready') || body.includes('n8n is starting up')) return 'n8nRefused';
  if (/<html|nginx/i.test(body)) return 'proxy';
  return 'n8nFailed';
}

/** How an attempt ended, for tallies: "503 Database is not ready!", "timeout", "ECONNRESET", "200 duplicate", … */
export function attemptLabel(a: AttemptSeen): string {
  if (a.status === undefined) return a.error?.startsWith('timeout') ? 'timeout' : String(a.error);
  const who = answerer(a);
  if (who === 'n8nRefused' || who === 'n8nFailed') {
    const message = /"message":"([^"]{0,80})/.exec(a.answer ?? '')?.[1] ?? (a.answer ?? '').slice(0, 60);
    return `${a.status} ${message}`.trim();
  }
  return `${a.status} ${who}`;
}

const tally = (keys: string[]) => keys.reduce<Record<string, number>>((t, k) => ({ ...t, [k]: (t[k] ?? 0) + 1 }), {});

export interface LostDeliveries {
  /** Deliveries that never ran. */
  lost: number;
  /** Extra runs: the sum over deliveries of (runs − 1). */
  runTwice: number;
  /**
   * Never ran, yet our code answered an attempt "duplicate", and n8n holds no execution for it.
   * The target is 0: the trigger claims an id only when n8n answered 2xx after storing and
   * starting (or enqueuing) its execution.
   */
  duplicateButNeverRan: number;
  /**
   * Never ran although n8n answered an attempt 2xx after our code took it and n8n stored its
   * execution: n8n lost it afterwards (a job stuck `new`, a Redis without persistence).
   */
  lostAfterN8n2xx: number;
  /** Never ran, and no attempt reached our code: n8n (or the proxy in front) refused or dropped each one first. */
  neverReachedUs: number;
  /** Never ran, reached our code, and every attempt failed until the sender gave up (n8n's 5xx after our code, our 503 while pending). */
  reachedUsNotRun: number;
  /** Per group above: how its deliveries' attempts ended. */
  why: { lostAfterN8n2xx: Record<string, number>; neverReachedUs: Record<string, number>; reachedUsNotRun: Record<string, number> };
}

/**
 * Classifies each delivery. `runs`: executions per event id. `evidence.released`: delivery ids
 * the trigger logged as answered non-2xx by n8n after it took them (so they reached our code
 * even when the sender saw only a timeout).
 */
export function lostDeliveries(
  eventIds: string[],
  runs: Map<string, number>,
  attempts: AttemptSeen[],
  evidence: {
    released?: Set<string>;
    /** Delivery ids our code dropped as duplicates inside an execution (Delivery → Verify). */
    droppedAsDuplicate?: Set<string>;
    /**
     * Event ids of every execution n8n stored, whatever became of it: n8n writes the start
     * node's items into the execution when it creates it (webhook-helpers.js,
     * prepareExecutionData), so one stuck `new` still shows which delivery it was for.
     */
    stored?: Set<string>;
  } = {},
): LostDeliveries {
  const released = evidence.released ?? new Set<string>();
  const dropped = evidence.droppedAsDuplicate ?? new Set<string>();
  const stored = evidence.stored ?? new Set<string>();
  const byEvent = new Map<string, AttemptSeen[]>();
  for (const a of attempts) byEvent.set(a.eventId, [...(byEvent.get(a.eventId) ?? []), a]);
  const out: LostDeliveries = {
    lost: 0,
    runTwice: eventIds.reduce((n, id) => n + Math.max(0, (runs.get(id) ?? 0) - 1), 0),
    duplicateButNeverRan: 0,
    lostAfterN8n2xx: 0,
    neverReachedUs: 0,
    reachedUsNotRun: 0,
    why: { lostAfterN8n2xx: {}, neverReachedUs: {}, reachedUsNotRun: {} },
  };
  const labels: Record<keyof LostDeliveries['why'], string[]> = { lostAfterN8n2xx: [], neverReachedUs: [], reachedUsNotRun: [] };
  for (const id of eventIds) {
    if ((runs.get(id) ?? 0) > 0) continue;
    out.lost++;
    const mine = byEvent.get(id) ?? [];
    const who = new Set(mine.map(answerer));
    if (mine.some((a) => dropped.has(a.deliveryId))) who.add('duplicate');
    const reached = who.has('duplicate') || who.has('pending') || who.has('ours') || who.has('started') || stored.has(id) || mine.some((a) => released.has(a.deliveryId));
    // n8n answered 2xx: the sender saw it, or our code answered a later copy "duplicate" and
    // n8n holds an execution for it (a 2xx the sender missed, its timeout having passed).
    const n8nAnswered2xx = who.has('started') || (who.has('duplicate') && stored.has(id));
    let group: keyof LostDeliveries['why'];
    if (n8nAnswered2xx) group = 'lostAfterN8n2xx';
    else if (who.has('duplicate')) {
      out.duplicateButNeverRan++; // ours: "duplicate" for a delivery nothing ran or stored
      continue;
    } else if (reached) group = 'reachedUsNotRun';
    else group = 'neverReachedUs';
    out[group]++;
    labels[group].push(...mine.map(attemptLabel));
  }
  out.why = { lostAfterN8n2xx: tally(labels.lostAfterN8n2xx), neverReachedUs: tally(labels.neverReachedUs), reachedUsNotRun: tally(labels.reachedUsNotRun) };
  return out;
}

/** Delivery ids the trigger logged as answered non-2xx by n8n after it took them. */
export function releasedIds(logs: string): Set<string> {
  return new Set([...logs.matchAll(/n8n answered \d+ to delivery (\S+);/g)].map((m) => m[1]));
}
