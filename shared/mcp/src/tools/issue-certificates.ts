import { z } from 'zod/v4';
import { fileInFlightMarkers, hostHint, outcomeReport, type CertificateServiceError, type IssueItem, type IssuePreview, type OutcomeReport } from '@certificate-service/sdk';
import { MCP_WORDS } from '../answers';
import { defineTool } from '../tool';
import { confirmable, confirmationToken, object } from './views';

const MAX_RECIPIENTS = 1000;
const SHOWN_IDS = 10;
const SHOWN_ERRORS = 5;

/** Each distinct reason once (the core groups a batch-wide refusal): how many, the message, a few emails. */
function errorGroups(report: OutcomeReport, items: IssueItem[]) {
  return report.problems
    .slice(0, SHOWN_ERRORS)
    .map((p) => ({ kind: p.kind, code: p.code, count: p.items.length, message: p.message, emails: p.items.slice(0, 3).map((i) => String(items[i]?.email ?? '')), ...(p.outcomeUnknown ? { outcomeUnknown: true as const } : {}) }));
}

/** What to do about a data key the design does not list, once, when some recipient was refused for one. */
function unknownKeysHint(outcomes: ReadonlyArray<{ kind: string; error?: CertificateServiceError }>): { hint: string } | undefined {
  const refused = outcomes.find((o) => o.kind === 'invalid' && o.error?.hintTopic === 'unknown-variable');
  return refused?.error ? { hint: hostHint(refused.error, MCP_WORDS) } : undefined;
}

function previewSummary(preview: IssuePreview, items: IssueItem[]) {
  const count = (...kinds: string[]) => preview.outcomes.filter((o) => kinds.includes(o.kind)).length;
  const refused = preview.outcomes.flatMap((o, i) => (o.kind === 'invalid' || o.kind === 'unreadBatch' ? [{ index: i, email: String(items[i]?.email ?? ''), code: o.error.code, message: o.error.message }] : []));
  return {
    wouldIssue: preview.wouldIssue,
    wouldSkip: count('skipped', 'repeat'),
    invalid: refused.length,
    issueCalls: preview.calls,
    ...(refused.length ? { firstInvalid: refused.slice(0, SHOWN_ERRORS) } : {}),
    ...unknownKeysHint(preview.outcomes),
  };
}

export default defineTool({
  name: 'issue_certificates',
  title: 'Issue certificates',
  description:
    'Issues a certificate to each recipient into one batch, 100 per bulk call. Skips emails already in the batch or repeated, so the same call again after a failure or timeout issues only what is missing, never twice. ' +
    'Checks data against the design (get_batch) first. 1 quota unit each. send: true emails too. Asks first with send or above the threshold.',
  input: {
    batchId: z.string().min(1),
    recipients: z
      .array(
        z.object({
          name: z.string(),
          email: z.string(),
          data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Its variables, e.g. {"course": "Math"}.'),
        }),
      )
      .min(1)
      .max(MAX_RECIPIENTS),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Shared by all; a recipient\'s own wins.'),
    send: z.boolean().default(false),
    skipExisting: z.boolean().default(true).describe('false issues existing emails again.'),
    // Undescribed (the tool list is at its size budget): an answer refusing such a key says when to use it (unknownKeysHint).
    allowUnknownVariables: z.boolean().optional(),
    dryRun: z.boolean().default(false).describe('Only say what would happen.'),
    confirmationToken,
  },
  output: z.looseObject({
    ...confirmable,
    batchId: z.string().optional(),
    counts: z.record(z.string(), z.number()).optional(),
    issued: z.array(object).optional(),
    moreIssued: z.number().optional(),
    errors: z.array(object).optional(),
    wouldIssue: z.number().optional(),
    wouldSkip: z.number().optional(),
    invalid: z.number().optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  example: async (on) => ({ batchId: await on.batch(), recipients: [{ name: 'Ada Lovelace', email: 'ada@example.com' }, { name: 'Alan Turing', email: 'alan@example.com' }] }),
  async run(args, { client, confirm, confirmAbove, signal, progress, log }) {
    const { batchId, recipients, data, send, skipExisting, dryRun, allowUnknownVariables } = args;
    const items: IssueItem[] = recipients.map((r) => ({ batchId, name: r.name, email: r.email, ...(r.data ? { data: r.data } : {}), ...(send ? { send: true } : {}) }));
    // The core's issue plan checks the design's variables by default (a key it does not list, a
    // required one left empty), in the preview and the issue alike, before any write.
    const options = { skipExisting, data, allowUnknownVariables };

    let nothingToIssue = false;
    let preview: IssuePreview | undefined;
    if (dryRun || send || items.length > confirmAbove) {
      // The same reads as the issue, no write: what would really be issued, after skip-existing.
      preview = await client.previewIssue(items, options);
      const summary = previewSummary(preview, items);
      if (dryRun) return { data: { done: false, dryRun: true, batchId, ...summary } };
      nothingToIssue = preview.wouldIssue === 0;
      if (preview.wouldIssue > 0 && (send || preview.wouldIssue > confirmAbove)) {
        const action = `Issue ${preview.wouldIssue} certificate${preview.wouldIssue === 1 ? '' : 's'} into batch ${batchId}${send ? ' and email each one now' : ''} (${preview.wouldIssue} quota units; ${summary.wouldSkip} skipped as already issued, ${summary.invalid} refused as invalid).`;
        const ok = await confirm({ tool: 'issue_certificates', args, target: [batchId], action, preview: summary });
        if (ok.kind !== 'go') return ok;
      }
    }

    // The design's variables as the preview read them (the batch and its design are read once per
    // call); skip-existing reads the certificates again at issue time, once the run holds its
    // emails, so what was issued since the preview, even by another process, is skipped.
    const outcomes = await client.issueMany(items, {
      ...options,
      ...(preview ? { variables: preview.variables } : {}),
      // Emails another server process or certsvc on this machine has in flight (a per-call client
      // whose server was killed mid-call) are waited for, not issued again: markers in the state folder.
      inFlight: fileInFlightMarkers(),
      signal,
      onProgress: (done, total) => progress(done, total, `${done} of ${total} recipients have an outcome`),
    });

    const report = outcomeReport(outcomes);
    const counts = report.tally;
    const issued = outcomes.flatMap((o, i) => (o.kind === 'issued' ? [{ email: items[i].email, certificateId: o.recipient.certificateId }] : []));
    const answer = {
      done: true,
      batchId,
      counts,
      summary: report.sentence,
      issued: issued.slice(0, SHOWN_IDS),
      ...(issued.length > SHOWN_IDS ? { moreIssued: issued.length - SHOWN_IDS } : {}),
      errors: errorGroups(report, items),
      ...unknownKeysHint(outcomes),
      ...(nothingToIssue ? { note: 'Nothing to issue: every recipient was skipped or refused; nothing was written.' } : {}),
      ...(counts.unknown ? { next: 'Some outcomes are unknown (sent, no readable answer). Call issue_certificates again with the same list: skip-existing issues only what is missing.' } : {}),
      ...(signal.aborted ? { cancelled: true } : {}),
    };
    if (signal.aborted) log.warn(`issue_certificates into ${batchId} was cancelled; the call in flight finished and nothing more was sent. Outcomes: ${JSON.stringify(counts)}; issued: ${issued.map((i) => i.certificateId).join(', ') || 'none'}`);
    return { data: answer };
  },
});
