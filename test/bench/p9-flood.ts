// One flood of P9 (see p9-floods.ts): a bulk issue of N certificates with `send: true` (N
// certificate.issued + N certificate.sent deliveries) to one receive path in a real n8n,
// then everything counted once the sender has nothing left to retry and n8n's executions
// have settled: executions per delivery, deliveries lost, sender attempts per delivery,
// time until every delivery had run once.
import { createClient } from '@certificate-service/sdk';
import { executionPages, type N8nInstance } from '../e2e/n8n/harness';
import type { Sandbox } from '@certificate-service/sandbox';
import { round } from './measure';
import { attemptLabel, lostDeliveries, releasedIds, type LostDeliveries } from '../support/delivery-outcomes';

export type PathName = 'trigger' | 'verify';

export interface FloodPath {
  path: PathName;
  workflowId: string;
  subscriptionId: string;
  apiKey: string;
  /** The node whose output holds the delivered event (one item per delivery it let through). */
  outputNode: string;
  /** Verify path: the Webhook node's production URL and the subscription's signing secret (what recovery forwards with). */
  url?: string;
  secret?: string;
}

const EVENTS = ['certificate.issued', 'certificate.sent'] as const;

/**
 * A workspace of its own on `sb`, and one published workflow listening to issued + sent:
 *  trigger: our Certificate Service Trigger, version 2 (it subscribes itself);
 *  verify:  Webhook (POST, Raw Body, respond immediately) → Certificate Service: Delivery → Verify,
 *           subscribed through the API (what `certsvc subscriptions create` does).
 */
export async function setUpPath(main: N8nInstance, webhookBase: string, sb: Sandbox, path: PathName, tag: string, recordInN8n: boolean | 'default'): Promise<FloodPath> {
  const ws = sb.controls.createWorkspace({ quota: 100_000 });
  const cred = await main.createCredential('certificateServiceApi', `P9 ${tag}`, { apiKey: ws.apiKey, baseUrl: sb.url });
  const credentials = { certificateServiceApi: { id: cred.id, name: `P9 ${tag}` } };
  if (path === 'trigger') {
    const wf = await main.createWorkflow({
      name: `P9 trigger ${tag}`,
      nodes: [
        {
          id: 'trigger',
          name: 'Certificate Service Trigger',
          type: 'CUSTOM.certificateServiceTrigger',
          typeVersion: 2,
          position: [0, 0],
          webhookId: `p9-${tag}`,
          parameters: { events: [...EVENTS], batch: { __rl: true, mode: 'list', value: '' } },
          credentials,
        },
      ],
      connections: {},
    });
    await main.publish(wf.id);
    const [sub] = sb.controls.subscriptions(ws.workspaceId);
    if (!sub) throw new Error(`P9 ${tag}: publishing the trigger made no subscription`);
    return { path, workflowId: wf.id, subscriptionId: sub.id, apiKey: ws.apiKey, outputNode: 'Certificate Service Trigger' };
  }
  const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
  const url = `${webhookBase}/webhook/p9-${tag}`;
  const sub = await core.createSubscription({ url, events: [...EVENTS] });
  const secret = sb.controls.subscriptions(ws.workspaceId)[0].secret;
  const wf = await main.createWorkflow({
    name: `P9 verify ${tag}`,
    nodes: [
      { id: 'hook', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: `p9-${tag}`, parameters: { httpMethod: 'POST', path: `p9-${tag}`, responseMode: 'onReceived', options: { rawBody: true } } },
      {
        id: 'verify',
        name: 'Verify',
        type: 'CUSTOM.certificateService',
        typeVersion: 1,
        position: [200, 0],
        parameters: { resource: 'delivery', operation: 'verify', signingSecret: secret, rawBodyProperty: 'data', options: recordInN8n === 'default' ? {} : { recordInN8n } },
        credentials,
      },
    ],
    connections: { Webhook: { main: [[{ node: 'Verify', type: 'main', index: 0 }]] } },
  });
  await main.publish(wf.id);
  return { path, workflowId: wf.id, subscriptionId: sub.id, apiKey: ws.apiKey, outputNode: 'Verify', url, secret };
}

