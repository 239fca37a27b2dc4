import type { CertificateServiceError, DesignVariable, IssueItem, IssueOutcome } from '@certificate-service/sdk';
import { matchColumns } from './columns';
import type { Connection } from './connect';
import { readRows, renameColumns, repeatedEmails, type CsvRow } from './csv-rows';
import { REPORT_COLUMNS } from './errors-file';

/** The flags `certsvc issue` shares with `--dry-run`. */
export interface IssueInputFlags {
  batch: string;
  /** Resolved from the user's folder (program.ts). */
  csv: string;
  send?: boolean;
  skipExisting: boolean;
  /** Send a column the design does not list as it is (with a warning), instead of refusing every row that fills it. */
  allowUnknownColumns?: boolean;
  /** Issue the valid rows and report the invalid ones instead of sending nothing. */
  skipInvalid?: boolean;
}

export interface IssueInput {
  /** The CSV file as resolved from the folder the user typed in. */
  csv: string;
  rows: CsvRow[];
  /** The data columns, each named as the variable it fills, in the file's order (for --errors). */
  columns: string[];
  items: IssueItem[];
  /** The batch's design variables (read once), for issueMany's design check. */
  variables: Map<string, DesignVariable[]>;
}

const shown = 10;

/**
 * What `certsvc issue` and `--dry-run` read before anything else: the CSV (its own problems name
 * their line), then the batch's variables, once (a batch that cannot be read stops here, nothing
 * sent), which the columns are matched against (`Course` fills `course`).
 * The rows are not checked here: the core's plan checks every row at once, a bad name or email, a
 * column the design does not list and a required variable left empty alike, and names each
 * (issue.ts, dry-run.ts).
 * Everything said goes to `say` (stderr).
 */
export async function readIssueInput(flags: IssueInputFlags, connection: Connection, say: (text: string) => void): Promise<IssueInput> {
  const { csv } = flags;
  const file = readRows(csv);
  if (file.errorsFile) say(`${csv} is a certsvc --errors file: its columns line, ${REPORT_COLUMNS.join(', ')} are not sent.\n`);
  const repeats = repeatedEmails(file.rows);
  for (const [line, first, email] of repeats.slice(0, shown)) {
    say(
      flags.skipExisting
        ? `line ${line} repeats the email of line ${first} (${email}): issued once; line ${line} gets the same certificate.\n`
        : `line ${line} repeats the email of line ${first} (${email}): with --no-skip-existing it is issued twice.\n`,
    );
  }
  if (repeats.length > shown) say(`… and ${repeats.length - shown} more repeated emails.\n`);

  const batch = await connection.client.getBatchVariables(flags.batch);
  const { rename, warnings } = matchColumns(file.columns, batch, flags.allowUnknownColumns === true);
  for (const w of warnings) say(`${w}\n`);
  const rows = renameColumns(file.rows, rename);
  const items = rows.map(({ name, email, data }) => ({ batchId: flags.batch, name, email, data, ...(flags.send ? { send: true } : {}) }));
  return { csv, rows, columns: file.columns.map((c) => rename.get(c) ?? c), items, variables: new Map([[flags.batch, batch.variables]]) };
}

/** Said once after the rows a column the design does not list made invalid: what to do. */
export function unknownColumnsNote(outcomes: ReadonlyArray<{ kind: string; error?: CertificateServiceError }>): string | undefined {
  if (!outcomes.some((o) => o.kind === 'invalid' && o.error?.hintTopic === 'unknown-variable')) return undefined;
  return "A column the design does not list is refused: correct its name in the header. Only if the design's list is incomplete, or the service takes that data on purpose, pass --allow-unknown-columns to send it as it is.";
}

/**
 * Why a row was refused before sending, in the CLI's words: a required variable left empty is
 * named as the design names it (`"course" is required by the design and is empty`); any other
 * bad value keeps the core's message (`Invalid "email": …`).
 */
export function invalidReason(outcome: Extract<IssueOutcome, { kind: 'invalid' }>, variables: readonly DesignVariable[]): string {
  const error: CertificateServiceError = outcome.error;
  const field = error.field ?? '';
  // The field the core names is the fact; the design says whether that variable is required.
  const required = new Set(variables.filter((v) => v.required).map((v) => `data.${v.name}`));
  if (!required.has(field)) return error.message;
  const also = (/also required and empty: ([^)]*)\)/.exec(error.message)?.[1].split(', ') ?? []).filter((f) => required.has(f));
  const names = [field, ...also].map((f) => `"${f.replace(/^data\./, '')}"`);
  return names.length === 1 ? `${names[0]} is required by the design and is empty` : `${names.join(', ')} are required by the design and are empty`;
}
