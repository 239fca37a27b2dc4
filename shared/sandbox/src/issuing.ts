// Issuing certificates: input checks, the archived/quota gates, and the commit that
// creates recipients, uses quota, fires certificate.issued and queues mail.
import type { Recipient } from '@certificate-service/sdk';
import { ApiError, validationError } from './errors';
import type { SandboxContext } from './context';
import { type BatchRecord, designOf, type RecipientRecord, type WorkspaceRecord } from './store';
import { dataObject, objectBody, requiredEmail, requiredString } from './validate';


export interface IssueItem {
  name: string;
  email: string;
  data: Record<string, string>;
}

/**
 * Validates one recipient input; `prefix` names its place in a bulk body, e.g. `recipients[3].`.
 * `required`: the design's required variable names, each of which must be a non-blank string.
 */
export function parseIssueItem(raw: unknown, prefix = '', required: readonly string[] = []): IssueItem {
  const obj = prefix ? itemObject(raw, prefix.slice(0, -1)) : objectBody(raw);
  const name = requiredString(obj, 'name', `${prefix}name`);
  const email = requiredEmail(obj, 'email', `${prefix}email`);
  const data = obj.data === undefined ? {} : (dataObject(obj.data, `${prefix}data`) as Record<string, string>);
  assertRequiredVariables(data, required, `${prefix}data`);
  return { name, email, data };
}

/** The names of the variables the batch's design requires. */
export function requiredVariables(ws: WorkspaceRecord, batch: BatchRecord): string[] {
  return (designOf(ws, batch)?.variables ?? []).filter((v) => v.required).map((v) => v.name);
}

/** A required variable that is absent or blank is a 400 on `data.<name>` (the first one missing). */
export function assertRequiredVariables(data: Record<string, string | null>, required: readonly string[], field = 'data'): void {
  const missing = required.find((name) => typeof data[name] !== 'string' || !data[name]!.trim());
  if (missing !== undefined) {
    throw validationError(`${field}.${missing}`, `${field}.${missing} is required by the batch's design and must not be empty.`);
  }
}

function itemObject(raw: unknown, field: string): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw validationError(field, `${field} must be an object with name, email and optional data.`);
  }
  return raw as Record<string, unknown>;
}

/** Rejections that apply to the whole request; nothing is issued and no quota is used. */
export function assertCanIssue(ws: WorkspaceRecord, batch: BatchRecord, count: number): void {
  if (batch.status === 'archived') {
    throw new ApiError('BATCH_ARCHIVED', `Batch ${batch.id} is archived; unarchive it before issuing certificates.`, {
      batchId: batch.id,
    });
  }
  const remaining = ws.quota - ws.used;
  if (count > remaining) {
    throw new ApiError(
      'QUOTA_EXCEEDED',
      `This request issues ${count} certificate(s) but only ${remaining} remain in the plan quota. Nothing was issued.`,
      { quota: ws.quota, used: ws.used, remaining, requested: count },
    );
  }
}

/** Commits the issue. Callers have run assertCanIssue for the same count. */
export function issueRecipients(
  sb: SandboxContext,
  ws: WorkspaceRecord,
  batch: BatchRecord,
  items: IssueItem[],
  send: boolean,
): RecipientRecord[] {
  ws.used += items.length;
  sb.counters.quotaUsed += items.length;
  sb.counters.certificatesIssued += items.length;
  const out: RecipientRecord[] = [];
  // One call, one clock reading: every certificate of a bulk call shares its createdAt (choices.ts).
  const iso = sb.stamp();
  const at = new Date(iso);
  for (const item of items) {
    const seq = sb.ids.nextSeq();
    const shareToken = sb.ids.shareToken();
    const recipient: Recipient = {
      id: sb.ids.id('rec_'),
      batchId: batch.id,
      name: item.name,
      email: item.email,
      certificateId: sb.ids.certificateId(seq, at),
      shareToken,
      certUrl: `${sb.origin}/v/${shareToken}`,
      issueDate: iso,
      expiryDate: null,
      data: item.data,
      emailStatus: 'not_sent',
      emailSentAt: null,
      createdAt: iso,
    };
    const rec: RecipientRecord = { seq, workspaceId: ws.id, viewed: false, recipient };
    sb.store.addRecipient(batch, rec);
    // Queue first so the issued event already says 'queued' when send was asked for.
    if (send) sb.mail.queue(rec);
    sb.events.emit(ws.id, 'certificate.issued', recipient);
    out.push(rec);
  }
  return out;
}
