import type { Api } from '../client/api';
import { CertificateServiceError, validationError } from '../errors';
import type { IssueInput, Recipient } from '../types';
import { requireString, validateBulkSize, validateIssue } from '../validation';
import type { DesignVariable } from '../variables';
import { failCall, issueRequest } from './call';
import { assembleOutcomes } from './assemble';
import { notSent, refusedEarlier, type IssueOutcome } from './outcome';
import { noReads, planCalls, planItems, type BatchReads, type CallPlan, type IssueCall, type IssueItem, type ValidRecipient } from './plan';
import { readBatches } from './read';
import { RunHolds, type InFlightMarkers, type RunContext } from './in-flight';

// Issuing: one plan for every host (the n8n node, the Zapier app, the CLI, the MCP server, SDK
// users): plan → read → plan the calls → send → assemble. The steps that only decide are their
// own modules (plan.ts, read.ts, call.ts, assemble.ts); this one runs them and makes the calls.

export type { IssueItem } from './plan';
export type { IssueOutcome } from './outcome';
export { DEFAULT_IN_FLIGHT_WAIT_MS, type InFlightMarkers, type RunContext } from './in-flight';

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
   * (after the shared `data` is merged in) or missing ends `invalid`, naming `data.<name>`, and is
   * never sent. Default (`'design'`, its explicit spelling): each batch's design is read once per
   * run, the batch and then the designs' pages until its design (two reads for a short list); a
   * design that lists no variables requires none; a read that fails, or a design whose variables
   * cannot be read, keeps the batch's items unsent (`unreadBatch`). A Map, by batch id: variables
   * the caller already has (a cache, or a preview's `variables`) count as the check for those
   * batches (the others are read). `false`: no check here, which saves those reads per batch; the
   * service still checks.
   */
  variables?: 'design' | false | ReadonlyMap<string, ReadonlyArray<DesignVariable>>;
  /**
   * With the design check, each `data` key (the item's and the shared one) fills the design's
   * variable of the same name after trimming, in any case, and is sent as the design spells it
   * (`Course` fills `course`). A key the design does not list makes the item `invalid`, naming the
   * key and the closest variable; a key that matches two variables, or two keys that fill one,
   * too. true: a key the design does not list is sent as given (the design's list is known to be
   * incomplete, or the service takes extra data on purpose). A design that lists no variables
   * (or only names seen in the batch), and `variables: false`, refuse no key. Default: false.
   */
  allowUnknownVariables?: boolean;
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
  /**
   * With skip-existing, runs in this process against the same batch of the same service never
   * issue one email twice: a run waits for the emails another holds (planned or in flight) and
   * skips those issued there. `inFlight` extends that across processes (the SDK's
   * `fileInFlightMarkers()`, in the state folder). See in-flight.ts.
   */
  inFlight?: InFlightMarkers;
  /** How long to wait for another run's emails before they end `unknown` (default 30,000 ms, the default request timeout). */
  inFlightWaitMs?: number;
}

/** Steps 1 to 3, with the design variables the check used (given or read; `false`: no check). */
interface Planned {
  total: number;
  plan: CallPlan;
  variables: false | Map<string, readonly DesignVariable[]>;
}

/** Steps 1 to 3: what would become of each item, with the reads it needs and no write. */
async function planIssue(api: Api, items: readonly IssueItem[], options: IssueManyOptions, holds?: RunHolds): Promise<Planned> {
  const skipExisting = options.skipExisting !== false;
  let itemPlan = planItems(items, options.data);
  const given = options.variables instanceof Map ? byTrimmedId(options.variables) : undefined;
  const callOptions = { skipExisting, stopOnInvalid: options.stopOnInvalid, bulk: options.bulk, variables: given, allowUnknownVariables: options.allowUnknownVariables };
  const used = (read: BatchReads): Planned['variables'] => options.variables !== false && new Map([...(given ?? []), ...read.variables]);
  // An invalid item with stopOnInvalid: nothing will be sent, so nothing is read either.
  if (options.stopOnInvalid && itemPlan.invalid.size > 0) return { total: itemPlan.total, plan: planCalls(itemPlan, noReads(), { ...callOptions, skipExisting: false }), variables: used(noReads()) };
  // Before the reads: the emails other runs hold are waited for, so what they issue is read (or skipped).
  const byOthers = holds ? await holds.take(itemPlan.items) : new Map<number, IssueOutcome>();
  if (byOthers.size) {
    const rest = itemPlan.items.filter((item) => !byOthers.has(item.index));
    itemPlan = { ...itemPlan, items: rest, batchIds: itemPlan.batchIds.filter((id) => rest.some((item) => item.batchId === id)) };
  }
  const reads = await readBatches(api, itemPlan.batchIds, { skipExisting, designVariables: (batchId) => options.variables !== false && !given?.has(batchId), signal: options.signal });
  const plan = planCalls(itemPlan, reads, callOptions);
  for (const [index, outcome] of byOthers) plan.decided.set(index, outcome);
  if (options.signal?.aborted) cancelUnsent(plan);
  return { total: itemPlan.total, plan, variables: used(reads) };
}

