// TEMPORARY ADAPTER (issue 25 part 1 is rebuilding the core's issueMany). It gives the MCP
// server the shape the core's new issue plan will have, on top of today's core calls:
// `issueMany(items, options)` resolving to one typed IssueOutcome per item, `previewIssue`
// (the same reads, no write) and `countOutcomes`. Once the "Issue plan:" commit is on main,
// this file is deleted and the tools call `client.issueMany` / `client.previewIssue` directly.
//
// It is a plan, then effects: validate every item once (the batch id trimmed, the email keyed
// case-insensitively, the required design variables checked), read what exists, then send in
// bulk calls of at most 100, checking the abort signal between calls (a call in flight is
// never abandoned: its answer is what says what was issued).
import {
  CertificateServiceError,
  checkRequiredVariables,
  validateIssue,
  validationError,
  type CertificateServiceClient,
  type DesignVariable,
  type IssueItem,
  type Recipient,
} from '@certificate-service/sdk';

export type { IssueItem };

export type IssueOutcome =
  | { kind: 'issued'; recipient: Recipient }
  | { kind: 'skipped'; recipient: Recipient; reason: 'inBatch' | 'earlierInCall' }
  | { kind: 'invalid' | 'failed' | 'unknown' | 'notSent' | 'refusedEarlier' | 'unreadBatch'; error: CertificateServiceError };
export type IssueOutcomeKind = IssueOutcome['kind'];

export interface IssueOptions {
  /** Skip items whose email is already in their batch, or earlier in this call. Default true. */
  skipExisting?: boolean;
  send?: boolean;
  /** Variables shared by every item; an item's own `data` wins key by key. */
  data?: Record<string, unknown>;
  bulk?: boolean;
  /** Each batch's design variables: read by the plan ('design') or given. */
  variables?: 'design' | ReadonlyMap<string, ReadonlyArray<DesignVariable>>;
  onProgress?: (done: number, total: number) => void;
  /** Stop after the call in flight: the items not sent end `notSent`. */
  signal?: AbortSignal;
}

export interface IssuePreview {
  /** One entry per item: what the issue would do with it. */
  items: Array<{ kind: 'send' } | { kind: 'skipped'; reason: 'inBatch' | 'earlierInCall'; recipient?: Recipient } | { kind: 'invalid' | 'unreadBatch'; error: CertificateServiceError }>;
  /** How many would really be issued (after skip-existing). */
  toIssue: number;
  /** Issue calls it would make (bulk calls of at most 100; a lone item uses the single-issue call). */
  calls: number;
}

const MAX_BULK = 100;

interface Planned {
  index: number;
  batchId: string;
  send: boolean;
  input: { name: string; email: string; data: Record<string, string> };
}

/** Validation, variables and skip-existing: everything before the first write. */
async function plan(client: CertificateServiceClient, items: IssueItem[], options: IssueOptions) {
  const outcomes: Array<IssueOutcome | undefined> = new Array(items.length).fill(undefined);
  const firstOf = new Map<number, number>(); // repeat index → index of the first item with its email
  const batchIds = [...new Set(items.map((i) => (typeof i?.batchId === 'string' ? i.batchId.trim() : '')).filter(Boolean))];

  const unread = new Map<string, CertificateServiceError>();
  const variables = new Map<string, ReadonlyArray<DesignVariable>>();
  if (options.variables === 'design') {
    for (const batchId of batchIds) {
      try {
        variables.set(batchId, (await client.getBatchVariables(batchId)).variables);
      } catch (error) {
        unread.set(batchId, asServiceError(error));
      }
    }
  } else if (options.variables) {
    for (const [k, v] of options.variables) variables.set(k.trim(), v);
  }

  const planned: Planned[] = [];
  items.forEach((item, index) => {
    try {
      const batchId = typeof item?.batchId === 'string' ? item.batchId.trim() : '';
      if (!batchId) throw validationError('batchId', 'is required: the batch to issue into');
      const input = client.check(() => validateIssue({ name: item.name, email: item.email, data: { ...(options.data ?? {}), ...(typeof item.data === 'object' && item.data ? item.data : {}) } }));
      const required = variables.get(batchId);
      if (required) client.check(() => checkRequiredVariables(required, input.data));
      planned.push({ index, batchId, send: item.send ?? options.send ?? false, input });
    } catch (error) {
      outcomes[index] = { kind: 'invalid', error: asServiceError(error) };
    }
  });

  const existing = new Map<string, Map<string, Recipient[]>>();
  if (options.skipExisting !== false) {
    for (const batchId of new Set(planned.map((p) => p.batchId))) {
      if (unread.has(batchId)) continue;
      try {
        existing.set(batchId, await client.recipientsByEmail(batchId));
      } catch (error) {
        unread.set(batchId, asServiceError(error));
      }
    }
  }

  const seen = new Map<string, number>();
  const toSend: Planned[] = [];
  for (const p of planned) {
    const readError = unread.get(p.batchId);
    if (readError) {
      outcomes[p.index] = { kind: 'unreadBatch', error: readFailed(p.input.email, p.batchId, readError) };
      continue;
    }
    if (options.skipExisting === false) {
      toSend.push(p);
      continue;
    }
    const email = p.input.email.trim().toLowerCase();
    const found = existing.get(p.batchId)?.get(email)?.[0];
    if (found) {
      outcomes[p.index] = { kind: 'skipped', recipient: found, reason: 'inBatch' };
      continue;
    }
    const key = JSON.stringify([p.batchId, email]);
    const first = seen.get(key);
    if (first !== undefined) firstOf.set(p.index, first);
    else {
      seen.set(key, p.index);
      toSend.push(p);
    }
  }
  return { outcomes, toSend, firstOf };
}