/**
 * Reads of n8n's API during and right after a flood can fail for a while: the harness's 60 s
 * timeout on a loaded machine, and in one process n8n answers 503 "Database is not ready!"
 * while its SQLite connection check times out under the flood (measured). A read is safe to
 * repeat, so it is retried every 2 s for up to 5 minutes; the failures are counted.
 */
export const readFailures: string[] = [];
async function retried<T>(read: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      readFailures.push((error as Error).message.slice(0, 200));
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
}

interface Execution {
  id: number;
  status: string;
  stoppedAt: string | null;
  /** The error message of a failed execution. */
  error?: string;
  /** Event ids the output node emitted (none: a duplicate the Verify node dropped). */
  eventIds: string[];
  /** The occurrence of each item the output node emitted, as `<type> <recipient id>` (a recovered event has an id of its own). */
  occurrences: string[];
  /** The X-Service-Delivery the Webhook node received (Verify path only). */
  deliveryId?: string;
  /**
   * The event id (trigger path) the execution was created for, read also from an execution
   * that never ran: n8n stores the start node's items with it (nodeExecutionStack).
   */
  storedEventId?: string;
}

/** Every execution of the workflow newer than `sinceId`, with the event ids its output node emitted. */
export async function executionsSince(main: N8nInstance, p: FloodPath, sinceId: number, includeData: boolean): Promise<Execution[]> {
  const out: Execution[] = [];
  for (const e of await executionPages(main, p.workflowId, { sinceId, includeData, read: retried })) {
    const items: Array<{ json: { id?: unknown; type?: unknown; recipientId?: unknown } }> = e.data?.resultData?.runData?.[p.outputNode]?.[0]?.data?.main?.[0] ?? [];
    const error: string | undefined = e.data?.resultData?.error?.message;
    const startItem = e.data?.executionData?.nodeExecutionStack?.[0]?.data?.main?.[0]?.[0]?.json;
    const webhookItem = e.data?.resultData?.runData?.Webhook?.[0]?.data?.main?.[0]?.[0]?.json ?? (p.path === 'verify' ? startItem : undefined);
    const deliveryId: unknown = webhookItem?.headers?.['x-service-delivery'];
    const storedEventId: unknown = p.path === 'trigger' ? (items[0]?.json.id ?? startItem?.id) : undefined;
    out.push({
      id: Number(e.id),
      status: e.status,
      stoppedAt: e.stoppedAt,
      eventIds: items.map((i) => String(i.json.id)),
      occurrences: items.map((i) => `${String(i.json.type)} ${String(i.json.recipientId)}`),
      ...(error ? { error } : {}),
      ...(typeof deliveryId === 'string' ? { deliveryId } : {}),
      ...(typeof storedEventId === 'string' ? { storedEventId } : {}),
    });
  }
  return out;
}

export interface FloodResult {
  path: PathName;
  /** The flood's batch, and when its first bulk call was made (epoch ms). */
  batchId: string;
  t0: number;
  certificates: number;
  deliveries: number;
  /** Executions that ran the delivered event (for the Verify path: that it let through). */
  executions: number;
  executionsPerDelivery: number;
  /** Extra executions: sum over deliveries of (runs − 1). */
  duplicates: number;
  /** Deliveries that had not run when counting stopped (with `settled`, never). */
  lost: number;
  /** Of those, the ones the sender saw answered 2xx (by anyone: n8n, or our "duplicate"). */
  lostAfter2xx: number;
  /**
   * Lost, counted per delivery by who answered (test/support/delivery-outcomes.ts):
   * `duplicateButNeverRan` (ours, target 0), `lostAfterN8n2xx` (n8n answered 2xx after storing
   * the execution, then lost it), `neverReachedUs` (n8n or nginx refused every attempt before our
   * code), `reachedUsNotRun` (the sender gave up on attempts our code saw fail), and why.
   */
  perDelivery: LostDeliveries;
  /** Every execution the flood started (for the Verify path, including the copies it dropped). */
  executionsStarted: number;
  failedExecutions: number;
  /** Failed executions by error message. */
  executionErrors: Record<string, number>;
  attempts: number;
  /** Failed attempts by what the sender saw: an HTTP status, a network error code, or the timeout. */
  attemptFailures: Record<string, number>;
  attemptsPerDelivery: number;
  timedOutAttempts: number;
  otherFailedAttempts: number;
  mostAttempts: number;
  /** Deliveries the sender gave up on (7 attempts failed). */
  senderFailed: number;
  /** From the first bulk call until the last delivery had run once. */
  allExecutedSeconds: number;
  /** From the first bulk call until the sender had nothing left to retry. */
  senderDoneSeconds: number;
  /** False when counting stopped before n8n's executions settled (see flood()). */
  settled: boolean;
  /** When counting stopped, from the first bulk call. */
  countedUntilSeconds: number;
}

