// In-memory state. Every lookup is a Map hit; per-workspace and per-batch arrays are kept
// in creation order (ascending seq) so lists can page newest-first with a binary search.
import type { BatchStatus, EventType, Recipient } from '@certificate-service/sdk';

export interface ApiKeyRecord {
  key: string;
  workspaceId: string;
  createdAt: string;
  /** Epoch ms; null = never expires. */
  expiresAt: number | null;
}

export interface DesignVariableRecord {
  name: string;
  label: string;
  required: boolean;
}

export interface DesignRecord {
  seq: number;
  id: string;
  name: string;
  /** Absent: the design lists no variables (see seed.ts for the shape we chose). */
  variables?: DesignVariableRecord[];
}

export interface BatchRecord {
  seq: number;
  workspaceId: string;
  id: string;
  title: string;
  designId: string;
  status: BatchStatus;
  createdAt: string;
  recipients: RecipientRecord[];
}

export interface RecipientRecord {
  seq: number;
  workspaceId: string;
  /** Set on the first public view: `certificate.viewed` fires at most once. */
  viewed: boolean;
  /** The public object, mutated in place by PATCH and the mail simulation. */
  recipient: Recipient;
}

export interface SubscriptionRecord {
  seq: number;
  workspaceId: string;
  id: string;
  url: string;
  events: EventType[];
  createdAt: string;
  secret: string;
  /** Kept after a rotation so deliveries carry both signatures until the grace period ends. */
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
}

export interface WorkspaceRecord {
  id: string;
  username: string;
  quota: number;
  used: number;
  designs: DesignRecord[];
  batches: BatchRecord[];
  subscriptions: SubscriptionRecord[];
}

/** Scoped lookups return undefined for another workspace's objects: that is key isolation. */
function ownedBy<T extends { workspaceId: string }>(ws: WorkspaceRecord, record: T | undefined): T | undefined {
  return record && record.workspaceId === ws.id ? record : undefined;
}

export class Store {
  readonly workspaces = new Map<string, WorkspaceRecord>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  readonly batches = new Map<string, BatchRecord>();
  readonly recipients = new Map<string, RecipientRecord>();
  readonly byCertificateId = new Map<string, RecipientRecord>();
  readonly byShareToken = new Map<string, RecipientRecord>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  /** Writes to each batch's certificates so far (issue, delete, email status): cursors can expire after N. */
  readonly writes = new Map<string, number>();

  clear(): void {
    this.writes.clear();
    this.workspaces.clear();
    this.apiKeys.clear();
    this.batches.clear();
    this.recipients.clear();
    this.byCertificateId.clear();
    this.byShareToken.clear();
    this.subscriptions.clear();
  }

  addBatch(ws: WorkspaceRecord, batch: BatchRecord): void {
    ws.batches.push(batch);
    this.batches.set(batch.id, batch);
  }

  batchOf(ws: WorkspaceRecord, id: string): BatchRecord | undefined {
    return ownedBy(ws, this.batches.get(id));
  }

  /** Counts one write to a batch's certificates. */
  touch(batchId: string): void {
    this.writes.set(batchId, (this.writes.get(batchId) ?? 0) + 1);
  }

  addRecipient(batch: BatchRecord, rec: RecipientRecord): void {
    this.touch(batch.id);
    batch.recipients.push(rec);
    this.recipients.set(rec.recipient.id, rec);
    this.byCertificateId.set(rec.recipient.certificateId, rec);
    this.byShareToken.set(rec.recipient.shareToken, rec);
  }

  recipientOf(batch: BatchRecord, id: string): RecipientRecord | undefined {
    const rec = this.recipients.get(id);
    return rec && rec.recipient.batchId === batch.id ? rec : undefined;
  }

  removeRecipient(batch: BatchRecord, rec: RecipientRecord): void {
    this.touch(batch.id);
    const i = indexOfSeq(batch.recipients, rec.seq);
    if (i >= 0) batch.recipients.splice(i, 1);
    this.recipients.delete(rec.recipient.id);
    this.byCertificateId.delete(rec.recipient.certificateId);
    this.byShareToken.delete(rec.recipient.shareToken);
  }

  addSubscription(ws: WorkspaceRecord, sub: SubscriptionRecord): void {
    ws.subscriptions.push(sub);
    this.subscriptions.set(sub.id, sub);
  }

  subscriptionOf(ws: WorkspaceRecord, id: string): SubscriptionRecord | undefined {
    return ownedBy(ws, this.subscriptions.get(id));
  }

  removeSubscription(id: string): boolean {
    const sub = this.subscriptions.get(id);
    if (!sub) return false;
    this.subscriptions.delete(id);
    const ws = this.workspaces.get(sub.workspaceId);
    if (ws) ws.subscriptions = ws.subscriptions.filter((s) => s.id !== id);
    return true;
  }

  activeKeyCount(workspaceId: string, now: number): number {
    let n = 0;
    for (const k of this.apiKeys.values()) {
      if (k.workspaceId === workspaceId && (k.expiresAt === null || k.expiresAt > now)) n++;
    }
    return n;
  }
}

/** The design a batch was created with (every workspace holds the same read-only designs). */
export function designOf(ws: WorkspaceRecord, batch: BatchRecord): DesignRecord | undefined {
  return ws.designs.find((d) => d.id === batch.designId);
}

/** Binary search in an ascending-seq array; -1 when absent. */
export function indexOfSeq(items: readonly { seq: number }[], seq: number): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = items[mid].seq;
    if (s === seq) return mid;
    if (s < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