/** The calls the items to send make: grouped per batch and send flag, in input order, at most 100 a call. */
function calls(toSend: Planned[], bulk: boolean): Planned[][] {
  const groups = new Map<string, Planned[]>();
  for (const p of toSend) {
    const key = JSON.stringify([p.batchId, p.send]);
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const out: Planned[][] = [];
  for (const group of groups.values()) for (let i = 0; i < group.length; i += bulk ? MAX_BULK : 1) out.push(group.slice(i, i + (bulk ? MAX_BULK : 1)));
  return out;
}

/** What `issueMany` would do, from the same reads, without writing anything. */
export async function previewIssue(client: CertificateServiceClient, items: IssueItem[], options: IssueOptions = {}): Promise<IssuePreview> {
  const { outcomes, toSend, firstOf } = await plan(client, items, options);
  return {
    items: outcomes.map((o, index) => {
      if (!o) return firstOf.has(index) ? { kind: 'skipped' as const, reason: 'earlierInCall' as const } : { kind: 'send' as const };
      if (o.kind === 'skipped') return { kind: 'skipped' as const, reason: o.reason, recipient: o.recipient };
      return { kind: o.kind as 'invalid' | 'unreadBatch', error: (o as { error: CertificateServiceError }).error };
    }),
    toIssue: toSend.length,
    calls: calls(toSend, options.bulk !== false).length,
  };
}

/** Issues every item it can, in as few calls as it can; one outcome per item, in input order. */
export async function issueMany(client: CertificateServiceClient, items: IssueItem[], options: IssueOptions = {}): Promise<IssueOutcome[]> {
  const { outcomes, toSend, firstOf } = await plan(client, items, options);
  let done = items.length - toSend.length - firstOf.size;
  options.onProgress?.(done, items.length);
  let refusedAll: CertificateServiceError | undefined;
  const refusedBatch = new Map<string, CertificateServiceError>();
  for (const part of calls(toSend, options.bulk !== false)) {
    const { batchId, send } = part[0];
    const refused = refusedAll ?? refusedBatch.get(batchId);
    if (options.signal?.aborted || refused) {
      for (const p of part) outcomes[p.index] = refused ? { kind: 'refusedEarlier', error: refusedEarlier(p.input.email, refused) } : { kind: 'notSent', error: notSent(p.input.email) };
    } else {
      try {
        if (part.length === 1) {
          outcomes[part[0].index] = { kind: 'issued', recipient: await client.issueCertificate(batchId, part[0].input, { send }) };
        } else {
          const results = await client.bulkIssue(batchId, part.map((p) => p.input), { send });
          part.forEach((p, j) => {
            const r = results[j];
            outcomes[p.index] = r.ok ? { kind: 'issued', recipient: r.recipient } : { kind: r.error.outcomeUnknown ? 'unknown' : 'failed', error: r.error };
          });
        }
      } catch (error) {
        const e = asServiceError(error);
        for (const p of part) outcomes[p.index] = { kind: e.outcomeUnknown ? 'unknown' : 'failed', error: e };
        if (e.isAuthError) refusedAll = e;
        else if (!e.outcomeUnknown && (e.code === 'BATCH_ARCHIVED' || (e.code === 'NOT_FOUND' && e.phase === 'response'))) refusedBatch.set(batchId, e);
      }
    }
    options.onProgress?.((done += part.length), items.length);
  }
  for (const [index, first] of firstOf) {
    const o = outcomes[first]!;
    outcomes[index] = o.kind === 'issued' || o.kind === 'skipped' ? { kind: 'skipped', recipient: o.recipient, reason: 'earlierInCall' } : o;
  }
  if (firstOf.size) options.onProgress?.(items.length, items.length);
  return outcomes as IssueOutcome[];
}

/** How many items ended in each kind. */
export function countOutcomes(outcomes: ReadonlyArray<IssueOutcome>): Record<IssueOutcomeKind, number> {
  const counts: Record<IssueOutcomeKind, number> = { issued: 0, skipped: 0, invalid: 0, failed: 0, unknown: 0, notSent: 0, refusedEarlier: 0, unreadBatch: 0 };
  for (const o of outcomes) counts[o.kind]++;
  return counts;
}

function asServiceError(error: unknown): CertificateServiceError {
  if (error instanceof CertificateServiceError) return error;
  // Not expected (the client only throws its own errors); never carries the original text.
  return new CertificateServiceError({ code: 'UNKNOWN', phase: 'request', message: 'An unexpected error stopped this item.' });
}

function notSent(email: string): CertificateServiceError {
  return new CertificateServiceError({ code: 'NOT_SENT', phase: 'validation', message: `${email}: not sent, because the call was cancelled before its turn.` });
}

function refusedEarlier(email: string, error: CertificateServiceError): CertificateServiceError {
  return new CertificateServiceError({ ...error.toJSON(), code: error.code, phase: 'validation', outcomeUnknown: false, message: `${email}: not sent, because an earlier call was refused for a reason that holds for this item too (${error.message})` });
}

function readFailed(email: string, batchId: string, error: CertificateServiceError): CertificateServiceError {
  return new CertificateServiceError({ ...error.toJSON(), code: error.code, outcomeUnknown: false, message: `${email}: not issued, because batch ${batchId} could not be read before issuing (${error.message})` });
}
