import { assertNever, CertificateServiceError } from '@certificate-service/sdk';
import type { Run } from './command';
import { invalidReason, readIssueInput, unknownColumnsNote, type IssueInputFlags } from './issue-input';

/** What `certsvc issue --dry-run` prints on stdout, one JSON line. */
export interface DryRunSummary {
  dryRun: true;
  /** Rows that would be issued (a repeated email counts once). */
  issue: number;
  skipped: number;
  invalid: number;
  /** Quota units the run would use: one per certificate issued. */
  quota: number;
  /** Issue requests (bulk calls of at most 100) it would make. */
  calls: number;
  /** Requests this dry run made (reads only). */
  requests: number;
}

/**
 * `certsvc issue --dry-run`: the same reads and the same plan as the real run (the core's
 * previewIssue), and no write. Each row's fate on stderr; the quota it would use and the JSON
 * summary on stdout. The exit code is the real run's when every call succeeds: 2 when a row is
 * invalid (it would send nothing), 1 with --skip-invalid (it would issue the others), else 0.
 */
export const runDryRun: Run<IssueInputFlags> = async (flags, context) => {
  const { connection } = context;
  const { stdout, stderr } = context.io;
  const say = (text: string) => void stderr.write(text);
  const input = await readIssueInput(flags, connection, say);
  const { rows } = input;
  const preview = await connection.client.previewIssue(input.items, { skipExisting: flags.skipExisting, variables: input.variables, allowUnknownVariables: flags.allowUnknownColumns === true });
  const counts = { skipped: 0, invalid: 0 };
  preview.outcomes.forEach((o, i) => {
    const line = `line ${rows[i].line}`;
    switch (o.kind) {
      case 'wouldIssue':
        return say(`${line}: issue${flags.send ? ' and send' : ''} (${o.email})\n`);
      case 'repeat':
        counts.skipped++; // the real run counts it skipped (earlierInCall)
        return say(`${line}: same email as line ${rows[o.sameAs].line}, gets its certificate\n`);
      case 'skipped':
        counts.skipped++;
        return say(`${line}: skip, ${o.recipient.email} is already in the batch (${o.recipient.certificateId})\n`);
      case 'invalid':
        counts.invalid++;
        return say(`${line}: invalid, ${invalidReason(o, input.variables.get(flags.batch) ?? [])}\n`);
      case 'unreadBatch':
        // The batch was read above; a later read failing is the command's error, as in a real run.
        throw o.error.cause instanceof CertificateServiceError ? o.error.cause : o.error;
      case 'notSent':
        return say(`${line}: not sent, ${o.error.message}\n`);
      default:
        return assertNever(o);
    }
  });
  const summary: DryRunSummary = { dryRun: true, issue: preview.wouldIssue, skipped: counts.skipped, invalid: counts.invalid, quota: preview.wouldIssue, calls: preview.calls, requests: connection.requests() };
  say(`Would issue ${preview.wouldIssue} certificate${preview.wouldIssue === 1 ? '' : 's'} (${preview.wouldIssue} quota unit${preview.wouldIssue === 1 ? '' : 's'}) in ${preview.calls} call${preview.calls === 1 ? '' : 's'}; nothing was sent.\n`);
  const note = unknownColumnsNote(preview.outcomes);
  if (note) say(`${note}\n`);
  const invalid = `${counts.invalid} invalid row${counts.invalid === 1 ? '' : 's'}`;
  if (counts.invalid && !flags.skipInvalid) say(`${invalid}: certsvc issue sends nothing while a row is invalid; with --skip-invalid it issues the others as above.\n`);
  if (counts.invalid && flags.skipInvalid) say(`${invalid}: with --skip-invalid, certsvc issue issues the others as above and reports ${counts.invalid === 1 ? 'it' : 'them'} (exit 1).\n`);
  stdout.write(`${JSON.stringify(summary)}\n`);
  if (!counts.invalid) return 0;
  return flags.skipInvalid ? 1 : 2;
};
