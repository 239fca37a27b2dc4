/**
 * Helpers of the queue-mode suites.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { signPayload, type WebhookEvent } from '@certificate-service/sdk/core';
import { executionPages, type N8nInstance } from '../n8n/harness';
import { TRIGGER_NAME } from '../n8n/workflows';
import { answeredBy, settledExecutions as settledOf } from '../../support/deliver';
import { postgresBinDir } from './services';

/** A suite's measured figures: each printed as it is recorded (`[tag] key: value`), all written to `file` here by save(). */
export function figureLog(tag: string, file: string) {
  const figures: Record<string, unknown> = {};
  return {
    record(key: string, value: unknown): void {
      figures[key] = value;
      console.log(`[${tag}] ${key}: ${JSON.stringify(value)}`);
    },
    save(): void {
      fs.writeFileSync(path.join(__dirname, file), `${JSON.stringify({ at: new Date().toISOString(), figures }, null, 2)}\n`);
    },
  };
}

export interface Sent {
  status: number;
  /** The upstream that answered (the last one nginx tried: answeredBy). */
  servedBy: string;
  body: string;
}

/** POSTs one signed copy of a delivery (a fresh `t`, as the service's retries are). */
export async function deliver(url: string, secret: string, event: WebhookEvent, deliveryId: string): Promise<Sent> {
  const body = JSON.stringify(event);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'Service-Webhook/1',
      'X-Service-Event': event.type,
      'X-Service-Delivery': deliveryId,
      ...signPayload(secret, body),
    },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, servedBy: answeredBy(res.headers.get('x-served-by')), body: await res.text() };
}

export interface ExecutionSummary {
  id: number;
  status: string;
  /** The event id our trigger emitted (its item's `id`), when the execution has data. */
  eventId: string | undefined;
  /**
   * The event id the execution was created for, also when it never ran: n8n stores the start
   * node's items with a new execution (webhook-helpers.js, prepareExecutionData).
   */
  storedEventId: string | undefined;
  /** The error message of an execution that failed. */
  error?: string;
}

/** Every execution of a workflow (all pages), with the event id each one ran for. */
export async function allExecutions(n8n: N8nInstance, workflowId: string, includeData = true): Promise<ExecutionSummary[]> {
  const out: ExecutionSummary[] = [];
  for (const e of await executionPages(n8n, workflowId, { includeData })) {
    const item = e.data?.resultData?.runData?.[TRIGGER_NAME]?.[0]?.data?.main?.[0]?.[0]?.json;
    const stored = item ?? e.data?.executionData?.nodeExecutionStack?.[0]?.data?.main?.[0]?.[0]?.json;
    out.push({
      id: Number(e.id),
      status: e.status,
      eventId: typeof item?.id === 'string' ? item.id : undefined,
      storedEventId: typeof stored?.id === 'string' ? stored.id : undefined,
      ...(typeof e.data?.resultData?.error?.message === 'string' ? { error: e.data.resultData.error.message.slice(0, 160) } : {}),
    });
  }
  return out;
}

/** Every execution of the workflow once none is pending and the list held still for `quietMs`; throws at the deadline. */
export function settledExecutions(n8n: N8nInstance, workflowId: string, quietMs = 2_000, timeoutMs = 120_000): Promise<ExecutionSummary[]> {
  return settledOf(() => allExecutions(n8n, workflowId), quietMs, timeoutMs, true);
}

/** Executions per event id. */
export function countByEvent(list: ExecutionSummary[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of list) if (e.eventId) counts.set(e.eventId, (counts.get(e.eventId) ?? 0) + 1);
  return counts;
}

/** Runs one SQL query against n8n's Postgres with Debian's psql; returns the unaligned output. */
export function sql(postgresPort: number, query: string): string {
  const res = spawnSync(path.join(postgresBinDir(), 'psql'), ['-h', '127.0.0.1', '-p', String(postgresPort), '-U', 'n8n', '-d', 'postgres', '-At', '-c', query], {
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`psql failed: ${res.stderr}`);
  return res.stdout.trim();
}

/** The static data n8n has saved for a workflow (what every process reads per request). */
export function savedStaticData(postgresPort: number, workflowId: string): Record<string, any> {
  const text = sql(postgresPort, `select coalesce("staticData"::text, '{}') from workflow_entity where id = '${workflowId.replace(/'/g, "''")}'`);
  return JSON.parse(text || '{}');
}
