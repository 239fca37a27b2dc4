import { chunk, failChunk, type ItemOutcome } from '../bulk';
import { CertificateServiceError, validationError } from '../errors';
import type { IssueInput, Recipient } from '../types';
import { normaliseData, requireString, validateIssue } from '../validation';
import { checkRequiredVariables, type DesignVariable } from '../variables';
import type { Api } from './api';
import { issueBulk, issueOne, type ValidRecipient } from './issuing';
import { emailKey, recipientsByEmail } from './recipients';

/** An item for {@link issueMany}: a recipient and where it goes. */
export interface IssueItem extends IssueInput {
  batchId: string;
  send?: boolean;
}

/** Options of {@link issueMany}. */
export interface IssueManyOptions {
  /** Throw on the first invalid item, before any request, instead of failing that item alone. */
  stopOnInvalid?: boolean;
  /**
   * Skip items whose email is already in their batch (or earlier in the same call). A batch
   * that cannot be read completely is not issued into: its items end with the read's error.
   */
  skipExisting?: boolean;
  /**
   * Certificate variables for every item, validated once; an item's own `data` takes
   * precedence key by key. A bad value here throws before any request.
   */
  data?: Record<string, unknown> | string;
  /** false: one request per item (the single-issue endpoint) instead of bulk calls of up to 100. */
  bulk?: boolean;
  /**
   * Stop sending after the first call with a failed item: the items not sent yet end with
   * a NOT_SENT error (phase `validation`: they never left). For hosts whose run stops at
   * the first error (n8n without "Continue On Fail").
   */
  stopOnError?: boolean;
  /**
   * Each batch's certificate variables (`getBatchVariables`), by batch ID: an item that
   * leaves a required one empty (after the shared `data` is merged in) fails alone with a
   * VALIDATION_ERROR on `data.<name>` and is not sent (with `stopOnInvalid`, it throws).
   */
  variables?: ReadonlyMap<string, ReadonlyArray<DesignVariable>>;
  /** Called once the calls are planned and after each call: items with an outcome so far, of `total`. */
  onProgress?: (done: number, total: number) => void;
}

function notSent(email: string, failedItem: number): CertificateServiceError {
  return new CertificateServiceError({
    code: 'NOT_SENT',
    phase: 'validation',
    message: `${email}: not sent, because item ${failedItem} failed and the run stops at the first failure.`,
  });
}

/**
 * How far a failed call's error reaches: a missing or archived batch refuses every later
 * chunk into it, and a refused key every later chunk at all, so those chunks are not sent
 * (sending them would only collect the same error, at a request each). An error about one
 * item, or one whose outcome is unknown, reaches no further; nor does QUOTA_EXCEEDED, since a
 * later, smaller chunk may still fit in what is left.
 */
export function errorReach(error: CertificateServiceError): 'batch' | 'all' | undefined {
  if (error.outcomeUnknown || typeof error.detail.index === 'number') return undefined;
  if (error.isAuthError) return 'all';
  if (error.code === 'BATCH_ARCHIVED' || (error.code === 'NOT_FOUND' && error.phase === 'response')) return 'batch';
  return undefined;
}

/** An item held back because an earlier call into its batch (or any batch) was refused for a reason that holds for it too. */
function refusedEarlier(email: string, error: CertificateServiceError): CertificateServiceError {
  return new CertificateServiceError({
    ...error.toJSON(),
    code: error.code,
    phase: 'validation',
    outcomeUnknown: false,
    message: `${email}: not sent, because an earlier call was refused for a reason that holds for this item too (${error.message})`,
    cause: error,
  });
}

/**
 * Each batch's email index, or the error that kept it from being read completely. Skipping
 * decides on what was read, so a batch read in part (an answer the core could not read, a
 * network failure) is never issued into: its items would be issued a second time.
 */
async function existingByBatch(api: Api, batchIds: Iterable<string>): Promise<Map<string, Map<string, Recipient[]> | CertificateServiceError>> {
  const out = new Map<string, Map<string, Recipient[]> | CertificateServiceError>();
  for (const batchId of batchIds) {
    try {
      out.set(batchId, await recipientsByEmail(api, batchId));
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      out.set(batchId, error);
    }
  }
  return out;
}

/** An item held back because its batch could not be read; `detail.unreadBatch` names the batch, `cause` is the read's error. */
function readFailed(email: string, batchId: string, error: CertificateServiceError): CertificateServiceError {
  return new CertificateServiceError({
    ...error.toJSON(),
    code: error.code,
    outcomeUnknown: false,
    detail: { ...error.detail, unreadBatch: batchId },
    message: `${email}: not issued, because the batch could not be read to skip certificates already issued (${error.message})`,
    cause: error,
  });
}

