// What the overview page at `/` shows (routes/dashboard.ts renders it as HTML). For one
// workspace: its batches, newest first, each with its counts; its webhook subscriptions; its
// recent deliveries with every attempt. With `?batch=<id>`: that batch and its certificates.
// Read from the store and the logs, never through the API, so it needs no key and counts no
// request. Paged by rows (batches, certificates, deliveries), so a batch of 10,000 certificates
// or a workspace of 1,000 batches stays a small page.
import type { Recipient } from '@certificate-service/sdk';
import { EMAIL_STATUSES, type EmailStatus } from './choices';
import type { SandboxContext } from './context';
import { validationError } from './errors';
import { DEMO_WORKSPACE } from './seed';
import { type BatchRecord, type DesignRecord, designOf, type WorkspaceRecord } from './store';
import type { DeliveryAttempt } from './types';
import { subscriptionView } from './views';

/** Rows (batches, certificates or deliveries) per page: a few hundred still render at once. */
export const PAGE_ROWS = 200;

export interface DashboardQuery {
  /** The workspace shown; default the demo one, else the first (or the batch's, with `batchId`). */
  workspaceId: string | null;
  /** One batch and its certificates, instead of the workspace's overview. */
  batchId: string | null;
  /** 1-based: the page of the batch list (or, with `batchId`, of the batch's certificates). */
  page: number;
  /** 1-based page of the deliveries, paged on its own. */
  deliveriesPage: number;
}

export interface Paged<T> {
  items: T[];
  page: number;
  pages: number;
  /** Rows in all pages. */
  rows: number;
  /** Position of the first item shown among the `rows` (0-based). */
  from: number;
}

/** A batch with its counts: certificates, and certificates by email state. */
export interface BatchSummary {
  batch: BatchRecord;
  design: DesignRecord | undefined;
  certificates: number;
  emails: Record<EmailStatus, number>;
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

interface Workspaces {
  workspaces: Array<{ id: string; username: string }>;
  /** Null when `?ws=` names no workspace (or there is none: started with --no-seed). */
  workspace: WorkspaceRecord | null;
}

/** The workspace's overview. */
export interface Overview extends Workspaces {
  kind: 'overview';
  batches: Paged<BatchSummary>;
  certificates: number;
  /** The public view: a signing secret is never part of it. */
  subscriptions: ReturnType<typeof subscriptionView>[];
  deliveries: Paged<DeliveryRow>;
}

/** One batch (null: `?batch=` names none, in this workspace) and a page of its certificates, newest first. */
export interface BatchPage extends Workspaces {
  kind: 'batch';
  batchId: string;
  summary: BatchSummary | null;
  certificates: Paged<Recipient>;
}

export type Dashboard = Overview | BatchPage;

export function parseDashboardQuery(query: URLSearchParams): DashboardQuery {
  return { workspaceId: query.get('ws'), batchId: query.get('batch'), page: pageNumber(query, 'page'), deliveriesPage: pageNumber(query, 'deliveriesPage') };
}

function pageNumber(query: URLSearchParams, name: string): number {
  const raw = query.get(name);
  if (raw === null) return 1;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw validationError(name, `${name} must be a whole number from 1; got "${raw}".`);
  return Number(raw);
}

export function readDashboard(sb: SandboxContext, q: DashboardQuery): Dashboard {
  const all = [...sb.store.workspaces.values()];
  const workspaces = all.map((w) => ({ id: w.id, username: w.username }));
  if (q.batchId !== null) {
    const batch = sb.store.batches.get(q.batchId);
    const workspace = batch ? (sb.store.workspaces.get(batch.workspaceId) ?? null) : null;
    const found = batch && workspace && (q.workspaceId === null || q.workspaceId === workspace.id) ? batch : undefined;
    // Newest first: the issue-ordered array read from its end.
    const recipients = found ? found.recipients.map((r) => r.recipient).reverse() : [];
    return {
      kind: 'batch',
      workspaces,
      workspace: found ? workspace : null,
      batchId: q.batchId,
      summary: found && workspace ? summarise(workspace, found) : null,
      certificates: paged(recipients, q.page),
    };
  }
  const workspace =
    q.workspaceId !== null ? (sb.store.workspaces.get(q.workspaceId) ?? null) : (sb.store.workspaces.get(DEMO_WORKSPACE.workspaceId) ?? all[0] ?? null);
  const batches = workspace ? [...workspace.batches].reverse() : [];
  const page = paged(batches, q.page);
  return {
    kind: 'overview',
    workspaces,
    workspace,
    batches: { ...page, items: page.items.map((b) => summarise(workspace!, b)) },
    certificates: batches.reduce((n, b) => n + b.recipients.length, 0),
    subscriptions: workspace ? workspace.subscriptions.map(subscriptionView) : [],
    deliveries: paged(workspace ? deliveryRows(sb, workspace.id) : [], q.deliveriesPage),
  };
}

function summarise(ws: WorkspaceRecord, batch: BatchRecord): BatchSummary {
  const emails = Object.fromEntries(EMAIL_STATUSES.map((status) => [status, 0])) as Record<EmailStatus, number>;
  for (const r of batch.recipients) emails[r.recipient.emailStatus as EmailStatus]++;
  return { batch, design: designOf(ws, batch), certificates: batch.recipients.length, emails };
}

/** PAGE_ROWS of `all` from page `page`; past the end, the last page. */
function paged<T>(all: T[], page: number): Paged<T> {
  const pages = Math.max(1, Math.ceil(all.length / PAGE_ROWS));
  const current = Math.min(page, pages);
  const from = (current - 1) * PAGE_ROWS;
  return { items: all.slice(from, from + PAGE_ROWS), page: current, pages, rows: all.length, from };
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