const tally = (keys: string[]) => keys.reduce<Record<string, number>>((t, k) => ({ ...t, [k]: (t[k] ?? 0) + 1 }), {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A new batch, and `certificates` issued into it with send: true in bulk calls of 100; `t0`: just before the first bulk call. */
export async function bulkIssue(sb: Sandbox, apiKey: string, certificates: number, title: string): Promise<{ batchId: string; t0: number }> {
  const core = createClient({ baseUrl: sb.baseUrl, apiKey });
  const batch = await core.createBatch({ title, designId: 'design_classic' });
  const t0 = Date.now();
  for (let from = 0; from < certificates; from += 100) {
    const recipients = Array.from({ length: Math.min(100, certificates - from) }, (_, i) => ({ name: `Learner ${from + i}`, email: `p9.${from + i}@example.com` }));
    const res = await fetch(`${sb.baseUrl}/batches/${batch.id}/recipients/bulk`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipients, send: true }),
    });
    if (res.status !== 201) throw new Error(`P9: bulk issue answered ${res.status}: ${await res.text()}`);
  }
  return { batchId: batch.id, t0 };
}

/** Issues `certificates` with send: true in bulk calls of 100, then counts until everything settled. */
export async function flood(
  main: N8nInstance,
  sb: Sandbox,
  p: FloodPath,
  certificates: number,
  log: (line: string) => void,
  /** The logs of the processes that run webhook() (main, or the webhook processes). */
  webhookLogs: () => string,
  timeoutMs = 12 * 60_000,
  afterSenderMs = 90_000,
): Promise<FloodResult> {
  const before = await executionsSince(main, p, 0, false);
  const sinceId = Math.max(0, ...before.map((e) => e.id));
  const { batchId, t0 } = await bulkIssue(sb, p.apiKey, certificates, `P9 ${p.path}`);
  const recipientIds = new Set(sb.controls.certificates(batchId).map((r) => r.id));
  const floodEvents = () => sb.controls.events().filter((e) => recipientIds.has(e.recipientId));
  const attemptsOf = (ids: Set<string>) => sb.controls.deliveries().filter((d) => d.subscriptionId === p.subscriptionId && ids.has(d.eventId));

  // Settled: every event fired, the sender has no delivery of this flood in progress, and
  // the execution count held still for 5 s with none running. Bounded: n8n may still be working
  // through requests whose sender gave up long ago, so counting stops `afterSenderMs` after the
  // sender is done (what has not run by then is reported as not executed), and after `timeoutMs`
  // in all.
  let last = -1;
  let stableSince = Date.now();
  let senderDoneAt: number | undefined;
  let nextLog = 0;
  let settled = true;
  for (;;) {
    const events = floodEvents();
    const ids = new Set(events.map((e) => e.id));
    const attempts = attemptsOf(ids);
    const finalOutcomes = new Set(attempts.filter((a) => a.outcome !== 'retrying').map((a) => `${a.deliveryId}/${a.copy}`));
    const senderDone = events.length === 2 * certificates && finalOutcomes.size === events.length;
    if (senderDone) senderDoneAt ??= Date.now();
    const list = await executionsSince(main, p, sinceId, false);
    const running = list.some((e) => !e.stoppedAt);
    if (list.length !== last || running || !senderDone) {
      last = list.length;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= 5_000) break;
    if (Date.now() >= nextLog) {
      log(`${Math.round((Date.now() - t0) / 1000)} s: ${events.length} events, ${attempts.length} attempts, ${finalOutcomes.size} deliveries done at the sender, ${list.length} executions`);
      nextLog = Date.now() + 15_000;
    }
    if ((senderDoneAt && Date.now() - senderDoneAt > afterSenderMs) || Date.now() - t0 > timeoutMs) {
      settled = false;
      log(`stopped counting at ${Math.round((Date.now() - t0) / 1000)} s (sender ${senderDone ? 'done' : 'not done'}, ${list.length} executions, ${running ? 'some still running' : 'none running'})`);
      break;
    }
    await sleep(1_000);
  }

  const events = floodEvents();
  const ids = new Set(events.map((e) => e.id));
  const attempts = attemptsOf(ids);
  const executions = await executionsSince(main, p, sinceId, true);
  const runs = new Map<string, number>();
  const firstDone = new Map<string, number>();
  for (const e of executions) {
    for (const id of e.eventIds) {
      if (!ids.has(id)) continue;
      runs.set(id, (runs.get(id) ?? 0) + 1);
      const at = Date.parse(String(e.stoppedAt));
      if (!(firstDone.get(id)! <= at)) firstDone.set(id, at);
    }
  }
  const ran = [...runs.values()].reduce((a, b) => a + b, 0);
  // Verify path: executions whose Verify output nothing dropped their delivery as a duplicate.
  const droppedAsDuplicate = new Set(executions.filter((e) => e.status === 'success' && e.eventIds.length === 0 && e.deliveryId).map((e) => e.deliveryId!));
  const eventOfDelivery = new Map(attempts.map((a) => [a.deliveryId, a.eventId]));
  const stored = new Set(executions.map((e) => e.storedEventId ?? eventOfDelivery.get(e.deliveryId ?? '')).filter((id): id is string => !!id));
  const perDelivery = lostDeliveries([...ids], runs, attempts, { released: releasedIds(webhookLogs()), droppedAsDuplicate, stored });
  const mostAttemptsOf = new Map<string, number>();
  for (const a of attempts) mostAttemptsOf.set(a.deliveryId, Math.max(mostAttemptsOf.get(a.deliveryId) ?? 0, a.attempt));
  return {
    path: p.path,
    batchId,
    t0,
    certificates,
    deliveries: events.length,
    executions: ran,
    executionsPerDelivery: round(ran / events.length, 3),
    duplicates: [...runs.values()].reduce((n, c) => n + c - 1, 0),
    lost: events.filter((e) => !runs.has(e.id)).length,
    lostAfter2xx: events.filter((e) => !runs.has(e.id) && attempts.some((a) => a.eventId === e.id && a.outcome === 'succeeded')).length,
    perDelivery,
    executionsStarted: executions.length,
    failedExecutions: executions.filter((e) => e.status !== 'success').length,
    executionErrors: tally(executions.filter((e) => e.status !== 'success').map((e) => `${e.status}: ${(e.error ?? '').slice(0, 160)}`)),
    attemptFailures: tally(attempts.filter((a) => a.outcome !== 'succeeded').map(attemptLabel)),
    attempts: attempts.length,
    attemptsPerDelivery: round(attempts.length / events.length, 3),
    timedOutAttempts: attempts.filter((a) => a.error?.startsWith('timeout')).length,
    otherFailedAttempts: attempts.filter((a) => a.outcome !== 'succeeded' && !a.error?.startsWith('timeout')).length,
    mostAttempts: Math.max(0, ...mostAttemptsOf.values()),
    senderFailed: attempts.filter((a) => a.outcome === 'failed').length,
    allExecutedSeconds: round((Math.max(0, ...firstDone.values()) - t0) / 1000, 1),
    senderDoneSeconds: round((Math.max(...attempts.map((a) => a.atMs + a.durationMs)) - t0) / 1000, 1),
    settled,
    countedUntilSeconds: round((Date.now() - t0) / 1000, 1),
  };
}
