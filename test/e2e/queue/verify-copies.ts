/**
 * Copies of one occurrence for Webhook (Raw Body) → Delivery: Verify in queue mode, and what
 * became of them: the worker that ran each copy's execution, and whether Verify output it.
 * - the service's copy: the delivery as the sandbox sent it (kept by a local receiver), sent
 *   again with a fresh signature, as the service's late retry is;
 * - the recovered copy: what `certsvc events recover` forwards (the SDK's findRecoverableEvents:
 *   the same occurrence with `recovered: true` in the body, a `whd_r…` delivery id).
 * Used by the queue suite (queue.e2e.test.ts) and by verify-copies.measure.ts.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CertificateServiceClient } from '@certificate-service/sdk';
import { claimKey, type WebhookEvent } from '@certificate-service/sdk/core';
import { executionPages, type N8nInstance, type N8nProcess } from '../n8n/harness';
import { postDelivery, type Attempt } from '../../support/deliver';

export interface Copy {
  deliveryId: string;
  event: WebhookEvent;
}

/** One occurrence (claimKey) and its two copies. */
export interface Occurrence {
  key: string;
  type: string;
  service: Copy;
  recovered: Copy;
}

/** A receiver the sandbox delivers to: it keeps the first copy of each delivery and answers 200. */
export async function captureReceiver(): Promise<{ url: string; copies: Map<string, Copy>; close(): Promise<void> }> {
  const copies = new Map<string, Copy>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const deliveryId = String(req.headers['x-service-delivery'] ?? '');
      if (deliveryId && !copies.has(deliveryId)) copies.set(deliveryId, { deliveryId, event: JSON.parse(body) as WebhookEvent });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, copies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Each occurrence of `batchId` since `since` that `captured` holds a delivery of, with its recovered copy. */
export async function occurrencesOf(core: CertificateServiceClient, batchId: string, since: number, captured: Map<string, Copy>): Promise<Occurrence[]> {
  const found = await core.findRecoverableEvents({ since, events: ['issued', 'failed'], batches: [batchId] });
  const byKey = new Map([...captured.values()].map((c) => [claimKey(c.event, c.deliveryId), c]));
  return found.events.flatMap(({ event, key, deliveryId }) => {
    const service = byKey.get(key);
    return service ? [{ key, type: event.type, service, recovered: { deliveryId, event } }] : [];
  });
}

/** POSTs one copy, signed now with `secret` (as the service signs each attempt, and `certsvc events recover` each forward). */
export function send(url: string, secret: string, copy: Copy): Promise<Attempt> {
  return postDelivery(url, secret, copy.event, copy.deliveryId);
}

/** Sends `first`, then `second` `gapMs` later, without waiting for the first's answer: copies that arrive together. */
export async function sendTogether(url: string, secret: string, first: Copy, second: Copy, gapMs: number): Promise<Attempt[]> {
  const a = send(url, secret, first);
  await new Promise((r) => setTimeout(r, gapMs));
  return Promise.all([a, send(url, secret, second)]);
}

/** One execution of a Webhook → Verify workflow. */
export interface VerifyRun {
  id: number;
  status: string;
  /** The X-Service-Delivery the Webhook node received. */
  deliveryId: string | undefined;
  /** Whether Verify output the event (it ran), rather than dropping it. */
  ran: boolean;
  /** Why Verify rejected the copy, when it was set to output rejected deliveries (onRejected: output). */
  rejected?: string;
  /** Index in `workers` of the worker that logged `Worker started execution <id>`; -1 when none did. */
  worker: number;
}

/** Every execution of the workflow newer than `sinceId`, with the worker that ran it (job-processor.js logs it). */
export async function verifyRuns(main: N8nInstance, workflowId: string, workers: N8nProcess[], sinceId = 0): Promise<VerifyRun[]> {
  const logs = workers.map((w) => w.logs());
  return (await executionPages(main, workflowId, { sinceId, includeData: true })).map((e) => {
    const runData = e.data?.resultData?.runData;
    const headers = runData?.Webhook?.[0]?.data?.main?.[0]?.[0]?.json?.headers ?? {};
    const output: Array<{ json: { verified?: boolean; reason?: string } }> = runData?.Verify?.[0]?.data?.main?.[0] ?? [];
    const rejected = output.find((i) => i.json.verified === false)?.json.reason;
    return {
      id: Number(e.id),
      status: e.status,
      deliveryId: typeof headers['x-service-delivery'] === 'string' ? headers['x-service-delivery'] : undefined,
      ran: output.some((i) => i.json.verified !== false),
      ...(rejected ? { rejected } : {}),
      worker: logs.findIndex((log) => log.includes(`Worker started execution ${e.id} (`)),
    };
  });
}

/** The highest execution id of a workflow so far (0 for none). */
export async function lastExecutionId(main: N8nInstance, workflowId: string): Promise<number> {
  const [newest] = await main.api<{ data: Array<{ id: string }> }>('GET', `/executions?workflowId=${workflowId}&limit=1`).then((r) => r.data);
  return newest ? Number(newest.id) : 0;
}

/** What became of one occurrence: the executions of its copies, how many Verify let through, and where. */
export interface OccurrenceOutcome {
  key: string;
  executions: number;
  ran: number;
  /** Workers that ran an execution of a copy (distinct, sorted). */
  workers: number[];
  /** Workers on which Verify let it through (one entry per run). */
  ranOn: number[];
  /** Copies Verify rejected (with onRejected: output), by reason. */
  rejected: string[];
}

export function outcomes(groups: Array<{ key: string; deliveryIds: string[] }>, runs: VerifyRun[]): OccurrenceOutcome[] {
  return groups.map(({ key, deliveryIds }) => {
    const mine = runs.filter((r) => r.deliveryId !== undefined && deliveryIds.includes(r.deliveryId));
    return {
      key,
      executions: mine.length,
      ran: mine.filter((r) => r.ran).length,
      workers: [...new Set(mine.map((r) => r.worker))].sort(),
      ranOn: mine.filter((r) => r.ran).map((r) => r.worker),
      rejected: mine.flatMap((r) => (r.rejected ? [r.rejected] : [])),
    };
  });
}

/** The counts a report quotes. */
export function summarize(list: OccurrenceOutcome[]) {
  return {
    occurrences: list.length,
    executions: list.reduce((n, o) => n + o.executions, 0),
    ranOnce: list.filter((o) => o.ran === 1).length,
    ranTwice: list.filter((o) => o.ran >= 2).length,
    ranNever: list.filter((o) => o.ran === 0).length,
    copiesOnTwoWorkers: list.filter((o) => o.workers.length >= 2).length,
    ranTwiceOnTwoWorkers: list.filter((o) => new Set(o.ranOn).size >= 2).length,
    rejected: list.flatMap((o) => o.rejected).reduce<Record<string, number>>((t, r) => ({ ...t, [r]: (t[r] ?? 0) + 1 }), {}),
  };
}
