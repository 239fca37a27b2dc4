import { CertificateServiceError, validationError } from '../errors';
import type { IssueInput, Recipient } from '../types';
import { MAX_BULK, normaliseData, requireString, validateIssue } from '../validation';
import { checkRequiredVariables, type DesignVariable } from '../variables';
import { matchVariableNames, variableNames } from '../variable-names';
import { emailKey } from '../client/recipients';
import { notSent, type IssueOutcome } from './outcome';

// The plan: every fact about an item computed once, before anything is read or sent (the batch
// id trimmed, the email checked and keyed, the variables merged and checked), then, once the
// reads are in, what becomes of each item and which calls carry the rest. Pure functions.

/** An item for `issueMany`: a recipient and where it goes. */
export interface IssueItem extends IssueInput {
  batchId: string;
  send?: boolean;
}

/** A recipient after validation: exactly what goes on the wire. */
export interface ValidRecipient {
  name: string;
  email: string;
  /** Certificate variables; a map without a prototype, so any name (even `__proto__`) is data. */
  data: Record<string, string>;
}

/** A valid item, normalised once: nothing downstream trims, lower-cases or merges again. */
export interface PlannedItem {
  index: number;
  /** Trimmed: `"b1 "` from a spreadsheet cell and `"b1"` are one batch. */
  batchId: string;
  send: boolean | undefined;
  recipient: ValidRecipient;
  /** The email as the service compares it: trimmed and lower-cased. */
  emailKey: string;
  /** The item's own `data`, before the shared one is merged in (matched to the design's names on its own). */
  ownData: Record<string, string>;
}

export interface ItemPlan {
  total: number;
  /** The valid items, in input order. */
  items: PlannedItem[];
  /** The invalid ones, refused before any request. */
  invalid: Map<number, Extract<IssueOutcome, { kind: 'invalid' }>>;
  /** The batches of the valid items, each once, in the order first seen. */
  batchIds: string[];
  /** The shared `data`, checked. */
  sharedData: Record<string, string>;
}

/** `shared` under `own`, key by key, in a map with no prototype (a variable may be called `__proto__`). */
function mergeData(shared: Record<string, string>, own: Record<string, string>): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, shared, own);
}

/**
 * Step 1: each item checked and normalised once. Shared `data` is checked first and a bad value
 * throws (it concerns every item); a bad item ends `invalid` on its own, naming its field.
 */
export function planItems(items: readonly IssueItem[], sharedData?: Record<string, unknown> | string): ItemPlan {
  if (!Array.isArray(items)) throw validationError('items', 'must be a list of recipients');
  const shared = normaliseData(sharedData, 'data');
  const plan: ItemPlan = { total: items.length, items: [], invalid: new Map(), batchIds: [], sharedData: shared };
  items.forEach((item, index) => {
    try {
      if (!item || typeof item !== 'object') throw validationError('recipient', 'must be an object with batchId, name and email');
      const batchId = requireString(item.batchId, 'batchId');
      const valid = validateIssue({ ...item, data: undefined });
      const ownData = normaliseData(item.data, 'data');
      const recipient = { ...valid, data: mergeData(shared, ownData) };
      plan.items.push({ index, batchId, send: item.send, recipient, emailKey: emailKey(recipient.email), ownData });
      if (!plan.batchIds.includes(batchId)) plan.batchIds.push(batchId);
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      plan.invalid.set(index, { kind: 'invalid', ok: false, error });
    }
  });
  return plan;
}

/** What was read of each batch before sending (see read.ts). */
export interface BatchReads {
  /** The design's variables, when they were read. */
  variables: Map<string, readonly DesignVariable[]>;
  /** The batch's certificates by `emailKey`, when skip-existing read them. */
  existing: Map<string, Map<string, Recipient[]>>;
  /** A batch whose read failed, with the error and what the read was for. */
  failed: Map<string, ReadFailure>;
}

export interface ReadFailure {
  error: CertificateServiceError;
  purpose: 'skip-existing' | 'variables';
}

export const noReads = (): BatchReads => ({ variables: new Map(), existing: new Map(), failed: new Map() });

/** One request's worth of items: one batch, one send flag, at most 100 (1 with `bulk: false`). */
export interface IssueCall {
  batchId: string;
  send: boolean | undefined;
  items: PlannedItem[];
}

export interface CallPlan {
  /** Items whose outcome is known without sending (invalid, skipped, not sent), by input index. */
  decided: Map<number, IssueOutcome>;
  /** The calls to make, in order. */
  calls: IssueCall[];
  /** Repeats of an email earlier in the call: [index, index of the first]; they take its outcome. */
  repeats: Array<[index: number, first: number]>;
}

export interface CallPlanOptions {
  skipExisting: boolean;
  stopOnInvalid?: boolean;
  bulk?: boolean;
  /** Variables passed in by the host, by batch id (those read by the core are in `reads`). */
  variables?: ReadonlyMap<string, ReadonlyArray<DesignVariable>>;
  /** Send data keys the design does not list as given, instead of refusing the item. */
  allowUnknownVariables?: boolean;
}

