// The "issue certificates from a CSV" prompt: the steps an agent should take, in order, with
// the tools that take them, so a pasted list becomes certificates without surprises.
import { z } from 'zod/v4';

export function issueFromCsvText(csv: string, batch?: string): string {
  return [
    'Issue a certificate to each row of the CSV below, through the Certificate Service tools. Work in this order and stop to ask the user when something is unclear:',
    `1. Batch: ${batch ? `use batch "${batch}" (check it with get_batch).` : 'ask which batch; find it with list_batches, or create one with create_batch after list_designs (ask the user which design and title).'} A batch must be active.`,
    '2. Columns: the rows need a name and an email column (any case). Call get_batch: it lists the design\'s variables and which are required; map the other CSV columns to those names and tell the user about any column that matches none, and any required variable with no column.',
    '3. Dry run: call issue_certificates with dryRun: true and every row as a recipient ({name, email, data}). Report how many would be issued, skipped (already in the batch) and refused, with the first reasons. Fix refused rows with the user, or leave them out.',
    '4. Issue: call issue_certificates with the same list (send only if the user asked to email the certificates). Skip-existing stays on, so a repeat after a failure or a timeout issues only what is missing. If the server asks for confirmation, let the user decide; never pass a confirmationToken the user has not agreed to.',
    '5. Report the counts, the first errors, and what to do about unknown outcomes (call again with the same list).',
    '',
    'CSV:',
    csv,
  ].join('\n');
}

export const ISSUE_FROM_CSV = 'issue_from_csv';

/** A prompt's arguments: MCP prompt arguments are strings. */
export type PromptArguments = Record<string, z.ZodString | z.ZodOptional<z.ZodString>>;

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  args: PromptArguments;
  /** prompts/get's answer, the same for both eras. */
  get(args: Record<string, string | undefined>): { messages: Array<{ role: 'user'; content: { type: 'text'; text: string } }> };
}

export const PROMPTS: ReadonlyArray<PromptDefinition> = [
  {
    name: ISSUE_FROM_CSV,
    title: 'Issue certificates from a CSV',
    description: 'Walks through batch, design variables, a dry run and the issue, for a pasted CSV with name and email columns.',
    args: {
      csv: z.string().describe('The CSV text, header row first (name, email, then variables).'),
      batchId: z.string().optional().describe('The batch to issue into, if known.'),
    },
    get: ({ csv, batchId }) => ({ messages: [{ role: 'user', content: { type: 'text', text: issueFromCsvText(csv ?? '', batchId) } }] }),
  },
];
