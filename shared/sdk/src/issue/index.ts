import type { Api } from '../client/api';
import { CertificateServiceError, validationError } from '../errors';
import type { IssueInput, Recipient } from '../types';
import { requireString, validateBulkSize, validateIssue } from '../validation';
import type { DesignVariable } from '../variables';
import { assembleOutcomes } from './assemble';
import { postBulk, postOne, type ValidRecipient } from './calls';
import type { IssueOutcome } from './outcome';
import { noReads, planCalls, planItems, type CallPlan, type IssueItem } from './plan';
import { readBatches } from './read';
import { sendCalls } from './send';

// Issuing: one plan for every host (the n8n node, the Zapier app, the CLI, the MCP server, SDK
// users): plan → read → plan the calls → send → assemble. Each step is its own module.

export type { IssueItem } from './plan';
export type { IssueOutcome } from './outcome';

/** Options of {@link issueMany}. */
export interface IssueManyOptions {
  /**
   * Skip items whose email (trimmed, any case) is already in their batch, or earlier in this
   * same call: they end `skipped` with the existing certificate, so running the same list again
   * issues only what is missing. Each batch is read once, 100 a page, before anything is sent; a
   * batch that cannot be read completely is not issued into (`unreadBatch`). Default: true.
   */
  skipExisting?: boolean;
  /**
   * Certificate variables for every item; an item's own `data` takes precedence, key by key.
   * A bad value here throws before any request.
   */
  data?: Record<string, unknown> | string;
  /** false: one request per item (the single-issue endpoint) instead of bulk calls of up to 100. */
  bulk?: boolean;
  /** Send nothing while any item is invalid: the valid ones end `notSent` (`stopOnInvalid`). */
  stopOnInvalid?: boolean;
  /** Stop after the first call with an item that did not get its certificate; the rest end `notSent`. */
  stopOnError?: boolean;
  /**
   * The design's variables, checked before any write: an item that leaves a required one empty
   * (after the shared `data` is merged in) ends `invalid`, naming `data.<name>`. `'design'`: the
   * core reads each batch's design once (two or three reads a batch); or pass them in, by batch id.
   */
  variables?: 'design' | ReadonlyMap<string, ReadonlyArray<DesignVariable>>;
  /** Once the calls are planned and after each call: items with an outcome so far, of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** Before each call: the input indexes it carries (they are "in flight" until it settles). */
  onCall?: (indexes: number[]) => void;
  /** As outcomes become known: decided before sending, then after each call. */
  onOutcomes?: (settled: Array<[index: number, outcome: IssueOutcome]>) => void;
  /**
   * Stops the run: the call in flight finishes (its outcomes are kept), and nothing more is read
   * or sent; the items not sent end `notSent` (`cancelled`).
   */
  signal?: AbortSignal;
}

/** Steps 1 to 3: what would become of each item, with the reads it needs and no write. */
async function planIssue(api: Api, items: readonly IssueItem[], options: IssueManyOptions): Promise<{ total: number; plan: CallPlan }> {
  const skipExisting = options.skipExisting !== false;
  const itemPlan = planItems(items, options.data);
  const callOptions = { skipExisting, stopOnInvalid: options.stopOnInvalid, bulk: options.bulk, variables: options.variables instanceof Map ? byTrimmedId(options.variables) : undefined };
  // An invalid item with stopOnInvalid: nothing will be sent, so nothing is read either.
  if (options.stopOnInvalid && itemPlan.invalid.size > 0) return { total: itemPlan.total, plan: planCalls(itemPlan, noReads(), { ...callOptions, skipExisting: false }) };
  const reads = await readBatches(api, itemPlan.batchIds, { skipExisting, designVariables: options.variables === 'design', signal: options.signal });
  const plan = planCalls(itemPlan, reads, callOptions);
  if (options.signal?.aborted) cancelUnsent(plan);
  return { total: itemPlan.total, plan };
}

/** The host's map keyed as the plan keys batches: by the trimmed id (the first of two ids that trim alike wins). */
function byTrimmedId<T>(map: ReadonlyMap<string, T>): Map<string, T> {
  const out = new Map<string, T>();
  for (const [id, value] of map) if (typeof id === 'string' && !out.has(id.trim())) out.set(id.trim(), value);
  return out;
}

