import { CertificateServiceError } from '../errors';
import type { Recipient } from '../types';

/**
 * What became of one item given to `issueMany` (or of one recipient of a bulk call): every case
 * written out, so a host switches on `kind` with `assertNever` in its `default:`, and `npm run
 * typecheck` fails where a case is forgotten.
 * `ok` is true exactly for the two kinds that carry a certificate.
 *
 * - `issued`: issued by this call.
 * - `skipped`: not sent, because the email already had a certificate in the batch (`inBatch`), or
 *   came earlier in this same call (`earlierInCall`, `sameAs` is that item's index). The existing
 *   certificate is returned.
 * - `invalid`: bad input (or a required design variable left empty), refused before any request.
 * - `failed`: sent, and the service refused this item (or the whole call; `because` names the item
 *   the service blamed when it named one).
 * - `unknown`: sent, and no readable answer came back: it may or may not have been issued. It was
 *   not repeated (the API has no idempotency key). `error.outcomeUnknown` is true.
 * - `notSent`: never sent: the run stopped at an earlier failure (`stopOnError`), at an
 *   invalid item (`stopOnInvalid`), or was cancelled (`signal`).
 * - `refusedEarlier`: not sent, because an earlier call into the same batch (archived, missing)
 *   or with the same key (refused) was refused for a reason that applies to this item too.
 * - `unreadBatch`: not sent, because a read the plan needed first failed: the batch's list (to skip
 *   what it already has) or its design's variables. Issuing without it could issue twice, or
 *   issue what the design refuses.
 */
export type IssueOutcome =
  | { kind: 'issued'; ok: true; recipient: Recipient }
  | { kind: 'skipped'; ok: true; recipient: Recipient; reason: 'inBatch' | 'earlierInCall'; sameAs?: number }
  | { kind: 'invalid'; ok: false; error: CertificateServiceError }
  | { kind: 'failed'; ok: false; error: CertificateServiceError; because?: number }
  | { kind: 'unknown'; ok: false; error: CertificateServiceError }
  | { kind: 'notSent'; ok: false; error: CertificateServiceError; reason: 'stopOnError' | 'stopOnInvalid' | 'cancelled'; because?: number }
  | { kind: 'refusedEarlier'; ok: false; error: CertificateServiceError; because: number }
  | { kind: 'unreadBatch'; ok: false; error: CertificateServiceError; batchId: string };

export type IssueOutcomeKind = IssueOutcome['kind'];
export type FailedOutcome = Extract<IssueOutcome, { ok: false }>;

// A record, not a list: a kind added to the union and left out here fails the build. Its keys
// keep the order written (string keys do), which is the order hosts report them in.
const KINDS: Record<IssueOutcomeKind, true> = { issued: true, skipped: true, invalid: true, failed: true, unknown: true, notSent: true, refusedEarlier: true, unreadBatch: true };

/** Every kind, in the order hosts report them. */
export const ISSUE_OUTCOME_KINDS = Object.keys(KINDS) as readonly IssueOutcomeKind[];

const NOT_SENT_BECAUSE = {
  stopOnError: (because?: number) => `item ${because} failed and the run stops at the first failure`,
  stopOnInvalid: (because?: number) => `item ${because} is invalid and nothing is sent while an item is invalid`,
  cancelled: () => 'the run was stopped before this call',
};

/** Never sent: `because` is the input index of the item that stopped the run. */
export function notSent(email: string, reason: keyof typeof NOT_SENT_BECAUSE, because?: number): IssueOutcome {
  const error = new CertificateServiceError({ code: 'NOT_SENT', phase: 'validation', message: `${email}: not sent, because ${NOT_SENT_BECAUSE[reason](because)}.` });
  return { kind: 'notSent', ok: false, reason, ...(because !== undefined ? { because } : {}), error };
}

/** Not sent, because an earlier call (input index `because`) was refused for a reason that applies to this item too. */
export function refusedEarlier(email: string, refusal: { error: CertificateServiceError; because: number }): IssueOutcome {
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
      message: `${email}: not sent, because an earlier call was refused for a reason that applies to this item too (${error.message})`,
      cause: error,
    }),
  };
}

export type OutcomeCounts = Record<IssueOutcomeKind, number> & { total: number };

/** How many items ended in each kind. */
export function countOutcomes(outcomes: readonly IssueOutcome[]): OutcomeCounts {
  const counts = Object.fromEntries(ISSUE_OUTCOME_KINDS.map((k) => [k, 0])) as OutcomeCounts;
  for (const o of outcomes) counts[o.kind]++;
  counts.total = outcomes.length;
  return counts;
}