/** The host's map keyed as the plan keys batches: by the trimmed id (the first of two ids that trim alike wins). */
function byTrimmedId<T>(map: ReadonlyMap<string, T>): Map<string, T> {
  const out = new Map<string, T>();
  for (const [id, value] of map) if (typeof id === 'string' && !out.has(id.trim())) out.set(id.trim(), value);
  return out;
}

/** A run stopped while reading: what was to be sent is not (its batch may not have been read). */
function cancelUnsent(plan: CallPlan): void {
  for (const item of plan.calls.flatMap((c) => c.items)) plan.decided.set(item.index, notSent(item.recipient.email, 'cancelled'));
  plan.calls = []; // a repeat of one of them takes its outcome, as always
}

/**
 * Issues any number of certificates, every item ending with an outcome (see IssueOutcome):
 * 1. plan: each item checked and normalised once (batch id trimmed, email keyed, variables merged);
 * 2. read: each batch once, for its design's variables and for skip-existing (both on by default);
 * 3. plan the calls: skipped, invalid and unsent items decided; the rest grouped per batch and
 *    send flag, in input order, into bulk calls of at most 100;
 * 4. send: each call once (never repeated after an unknown outcome); a batch- or key-level
 *    refusal keeps the later calls it would refuse too unsent;
 * 5. assemble: one outcome per item, in input order.
 */
export async function issueMany(api: Api, items: readonly IssueItem[], options: IssueManyOptions = {}, context?: RunContext): Promise<IssueOutcome[]> {
  // The emails of this run are held from before its reads until their outcomes are known (in-flight.ts).
  const holds = context && options.skipExisting !== false ? new RunHolds(context, { markers: options.inFlight, signal: options.signal, waitMs: options.inFlightWaitMs }) : undefined;
  try {
    const { total, plan } = await planIssue(api, items, options, holds);
    let done = 0;
    // Outcomes known, before sending and after each call: their emails given back, then the host told.
    const settle = async (settled: Array<[index: number, outcome: IssueOutcome]>) => {
      await holds?.settle(settled);
      options.onOutcomes?.(settled);
      options.onProgress?.((done += settled.length), total);
    };
    await settle([...plan.decided]);
    const sent = await sendCalls(api, plan.calls, {
      stopOnError: options.stopOnError,
      signal: options.signal,
      onCall: options.onCall,
      beforeCall: holds && ((indexes) => holds.sending(indexes)),
      onSettled: settle,
    });
    const outcomes = assembleOutcomes(total, plan, sent);
    if (plan.repeats.length) {
      options.onOutcomes?.(plan.repeats.map(([index]) => [index, outcomes[index]]));
      options.onProgress?.(total, total);
    }
    return outcomes;
  } finally {
    await holds?.releaseAll();
  }
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
  /**
   * The design variables the check used, by batch id (those given and those read; a batch whose
   * read failed is left out), or `false` with the check off: pass it as issueMany's `variables`
   * to issue without reading the batches' designs again. The certificates are read again at
   * issue time, after the run holds its emails: a list read before that can miss what another
   * run issued since, and nothing would show it (docs/design/sdk.md, "In-flight holds").
   */
  variables: false | ReadonlyMap<string, readonly DesignVariable[]>;
}

export async function previewIssue(api: Api, items: readonly IssueItem[], options: IssueManyOptions = {}): Promise<IssuePreview> {
  const { total, plan, variables } = await planIssue(api, items, options);
  const outcomes: PreviewOutcome[] = new Array(total);
  for (const [index, o] of plan.decided) outcomes[index] = o as PreviewOutcome;
  plan.calls.forEach((call, n) => call.items.forEach((item) => (outcomes[item.index] = { kind: 'wouldIssue', ok: true, call: n, batchId: item.batchId, email: item.recipient.email })));
  for (const [index, first] of plan.repeats) outcomes[index] = { kind: 'repeat', ok: true, sameAs: first };
  return { outcomes, wouldIssue: plan.calls.reduce((n, c) => n + c.items.length, 0), calls: plan.calls.length, variables };
}

