import { defineCreate } from 'zapier-platform-core';
import { assertNever, CertificateServiceError, lineList, outcomeReport, validationError, type IssueItem, type IssueOutcome, type IssueOutcomeKind, type OutcomeReport } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';
import { toZapierError, type ReplayWords } from '../lib/errors';
import { batchField, dict, flag, sendField, text } from '../lib/inputs';
import { allowsUnknownVariables, combinedData, loadVariableFields } from '../lib/variables';
import { designVariables } from '../lib/design-check';

/**
 * Issues a certificate per line item. The core's issueMany validates and normalises every
 * line once (with the shared variables merged in), skips emails the batch already has
 * when asked, groups the rest into bulk calls of at most 100 and reports each line's
 * recipient or error. The step returns ONE result: totals for filters and paths, and
 * `results`, a line-item list in input order with the same keys on every line, so each
 * mapped column lines up.
 */

export interface LineResult {
  line: number;
  /** skipped: the batch already had a certificate for this email; it is returned, not issued again. */
  status: 'issued' | 'skipped' | 'failed';
  /** The core's outcome: issued, skipped, invalid, failed, unknown, notSent, refusedEarlier or unreadBatch. */
  outcome: IssueOutcomeKind;
  name: string;
  email: string;
  recipientId: string;
  certificateId: string;
  shareToken: string;
  certUrl: string;
  errorCode: string;
  errorMessage: string;
  /** True when the line may or may not have been issued (the call's answer was lost). */
  outcomeUnknown: boolean;
}

const MAX_SUMMARY_ERRORS = 5;

/** What replaying the step does when an issue call's answer was lost (errors.ts: not safe is halted, so autoreplay leaves it alone). */
const REPLAY: Record<'skipping' | 'notSkipping', ReplayWords> = {
  skipping: { safe: true, words: 'Replaying this step is safe: the lines already in the batch are skipped, and only the missing ones are issued.' },
  notSkipping: { safe: false, words: '"Skip Emails Already Issued in This Batch" is off, so a replay would issue every line again: turn it on before replaying.' },
};
const NO_CERTIFICATE = { recipientId: '', certificateId: '', shareToken: '', certUrl: '' };

function row(index: number, line: Record<string, unknown>, outcome: IssueOutcome): LineResult {
  const base = { line: index + 1, outcome: outcome.kind, errorCode: '', errorMessage: '', outcomeUnknown: false };
  switch (outcome.kind) {
    case 'issued':
    case 'skipped': {
      const r = outcome.recipient;
      return { ...base, status: outcome.kind, name: r.name, email: r.email, recipientId: r.id, certificateId: r.certificateId, shareToken: r.shareToken, certUrl: r.certUrl };
    }
    case 'invalid':
    case 'failed':
    case 'unknown':
    case 'notSent':
    case 'refusedEarlier':
    case 'unreadBatch': {
      const { error } = outcome;
      return { ...base, ...NO_CERTIFICATE, status: 'failed', name: text(line.name) ?? '', email: text(line.email) ?? '', errorCode: String(error.code), errorMessage: error.message, outcomeUnknown: error.outcomeUnknown };
    }
    default:
      return assertNever(outcome);
  }
}

/** The distinct reasons lines failed, each once with its lines (a batch-wide refusal is said once). */
function summarise({ problems }: OutcomeReport): string {
  const shown = problems.slice(0, MAX_SUMMARY_ERRORS).map((p) => `${lineList(p.items.map((i) => i + 1))}: ${p.message}`);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : '';
  return shown.join('; ') + more;
}

