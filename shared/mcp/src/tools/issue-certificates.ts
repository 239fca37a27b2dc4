import { z } from 'zod/v4';
import { countOutcomes, outcomeProblems, type IssueItem, type IssueOutcome, type IssuePreview } from '@certificate-service/sdk';
import { defineTool } from '../tool';
import { confirmationToken } from './views';

const MAX_RECIPIENTS = 1000;
const SHOWN_IDS = 20;
const SHOWN_ERRORS = 5;

/** Each distinct reason once (the core groups a batch-wide refusal): how many, the message, a few emails. */
function errorGroups(outcomes: IssueOutcome[], items: IssueItem[]) {
  return outcomeProblems(outcomes)
    .slice(0, SHOWN_ERRORS)
    .map((p) => ({ kind: p.kind, code: p.code, count: p.items.length, message: p.message, emails: p.items.slice(0, 3).map((i) => String(items[i]?.email ?? '')), ...(p.outcomeUnknown ? { outcomeUnknown: true as const } : {}) }));
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
  };
}

export default defineTool({
  name: 'issue_certificates',
  title: 'Issue certificates',
  description:
    'Issues a certificate to each recipient in a list, into one batch, in bulk calls of up to 100. Skip-existing is on by default: a recipient whose email already has a certificate ' +
    'in the batch (or appears earlier in the list) is skipped, so calling again with the same list after a failure or a timeout issues only what is missing, never twice. ' +
    'Every recipient\'s data is checked against the batch\'s required design variables before anything is issued (see get_batch). ' +
    'Quota: 1 unit per certificate issued (skipped ones cost none). Requests: 2 to 4 reads for the design\'s variables, 1 read per 100 certificates already in the batch, 1 write per 100 issued; the service allows 120 a minute and the server waits when it must, reporting progress. ' +
    'send: true also emails each certificate (cannot be undone). With send, or more than the confirmation threshold to issue, the user is asked first (or a dry run answers with a confirmationToken). dryRun: true only says what would happen. ' +
    'Returns counts per outcome (issued, skipped, invalid, failed, unknown, notSent, refusedEarlier, unreadBatch), the first issued ids and the first errors grouped.',
  input: {
    batchId: z.string().min(1).describe('The batch to issue into.'),
    recipients: z
      .array(
        z.object({
          name: z.string().describe('Full name as printed on the certificate.'),
          email: z.string().describe('Email address; one certificate per email per batch.'),
          data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('This recipient\'s certificate variables, e.g. {"course": "Math"}.'),
        }),
      )
      .min(1)
      .max(MAX_RECIPIENTS)
      .describe(`1 to ${MAX_RECIPIENTS} recipients.`),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Variables shared by every recipient; a recipient\'s own data wins.'),
    send: z.boolean().default(false).describe('Also email each certificate now (asks the user first).'),
    skipExisting: z.boolean().default(true).describe('Skip emails already in the batch (default true). false issues them again.'),
    dryRun: z.boolean().default(false).describe('Only read and say what would be issued, skipped or refused; nothing is written.'),
    confirmationToken,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, { client, confirm, confirmAbove, signal, progress, log }) {
    const { batchId, recipients, data, send, skipExisting, dryRun } = args;
    const items: IssueItem[] = recipients.map((r) => ({ batchId, name: r.name, email: r.email, ...(r.data ? { data: r.data } : {}), ...(send ? { send: true } : {}) }));
    // The design's variables are read once, here, and passed to the core's issue plan for the
    // preview and the issue alike (the plan checks them before any write).
    const variables = new Map([[batchId, (await client.getBatchVariables(batchId)).variables]]);
    const options = { skipExisting, data, variables };

    let nothingToIssue = false;
    if (dryRun || send || items.length > confirmAbove) {
      // The same reads as the issue, no write: what would really be issued, after skip-existing.
      const preview = await client.previewIssue(items, options);
      const summary = previewSummary(preview, items);
      if (dryRun) return { data: { done: false, dryRun: true, batchId, ...summary } };
      nothingToIssue = preview.wouldIssue === 0;
      if (preview.wouldIssue > 0 && (send || preview.wouldIssue > confirmAbove)) {
        const action = `Issue ${preview.wouldIssue} certificate${preview.wouldIssue === 1 ? '' : 's'} into batch ${batchId}${send ? ' and email each one now' : ''} (${preview.wouldIssue} quota units; ${summary.wouldSkip} skipped as already issued, ${summary.invalid} refused as invalid).`;
        const ok = await confirm({ tool: 'issue_certificates', args, action, preview: summary });
        if (!ok.go) return ok.answer;
      }
    }

    // Skip-existing reads the batch again at issue time, so what changed since the preview is skipped too.
    // The design check is the core's default (it reads the design again at issue time, as
    // skip-existing reads the batch again); the preview's variables are not reused.
    const outcomes = await client.issueMany(items, {
      skipExisting,
      data,
      signal,
      onProgress: (done, total) => progress(done, total, `${done} of ${total} recipients have an outcome`),
    });

    const counts = countOutcomes(outcomes);
    const issued = outcomes.flatMap((o, i) => (o.kind === 'issued' ? [{ email: items[i].email, id: o.recipient.id, certificateId: o.recipient.certificateId }] : []));
    const answer = {
      done: true,
      batchId,
      counts,
      issued: issued.slice(0, SHOWN_IDS),
      ...(issued.length > SHOWN_IDS ? { moreIssued: issued.length - SHOWN_IDS } : {}),
      errors: errorGroups(outcomes, items),
      ...(nothingToIssue ? { note: 'Nothing to issue: every recipient was skipped or refused; nothing was written.' } : {}),
      ...(counts.unknown ? { next: 'Some outcomes are unknown (sent, no readable answer). Call issue_certificates again with the same list: skip-existing issues only what is missing.' } : {}),
      ...(signal.aborted ? { cancelled: true } : {}),
    };
    if (signal.aborted) log.warn(`issue_certificates into ${batchId} was cancelled; the call in flight finished and nothing more was sent. Outcomes: ${JSON.stringify(counts)}; issued: ${issued.map((i) => i.certificateId).join(', ') || 'none'}`);
    return { data: answer };
  },
});