/** One reason several items did not get a certificate: the batch-wide ones are said once. */
export interface OutcomeProblem {
  kind: FailedOutcome['kind'];
  code: string;
  /** The reason, without any one item's email. */
  message: string;
  /** The items it applies to, by input index, in order. */
  items: number[];
  /** Some of these items may have been issued (sent, no readable answer). */
  outcomeUnknown: boolean;
}

/**
 * The reasons items did not get a certificate, each once with the items it applies to, in the
 * order they first occur. An item's error made from a shared one (a refused call, an unreadable
 * batch) is grouped by that shared error (`cause`), so a batch-wide refusal is said once, for the
 * items of the refused call and those it kept from sending alike; items with the very same reason (two
 * rows without a name) are grouped too. `kind` is the first item's.
 */
export function outcomeProblems(outcomes: readonly IssueOutcome[]): OutcomeProblem[] {
  const byKey = new Map<string, OutcomeProblem>();
  outcomes.forEach((o, index) => {
    if (o.ok) return;
    const root = o.error.cause instanceof Error && 'code' in o.error.cause ? (o.error.cause as CertificateServiceError) : o.error;
    const key = JSON.stringify([root.code, root.message]);
    const found = byKey.get(key);
    if (found) found.items.push(index);
    else byKey.set(key, { kind: o.kind, code: String(root.code), message: root.message, items: [index], outcomeUnknown: o.error.outcomeUnknown });
  });
  return [...byKey.values()];
}

/**
 * The numbers every host reports, each item counted once. A refusal carried over from an earlier
 * call (`refusedEarlier`) and a batch that could not be read (`unreadBatch`) count as `failed`:
 * the service (or its answer) is why they got no certificate. `notSent` is only a stopped run.
 */
export interface OutcomeTally {
  issued: number;
  skipped: number;
  invalid: number;
  failed: number;
  unknown: number;
  notSent: number;
  total: number;
}

// A record, so a kind added to the union and left out here fails the build.
const TALLIED_AS: Record<IssueOutcomeKind, Exclude<keyof OutcomeTally, 'total'>> = {
  issued: 'issued',
  skipped: 'skipped',
  invalid: 'invalid',
  failed: 'failed',
  unknown: 'unknown',
  notSent: 'notSent',
  refusedEarlier: 'failed',
  unreadBatch: 'failed',
};

/** What became of a run, in one place: n8n, Zapier, the CLI and MCP all print from it (in their own words). */
export interface OutcomeReport {
  /** Per kind, the eight of them. */
  counts: OutcomeCounts;
  /** The six numbers hosts show. */
  tally: OutcomeTally;
  /** Items without a certificate (neither issued nor skipped). */
  notIssued: number;
  /** Each reason once, with its items (see `outcomeProblems`). */
  problems: OutcomeProblem[];
  /** The tally as a sentence, neutral: hosts add what to do next. */
  sentence: string;
}

export function outcomeReport(outcomes: readonly IssueOutcome[]): OutcomeReport {
  const counts = countOutcomes(outcomes);
  const tally: OutcomeTally = { issued: 0, skipped: 0, invalid: 0, failed: 0, unknown: 0, notSent: 0, total: counts.total };
  for (const kind of ISSUE_OUTCOME_KINDS) tally[TALLIED_AS[kind]] += counts[kind];
  const t = tally;
  const sentence = `Of ${t.total} item${t.total === 1 ? '' : 's'}, ${t.issued} certificate${t.issued === 1 ? ' was' : 's were'} issued, ${t.skipped} skipped (already issued), ${t.invalid} invalid, ${t.failed} failed, ${t.unknown} with an unknown outcome and ${t.notSent} not sent.`;
  return { counts, tally, notIssued: t.total - t.issued - t.skipped, problems: outcomeProblems(outcomes), sentence };
}

/**
 * The lines a problem holds for, as hosts name them: `line 4`, `lines 3-5` when they follow each
 * other, else `3 lines (3, 5, 9)` (the first five, then `…`). `lines` are the numbers the user
 * sees (a CSV file's lines, a Zapier step's line items), in order.
 */
export function lineList(lines: readonly number[]): string {
  if (lines.length === 1) return `line ${lines[0]}`;
  const contiguous = lines.every((l, k) => k === 0 || l === lines[k - 1] + 1);
  if (contiguous) return `lines ${lines[0]}-${lines.at(-1)}`;
  return `${lines.length} lines (${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''})`;
}