const READ_PURPOSE = { 'skip-existing': 'to skip the certificates it already has', variables: "to check its design's variables" };

function unreadBatch(item: PlannedItem, failure: ReadFailure): IssueOutcome {
  const error = new CertificateServiceError({
    ...failure.error.toJSON(),
    code: failure.error.code,
    outcomeUnknown: false,
    message: `${item.recipient.email}: not issued, because batch ${item.batchId} could not be read ${READ_PURPOSE[failure.purpose]} (${failure.error.message})`,
    cause: failure.error,
  });
  return { kind: 'unreadBatch', ok: false, error, batchId: item.batchId };
}

/**
 * A batch's design check, worked out once per batch: each item as it goes on the wire, its data
 * and the shared data each keyed as the design spells its variables (variable-names.ts), merged
 * (its own over the shared), then the required ones checked. Throws the item's VALIDATION_ERROR.
 */
function designCheck(variables: ReadonlyArray<DesignVariable>, sharedData: Record<string, string>, allowUnknown: boolean): (item: PlannedItem) => PlannedItem {
  const known = variableNames(variables);
  let shared: Record<string, string> | CertificateServiceError = sharedData;
  try {
    if (known) shared = matchVariableNames(sharedData, known, { allowUnknown });
  } catch (error) {
    if (!(error instanceof CertificateServiceError)) throw error;
    shared = error; // a bad shared key is every item's error
  }
  const hasShared = Object.keys(sharedData).length > 0;
  return (item) => {
    if (shared instanceof CertificateServiceError) throw shared;
    const own = known ? matchVariableNames(item.ownData, known, { allowUnknown }) : undefined;
    const data = own ? (hasShared ? mergeData(shared, own) : own) : item.recipient.data;
    checkRequiredVariables(variables, data);
    return data === item.recipient.data ? item : { ...item, recipient: { ...item.recipient, data } };
  };
}

/**
 * Step 3, once the reads are in: what becomes of each valid item without sending (a failed read,
 * a data key the design does not list, a required variable left empty, already in the batch, a
 * repeat), and the calls for the rest, grouped per batch and send flag in input order, at most
 * 100 each. With `stopOnInvalid`, one invalid item keeps every other from being sent.
 */
export function planCalls(plan: ItemPlan, reads: BatchReads, options: CallPlanOptions): CallPlan {
  const decided = new Map<number, IssueOutcome>(plan.invalid);
  const toSend: PlannedItem[] = [];
  const repeats: Array<[number, number]> = [];
  const firstOfEmail = new Map<string, number>();
  const checks = new Map<string, ReturnType<typeof designCheck>>();
  for (const planned of plan.items) {
    const failedRead = reads.failed.get(planned.batchId);
    if (failedRead) {
      decided.set(planned.index, unreadBatch(planned, failedRead));
      continue;
    }
    const variables = options.variables?.get(planned.batchId) ?? reads.variables.get(planned.batchId);
    let item = planned;
    try {
      if (variables) {
        let check = checks.get(planned.batchId);
        if (!check) checks.set(planned.batchId, (check = designCheck(variables, plan.sharedData, options.allowUnknownVariables === true)));
        item = check(planned);
      }
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      decided.set(item.index, { kind: 'invalid', ok: false, error });
      continue;
    }
    if (options.skipExisting) {
      const found = reads.existing.get(item.batchId)?.get(item.emailKey)?.[0];
      if (found) {
        decided.set(item.index, { kind: 'skipped', ok: true, recipient: found, reason: 'inBatch' });
        continue;
      }
      const key = JSON.stringify([item.batchId, item.emailKey]);
      const first = firstOfEmail.get(key);
      if (first !== undefined) {
        repeats.push([item.index, first]);
        continue;
      }
      firstOfEmail.set(key, item.index);
    }
    toSend.push(item);
  }

  const invalid = [...decided].filter(([, o]) => o.kind === 'invalid').map(([index]) => index);
  if (options.stopOnInvalid && invalid.length > 0) {
    const firstInvalid = Math.min(...invalid);
    for (const item of plan.items) if (!decided.has(item.index)) decided.set(item.index, notSent(item.recipient.email, 'stopOnInvalid', firstInvalid));
    return { decided, calls: [], repeats: [] };
  }

  const groups = new Map<string, PlannedItem[]>();
  for (const item of toSend) {
    const key = JSON.stringify([item.batchId, item.send ?? null]);
    // Appended in place: copying the list per item made grouping quadratic (~6 s for 30,000 items).
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const calls: IssueCall[] = [];
  for (const group of groups.values()) {
    for (const part of chunk(group, options.bulk === false ? 1 : undefined)) calls.push({ batchId: part[0].batchId, send: part[0].send, items: part });
  }
  return { decided, calls, repeats };
}

export function chunk<T>(items: T[], size = MAX_BULK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