/** One certificate, one request (one quota unit); no plan, no skip. Throws its error. */
export async function issueCertificate(api: Api, batchId: string, input: IssueInput, options: { send?: boolean } = {}): Promise<Recipient> {
  const { spec, decode } = issueRequest({ batchId: requireString(batchId, 'batchId'), send: options.send, recipients: [validateIssue(input)] }, 'one');
  const [outcome] = await api.call(spec, decode);
  if (outcome.kind !== 'issued') throw outcome.error; // the single-issue answer is a certificate or an error
  return outcome.recipient;
}

/** One bulk call of at most 100: each recipient's outcome (issued, failed, unknown), in input order. Throws the call's own error. */
export async function issueBulk(api: Api, batchId: string, inputs: IssueInput[], options: { send?: boolean } = {}): Promise<IssueOutcome[]> {
  const id = requireString(batchId, 'batchId');
  if (!Array.isArray(inputs)) throw validationError('recipients', 'must be a list of recipients');
  validateBulkSize(inputs.length);
  const recipients: ValidRecipient[] = inputs.map((r, i) => validateIssue(r, `recipients[${i}].`));
  const { spec, decode } = issueRequest({ batchId: id, send: options.send, recipients }, 'bulk');
  return await api.call(spec, decode);
}

// --- Step 4: send ----------------------------------------------------------------

interface SendOptions {
  /** Stop after the first call with an item that did not get its certificate. */
  stopOnError?: boolean;
  /** Aborted: the call in flight finishes, no further call is made. */
  signal?: AbortSignal;
  /** Before each call: the input indexes it carries. */
  onCall?: (indexes: number[]) => void;
  /** Before each call is sent, awaited (the run's in-flight markers say "sent"). */
  beforeCall?: (indexes: number[]) => Promise<void>;
  /** After each call (or unsent call): the outcomes it settled (awaited). */
  onSettled?: (settled: Array<[index: number, outcome: IssueOutcome]>) => unknown;
}

/**
 * How far a failed call's error reaches: a missing or archived batch refuses every later call
 * into it, and a refused key every later call at all, so those calls are not made (they would
 * only collect the same error, at a request each). An error about one item, or one whose outcome
 * is unknown, reaches no further; nor does QUOTA_EXCEEDED, since a later, smaller call may still
 * fit in what is left.
 */
export function errorReach(error: CertificateServiceError): 'batch' | 'all' | undefined {
  if (error.outcomeUnknown || typeof error.detail.index === 'number') return undefined;
  if (error.isAuthError) return 'all';
  if (error.code === 'BATCH_ARCHIVED' || (error.code === 'NOT_FOUND' && error.phase === 'response')) return 'batch';
  return undefined;
}

/**
 * Step 4: the calls, in order, each made once. Every item of every call ends with an outcome,
 * sent or not (stopped, cancelled, or refused by an earlier call's error; see errorReach).
 */
export async function sendCalls(api: Api, calls: IssueCall[], options: SendOptions = {}): Promise<Map<number, IssueOutcome>> {
  const out = new Map<number, IssueOutcome>();
  let stoppedAt: number | undefined;
  let refusedAll: { error: CertificateServiceError; because: number } | undefined;
  const refusedBatch = new Map<string, { error: CertificateServiceError; because: number }>();
  for (const call of calls) {
    const indexes = call.items.map((item) => item.index);
    const refusal = refusedAll ?? refusedBatch.get(call.batchId);
    let results: IssueOutcome[];
    if (options.signal?.aborted) results = call.items.map((item) => notSent(item.recipient.email, 'cancelled'));
    else if (stoppedAt !== undefined) results = call.items.map((item) => notSent(item.recipient.email, 'stopOnError', stoppedAt));
    else if (refusal) results = call.items.map((item) => refusedEarlier(item.recipient.email, refusal));
    else {
      options.onCall?.(indexes);
      await options.beforeCall?.(indexes);
      const recipients = call.items.map((item) => item.recipient);
      const { spec, decode } = issueRequest({ batchId: call.batchId, send: call.send, recipients });
      try {
        results = await api.call(spec, decode);
      } catch (error) {
        if (!(error instanceof CertificateServiceError)) throw error;
        // `because` of a call's failure is a position in the call: here it becomes an input index.
        results = failCall(error, recipients.map((r) => r.email)).map((o) => (o.kind === 'failed' && o.because !== undefined ? { ...o, because: indexes[o.because] } : o));
        const reach = errorReach(error);
        if (reach === 'all') refusedAll = { error, because: indexes[0] };
        else if (reach === 'batch') refusedBatch.set(call.batchId, { error, because: indexes[0] });
      }
      if (options.stopOnError) stoppedAt = indexes.find((_, j) => !results[j].ok);
    }
    indexes.forEach((index, j) => out.set(index, results[j]));
    await options.onSettled?.(indexes.map((index, j) => [index, results[j]]));
  }
  return out;
}
