import type { Api } from '../client/api';
import { CertificateServiceError } from '../errors';
import { failCall, postBulk, postOne } from './calls';
import type { IssueOutcome } from './outcome';
import type { IssueCall } from './plan';

export interface SendOptions {
  /** Stop after the first call with an item that did not get its certificate. */
  stopOnError?: boolean;
  /** Aborted: the call in flight finishes, no further call is made. */
  signal?: AbortSignal;
  /** Before each call: the input indexes it carries. */
  onCall?: (indexes: number[]) => void;
  /** After each call (or held-back call): the outcomes it settled. */
  onSettled?: (settled: Array<[index: number, outcome: IssueOutcome]>) => void;
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

function notSent(email: string, reason: 'stopOnError' | 'cancelled', because?: number): IssueOutcome {
  const why = reason === 'cancelled' ? 'the run was stopped before this call' : `item ${because} failed and the run stops at the first failure`;
  return { kind: 'notSent', ok: false, reason, ...(because !== undefined ? { because } : {}), error: new CertificateServiceError({ code: 'NOT_SENT', phase: 'validation', message: `${email}: not sent, because ${why}.` }) };
}

function refusedEarlier(email: string, refusal: { error: CertificateServiceError; because: number }): IssueOutcome {
  const { error, because } = refusal;
  return {
    kind: 'refusedEarlier',
    ok: false,
    because,
    error: new CertificateServiceError({
      ...error.toJSON(),
      code: error.code,
      phase: 'validation',
      outcomeUnknown: false,
      message: `${email}: not sent, because an earlier call was refused for a reason that holds for this item too (${error.message})`,
      cause: error,
    }),
  };
}

/**
 * Step 4: the calls, in order. A lone item uses the single-issue endpoint, whose answer shape is
 * documented; more use bulk. Every item of every call ends with an outcome, sent or held back.
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
      const recipients = call.items.map((item) => item.recipient);
      options.onCall?.(indexes);
      try {
        results = recipients.length === 1 ? [{ kind: 'issued', ok: true, recipient: await postOne(api, call.batchId, recipients[0], call.send) }] : await postBulk(api, call.batchId, recipients, call.send);
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
    options.onSettled?.(indexes.map((index, j) => [index, results[j]]));
  }
  return out;
}