/**
 * Issues any number of certificates with as few calls as possible: items are grouped
 * per batch (and send flag), in input order, into bulk calls of at most 100. Every item
 * ends with its recipient or its own error; invalid items are never sent. Each item is
 * validated and normalised once, here, and goes to the wire as it is. With
 * `stopOnInvalid`, the first invalid item throws before any request is made.
 *
 * With `skipExisting`, each batch's recipients are read once (100 a page) before anything
 * is issued, and an item whose email (case-insensitive) is already there, or earlier in
 * this same call, ends as `{ok: true, skipped: true, recipient}` without being sent. That
 * makes running the same list again, after a failure half-way, issue only what is missing.
 */
export async function issueMany(api: Api, items: IssueItem[], options: IssueManyOptions = {}): Promise<ItemOutcome[]> {
  if (!Array.isArray(items)) throw validationError('items', 'must be a list of recipients');
  const shared = options.data === undefined ? {} : normaliseData(options.data, 'data');
  const outcomes: ItemOutcome[] = new Array(items.length);
  const recipients: ValidRecipient[] = new Array(items.length);
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    try {
      requireString(item?.batchId, 'batchId');
      const valid = validateIssue({ ...item, data: undefined });
      recipients[index] = { ...valid, data: { ...shared, ...normaliseData(item.data, 'data') } };
      const variables = options.variables?.get(item.batchId.trim());
      if (variables) checkRequiredVariables(variables, recipients[index].data);
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      if (options.stopOnInvalid) {
        const message = items.length > 1 ? `Item ${index}: ${error.message}` : error.message;
        throw new CertificateServiceError({ ...error.toJSON(), code: error.code, message, detail: { ...error.detail, index } });
      }
      outcomes[index] = { ok: false, error };
      return;
    }
    const key = JSON.stringify([item.batchId, item.send ?? null]);
    // Appended in place: copying the list per item made grouping quadratic (~6 s for 30,000 items).
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });

  // Repeats of an email within this call take the outcome of its first item, once known.
  const repeats: Array<[index: number, first: number]> = [];
  if (options.skipExisting) {
    const existing = await existingByBatch(api, new Set([...groups.values()].map((g) => items[g[0]].batchId)));
    const firstIndex = new Map<string, number>();
    for (const [key, indexes] of groups) {
      const index = existing.get(items[indexes[0]].batchId)!;
      if (index instanceof CertificateServiceError) {
        for (const i of indexes) outcomes[i] = { ok: false, error: readFailed(recipients[i].email, items[i].batchId, index) };
        groups.delete(key);
        continue;
      }
      const kept = indexes.filter((i) => {
        const email = emailKey(recipients[i].email);
        const batchEmail = JSON.stringify([items[i].batchId, email]);
        const found = index.get(email)?.[0];
        if (found) outcomes[i] = { ok: true, skipped: true, recipient: found };
        else if (firstIndex.has(batchEmail)) repeats.push([i, firstIndex.get(batchEmail)!]);
        else firstIndex.set(batchEmail, i);
        return !found && firstIndex.get(batchEmail) === i;
      });
      if (kept.length) groups.set(key, kept);
      else groups.delete(key);
    }
  }

  let stoppedAt: number | undefined;
  let refusedAll: CertificateServiceError | undefined;
  let done = items.length - repeats.length - [...groups.values()].reduce((n, g) => n + g.length, 0);
  options.onProgress?.(done, items.length);
  for (const indexes of groups.values()) {
    const { batchId, send } = items[indexes[0]];
    let refusedBatch: CertificateServiceError | undefined;
    for (const part of chunk(indexes, options.bulk === false ? 1 : undefined)) {
      const refused = refusedAll ?? refusedBatch;
      if (stoppedAt !== undefined || refused) {
        for (const i of part) outcomes[i] = { ok: false, error: refused ? refusedEarlier(recipients[i].email, refused) : notSent(recipients[i].email, stoppedAt!) };
        options.onProgress?.((done += part.length), items.length);
        continue;
      }
      const valid = part.map((i) => recipients[i]);
      let results: ItemOutcome[];
      try {
        // A lone item uses the documented single-issue endpoint, whose response shape is known.
        results = part.length === 1 ? [{ ok: true, recipient: await issueOne(api, batchId, valid[0], send) }] : await issueBulk(api, batchId, valid, send);
      } catch (error) {
        if (!(error instanceof CertificateServiceError)) throw error;
        results = failChunk(error, valid.map((r) => r.email));
        const reach = errorReach(error);
        if (reach === 'all') refusedAll = error;
        else if (reach === 'batch') refusedBatch = error;
      }
      part.forEach((inputIndex, j) => (outcomes[inputIndex] = results[j]));
      if (options.stopOnError) stoppedAt = part.find((i) => !outcomes[i].ok);
      options.onProgress?.((done += part.length), items.length);
    }
  }
  for (const [i, first] of repeats) {
    const o = outcomes[first];
    outcomes[i] = o.ok ? { ok: true, skipped: true, recipient: o.recipient } : o;
  }
  if (repeats.length) options.onProgress?.(items.length, items.length);
  return outcomes;
}
