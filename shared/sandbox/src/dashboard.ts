// What the overview page at `/` shows (routes/dashboard.ts renders it as HTML): one
// workspace's batches with their certificates, its webhook subscriptions and its recent
// deliveries with every attempt. Read from the store and the logs, never through the API, so
// it needs no key and counts no request. Paged by rows, so a batch of 10,000 stays a small page.
import type { Recipient } from '@certificate-service/sdk';
import type { SandboxContext } from './context';
import { validationError } from './errors';
import { DEMO_WORKSPACE } from './seed';
import { type BatchRecord, type DesignRecord, designOf, type WorkspaceRecord } from './store';
import type { DeliveryAttempt } from './types';
import { subscriptionView } from './views';

/** Certificate rows (or delivery rows) per page: a few hundred still render at once. */
export const PAGE_ROWS = 200;

export interface DashboardQuery {
  /** The workspace shown; default the demo one, else the first. */
  workspaceId: string | null;
  /** 1-based pages of the batches and of the deliveries, each paged on its own. */
  page: number;
  deliveriesPage: number;
}

export interface Paged<T> {
  items: T[];
  page: number;
  pages: number;
  /** Rows in all pages. */
  rows: number;
}

/** A batch and the slice of its certificates (newest first) that falls on this page. */
export interface BatchSlice {
  batch: BatchRecord;
  design: DesignRecord | undefined;
  certificates: Recipient[];
  /** Position of the first certificate shown among the batch's `total`, newest first (0-based). */
  from: number;
  total: number;
}

/** One delivery (one copy of it, when duplicates are simulated) with every attempt so far. */
export interface DeliveryRow {
  deliveryId: string;
  copy: number;
  type: DeliveryAttempt['type'];
  url: string;
  /** The certificate the event is about, while it exists. */
  certificate?: Pick<Recipient, 'name' | 'certificateId'>;
  /** A test delivery (`POST …/test`): its event is no real one, so the event log does not hold it. */
  test: boolean;
  attempts: DeliveryAttempt[];
  /** The last attempt's outcome: what the engine did next. */
  outcome: DeliveryAttempt['outcome'];
}

export interface Dashboard {
  workspaces: Array<{ id: string; username: string }>;
  /** Null when `?ws=` names no workspace (or there is none: started with --no-seed). */
  workspace: WorkspaceRecord | null;
  batches: Paged<BatchSlice>;
  certificates: number;
  /** The public view: a signing secret is never part of it. */
  subscriptions: ReturnType<typeof subscriptionView>[];
  deliveries: Paged<DeliveryRow>;
}

export function parseDashboardQuery(query: URLSearchParams): DashboardQuery {
  return { workspaceId: query.get('ws'), page: pageNumber(query, 'page'), deliveriesPage: pageNumber(query, 'deliveriesPage') };
}

function pageNumber(query: URLSearchParams, name: string): number {
  const raw = query.get(name);
  if (raw === null) return 1;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw validationError(name, `${name} must be a whole number from 1; got "${raw}".`);
  return Number(raw);
}

export function readDashboard(sb: SandboxContext, q: DashboardQuery): Dashboard {
  const all = [...sb.store.workspaces.values()];
  const workspace =
    q.workspaceId !== null ? (sb.store.workspaces.get(q.workspaceId) ?? null) : (sb.store.workspaces.get(DEMO_WORKSPACE.workspaceId) ?? all[0] ?? null);
  const batches = workspace ? [...workspace.batches].reverse() : [];
  return {
    workspaces: all.map((w) => ({ id: w.id, username: w.username })),
    workspace,
    batches: pageBatches(workspace, batches, q.page),
    certificates: batches.reduce((n, b) => n + b.recipients.length, 0),
    subscriptions: workspace ? workspace.subscriptions.map(subscriptionView) : [],
    deliveries: workspace ? pageRows(deliveryRows(sb, workspace.id), q.deliveriesPage) : pageRows([], 1),
  };
}

/**
 * Batches newest first, each one row per certificate (an empty batch is one row), cut into
 * pages of PAGE_ROWS rows; a batch that spans two pages shows on both with its own slice.
 */
function pageBatches(ws: WorkspaceRecord | null, batches: BatchRecord[], page: number): Paged<BatchSlice> {
  const rows = batches.reduce((n, b) => n + Math.max(1, b.recipients.length), 0);
  const pages = Math.max(1, Math.ceil(rows / PAGE_ROWS));
  const current = Math.min(page, pages); // past the end: the last page
  const start = (current - 1) * PAGE_ROWS;
  const end = start + PAGE_ROWS;
  const items: BatchSlice[] = [];
  let offset = 0;
  for (const batch of batches) {
    const total = batch.recipients.length;
    const size = Math.max(1, total);
    if (offset + size > start && offset < end) {
      const from = Math.max(0, start - offset);
      const to = Math.min(total, end - offset);
      // Newest first: position i counts from the end of the issue-ordered array.
      const certificates = batch.recipients.slice(total - to, total - from).reverse().map((r) => r.recipient);
      items.push({ batch, design: ws ? designOf(ws, batch) : undefined, certificates, from, total });
    }
    offset += size;
    if (offset >= end) break;
  }
  return { items, page: current, pages, rows };
}

function pageRows<T>(all: T[], page: number): Paged<T> {
  const pages = Math.max(1, Math.ceil(all.length / PAGE_ROWS));
  const current = Math.min(page, pages);
  return { items: all.slice((current - 1) * PAGE_ROWS, current * PAGE_ROWS), page: current, pages, rows: all.length };
}

/**
 * The delivery log (one entry per attempt, all workspaces) grouped into deliveries, newest
 * first. A delivery belongs to its subscription's workspace; once the subscription is gone
 * (deleted, or a 410), to its event's.
 */
function deliveryRows(sb: SandboxContext, workspaceId: string): DeliveryRow[] {
  const events = new Map(sb.events.log.map((e) => [e.id, e]));
  const rows = new Map<string, DeliveryRow>();
  for (const attempt of sb.deliveries.log) {
    const key = `${attempt.deliveryId}#${attempt.copy}`;
    let row = rows.get(key);
    if (!row) {
      const event = events.get(attempt.eventId);
      const owner = sb.store.subscriptions.get(attempt.subscriptionId)?.workspaceId ?? event?.workspaceId;
      if (owner !== workspaceId) continue;
      const recipient = event && sb.store.recipients.get(event.recipientId)?.recipient;
      row = { deliveryId: attempt.deliveryId, copy: attempt.copy, type: attempt.type, url: attempt.url, test: !event, attempts: [], outcome: attempt.outcome };
      if (recipient) row.certificate = { name: recipient.name, certificateId: recipient.certificateId };
      rows.set(key, row);
    }
    row.attempts.push(attempt);
    row.outcome = attempt.outcome;
  }
  return [...rows.values()].reverse();
}