export default defineCreate({
  key: 'issue_certificates_bulk',
  noun: 'Certificate',
  display: {
    label: 'Issue Certificates in Bulk',
    description:
      'Creates a certificate for every line item (for example each row of a spreadsheet or each attendee of an event) and returns each line\'s certificate or error. Uses one quota unit per certificate.',
  },
  operation: {
    inputFields: [
      { ...batchField, altersDynamicFields: true },
      {
        key: 'recipients',
        label: 'Recipients',
        required: true,
        // One line per certificate (Zapier line items). A field with children takes no helpText.
        children: [
          { key: 'name', label: 'Recipient Name', required: true, helpText: 'The full name printed on the certificate.' },
          { key: 'email', label: 'Recipient Email', required: true, helpText: 'The email address the certificate is sent to.' },
          {
            key: 'data_json',
            label: 'Certificate Variables (JSON)',
            helpText: 'Optional variables for this line only, as a JSON object such as `{"score": "92"}`. They override the shared variables. A name the design does not list fails the line, unless "Send Variables the Design Does Not List" is True.',
          },
        ],
      },
      // The design's variables, shared by every line (a line's own JSON takes precedence).
      loadVariableFields({ shared: true }),
      { ...sendField, helpText: 'Choose **True** to email every certificate right away.' },
      {
        key: 'skip_existing',
        label: 'Skip Emails Already Issued in This Batch',
        type: 'boolean',
        default: 'true',
        helpText:
          'With **True** (the default), a line whose email (ignoring letter case) already has a certificate in the batch, or appears on an earlier line, is not issued again: it comes back with status `skipped` and the existing certificate. The batch is read once per run. So replaying this step after a failure issues only what is missing.',
      },
    ],
    perform: withClient(async (client, z, bundle) => {
      const { batch_id, recipients, send, skip_existing } = bundle.inputData;
      const lines = (Array.isArray(recipients) ? recipients : []) as Array<Record<string, unknown>>;
      if (lines.length === 0) throw validationError('recipients', 'add at least one line with a name and an email');
      const batchId = text(batch_id) ?? '';
      const sendNow = flag(send) ?? false;

      // Values go to the core as given: its issue plan checks and normalises each one once.
      const items: IssueItem[] = lines.map((line) => ({
        batchId,
        send: sendNow,
        name: text(line.name) ?? '',
        email: text(line.email) ?? '',
        data: dict(line.data_json) as IssueItem['data'],
      }));
      // The core's design check fails a line that leaves a required variable empty (after the
      // shared ones), before any write; the design read is kept in z.cache across runs.
      const skipExisting = flag(skip_existing) ?? true;
      const outcomes = await client.issueMany(items, {
        data: combinedData(bundle.inputData) as IssueItem['data'],
        skipExisting,
        variables: await designVariables(z, bundle, client, batchId),
        allowUnknownVariables: allowsUnknownVariables(bundle.inputData),
      });
      const results = outcomes.map((outcome, i) => row(i, lines[i], outcome));
      const report = outcomeReport(outcomes);
      const { tally } = report;

      if (tally.issued + tally.skipped === 0) {
        // Nothing was issued: fail the step with the most telling error. A whole-call
        // problem (auth, rate limit, quota, archived batch) beats a bad line, so Zapier
        // reacts to it properly (reconnect, retry later). Retrying is then safe unless
        // some line's outcome is unknown: then the error says what a replay does.
        const errors = outcomes.flatMap((o) => (o.ok ? [] : [o.error]));
        const cause = errors.find((e) => e.outcomeUnknown) ?? errors.find((e) => e.code !== 'VALIDATION_ERROR') ?? errors[0];
        const error = new CertificateServiceError({
          ...cause.toJSON(),
          code: cause.code,
          message: `No certificate was issued. ${summarise(report)}`,
        });
        throw toZapierError(z, error, { replay: skipExisting ? REPLAY.skipping : REPLAY.notSkipping });
      }

      // Zapier's own word: a line without a certificate is "failed", whatever kept it back.
      const failed = results.filter((r) => r.status === 'failed');
      return {
        batchId,
        total: results.length,
        issuedCount: tally.issued,
        skippedCount: tally.skipped,
        failedCount: report.notIssued,
        outcomeUnknownCount: tally.unknown,
        issuedCertificateIds: results.filter((r) => r.status === 'issued').map((r) => r.certificateId),
        failedEmails: failed.map((r) => r.email),
        errorSummary: summarise(report),
        results,
      };
    }),
    sample: {
      batchId: 'batch_3xy9w2',
      total: 2,
      issuedCount: 1,
      skippedCount: 0,
      failedCount: 1,
      outcomeUnknownCount: 0,
      issuedCertificateIds: ['CERT-2025-000123-4567'],
      failedEmails: ['not-an-email'],
      errorSummary: 'line 2: Invalid "email": "not-an-email" is not a valid email address',
      results: [
        {
          line: 1,
          status: 'issued',
          outcome: 'issued',
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          recipientId: 'rec_8f2k1m4q',
          certificateId: 'CERT-2025-000123-4567',
          shareToken: 'tok_4b7c9e1d',
          certUrl: 'https://certs.example.com/v/tok_4b7c9e1d',
          errorCode: '',
          errorMessage: '',
          outcomeUnknown: false,
        },
        {
          line: 2,
          status: 'failed',
          outcome: 'invalid',
          name: 'Grace Hopper',
          email: 'not-an-email',
          recipientId: '',
          certificateId: '',
          shareToken: '',
          certUrl: '',
          errorCode: 'VALIDATION_ERROR',
          errorMessage: 'Invalid "email": "not-an-email" is not a valid email address',
          outcomeUnknown: false,
        },
      ] satisfies LineResult[],
    },
    outputFields: [
      { key: 'batchId', label: 'Batch ID', type: 'string' },
      { key: 'total', label: 'Lines', type: 'integer' },
      { key: 'issuedCount', label: 'Issued Count', type: 'integer' },
      { key: 'skippedCount', label: 'Skipped Count (Already Issued)', type: 'integer' },
      { key: 'failedCount', label: 'Failed Count', type: 'integer' },
      { key: 'outcomeUnknownCount', label: 'Outcome Unknown Count', type: 'integer' },
      { key: 'issuedCertificateIds', label: 'Issued Certificate IDs', type: 'string', list: true },
      { key: 'failedEmails', label: 'Failed Emails', type: 'string', list: true },
      { key: 'errorSummary', label: 'Error Summary', type: 'string' },
      { key: 'results[]line', label: 'Results Line Number', type: 'integer' },
      { key: 'results[]status', label: 'Results Status', type: 'string' },
      { key: 'results[]outcome', label: 'Results Outcome', type: 'string' },
      { key: 'results[]name', label: 'Results Recipient Name', type: 'string' },
      { key: 'results[]email', label: 'Results Recipient Email', type: 'string' },
      { key: 'results[]recipientId', label: 'Results Recipient ID', type: 'string' },
      { key: 'results[]certificateId', label: 'Results Certificate ID', type: 'string' },
      { key: 'results[]shareToken', label: 'Results Share Token', type: 'string' },
      { key: 'results[]certUrl', label: 'Results Certificate URL', type: 'string' },
      { key: 'results[]errorCode', label: 'Results Error Code', type: 'string' },
      { key: 'results[]errorMessage', label: 'Results Error Message', type: 'string' },
      { key: 'results[]outcomeUnknown', label: 'Results Outcome Unknown', type: 'boolean' },
    ],
  },
});