/** A run stopped while reading: what was to be sent is not (its batch may not have been read). */
function cancelUnsent(plan: CallPlan): void {
  for (const item of plan.calls.flatMap((c) => c.items)) {
    plan.decided.set(item.index, {
      kind: 'notSent',
      ok: false,
      reason: 'cancelled',
      error: new CertificateServiceError({ code: 'NOT_SENT', phase: 'validation', message: `${item.recipient.email}: not sent, because the run was stopped before this call.` }),
    });
  }
  plan.calls = []; // a repeat of one of them takes its outcome, as always
}

/**
 * Issues any number of certificates, every item ending with an outcome (see IssueOutcome):
 * 1. plan: each item checked and normalised once (batch id trimmed, email keyed, variables merged);
 * 2. read: each batch once, for skip-existing (on by default) and, when asked, its design's variables;
 * 3. plan the calls: skipped, invalid and held-back items decided; the rest grouped per batch and
 *    send flag, in input order, into bulk calls of at most 100;
 * 4. send: each call once (never repeated after an unknown outcome); a batch- or key-level
 *    refusal holds back the later calls it would refuse too;
 * 5. assemble: one outcome per item, in input order.
 */
export async function issueMany(api: Api, items: readonly IssueItem[], options: IssueManyOptions = {}): Promise<IssueOutcome[]> {
  const { total, plan } = await planIssue(api, items, options);
  let done = plan.decided.size;
  options.onOutcomes?.([...plan.decided]);
  options.onProgress?.(done, total);
  const sent = await sendCalls(api, plan.calls, {
    stopOnError: options.stopOnError,
    signal: options.signal,
    onCall: options.onCall,
    onSettled: (settled) => {
      options.onOutcomes?.(settled);
      options.onProgress?.((done += settled.length), total);
    },
  });
  const outcomes = assembleOutcomes(total, plan, sent);
  if (plan.repeats.length) {
    options.onOutcomes?.(plan.repeats.map(([index]) => [index, outcomes[index]]));
    options.onProgress?.(total, total);
  }
  return outcomes;
}

/** What `issueMany` would do with these items, after the same reads, without writing anything. */
export type PreviewOutcome =
  | Extract<IssueOutcome, { kind: 'skipped' | 'invalid' | 'notSent' | 'unreadBatch' }>
  /** Would be sent in call number `call` (0-based) of `calls`. */
  | { kind: 'wouldIssue'; ok: true; call: number; batchId: string; email: string }
  /** The same email earlier in this call: issued once, with the outcome of item `sameAs`. */
  | { kind: 'repeat'; ok: true; sameAs: number };

export interface IssuePreview {
  outcomes: PreviewOutcome[];
  /** Items that would be issued (one quota unit each). */
  wouldIssue: number;
  /** Issue requests it would make. */
  calls: number;
}

export async function previewIssue(api: Api, items: readonly IssueItem[], options: IssueManyOptions = {}): Promise<IssuePreview> {
  const { total, plan } = await planIssue(api, items, options);
  const outcomes: PreviewOutcome[] = new Array(total);
  for (const [index, o] of plan.decided) outcomes[index] = o as PreviewOutcome;
  plan.calls.forEach((call, n) => call.items.forEach((item) => (outcomes[item.index] = { kind: 'wouldIssue', ok: true, call: n, batchId: item.batchId, email: item.recipient.email })));
  for (const [index, first] of plan.repeats) outcomes[index] = { kind: 'repeat', ok: true, sameAs: first };
  return { outcomes, wouldIssue: plan.calls.reduce((n, c) => n + c.items.length, 0), calls: plan.calls.length };
}

/** One certificate, one request (one quota unit); no plan, no skip. Throws its error. */
export async function issueCertificate(api: Api, batchId: string, input: IssueInput, options: { send?: boolean } = {}): Promise<Recipient> {
  return await postOne(api, requireString(batchId, 'batchId'), validateIssue(input), options.send);
}

/** One bulk call of at most 100: each recipient's outcome (issued, failed, unknown), in input order. */
export async function issueBulk(api: Api, batchId: string, inputs: IssueInput[], options: { send?: boolean } = {}): Promise<IssueOutcome[]> {
  const id = requireString(batchId, 'batchId');
  if (!Array.isArray(inputs)) throw validationError('recipients', 'must be a list of recipients');
  validateBulkSize(inputs.length);
  const recipients: ValidRecipient[] = inputs.map((r, i) => validateIssue(r, `recipients[${i}].`));
  return await postBulk(api, id, recipients, options.send);
}
