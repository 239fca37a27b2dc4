import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { CertificateServiceError, validateIssue, type ItemOutcome } from '@certificate-service/sdk';
import type { Connection } from './connect';
import { progressBar } from './progress';
import { UsageError } from './usage-error';

export interface IssueFlags {
  batch: string;
  csv: string;
  send?: boolean;
  skipExisting: boolean;
  errors?: string;
  /** Issue the valid rows and report the invalid ones (in --errors) instead of sending nothing. */
  skipInvalid?: boolean;
}

/** A row refused before sending, with why. */
export interface InvalidRow {
  line: number;
  name: string;
  email: string;
  error: CertificateServiceError;
}

export interface CsvRow {
  /** Line number in the file (the header is line 1). */
  line: number;
  name: string;
  email: string;
  data: Record<string, string>;
}

const shown = 10;

/** The header: `name` and `email` (any case) are required, every other column is a data field. */
function checkHeader(header: string[], file: string): string[] {
  const columns = header.map((h) => (['name', 'email'].includes(h.trim().toLowerCase()) ? h.trim().toLowerCase() : h.trim()));
  const missing = ['name', 'email'].filter((c) => !columns.includes(c));
  if (missing.length) throw new UsageError(`${file}, line 1: no ${missing.map((c) => `"${c}"`).join(' or ')} column (the header has: ${header.join(', ')}).`);
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice !== undefined) throw new UsageError(`${file}, line 1: the column "${twice}" appears twice.`);
  if (columns.includes('')) throw new UsageError(`${file}, line 1: a column has no name.`);
  return columns;
}

/**
 * Reads and checks every row before anything is sent; each problem names its line. Invalid rows
 * stop the run (nothing is sent) unless `skipInvalid`, which returns them beside the valid ones.
 */
export function readRows(file: string, skipInvalid = false): { rows: CsvRow[]; invalid: InvalidRow[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the CSV file ${file}: ${(error as Error).message}`);
  }
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parse(text, { columns: (header: string[]) => checkHeader(header, file), bom: true, skip_empty_lines: true, trim: true, info: true });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
  if (records.length === 0) throw new UsageError(`${file} has a header but no rows.`);

  const rows: CsvRow[] = [];
  const invalid: InvalidRow[] = [];
  for (const { record, info } of records) {
    const { name, email, ...rest } = record;
    // An empty cell sets no field, so a column used by some rows only leaves the others alone.
    const data = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== ''));
    try {
      rows.push({ line: info.lines, ...validateIssue({ name, email, data }) });
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      invalid.push({ line: info.lines, name: name ?? '', email: email ?? '', error });
    }
  }
  if (invalid.length && !skipInvalid) {
    const problems = invalid.map((r) => `line ${r.line}: ${r.error.message}`);
    const more = problems.length > shown ? `\n  … and ${problems.length - shown} more` : '';
    throw new UsageError(
      `${file} has ${problems.length} bad row${problems.length > 1 ? 's' : ''}; nothing was sent (--skip-invalid issues the others).\n  ${problems.slice(0, shown).join('\n  ')}${more}`,
    );
  }
  return { rows, invalid };
}

/** Rows whose email (any case) an earlier row already has: `[line, first line, email]`. */
export function repeatedEmails(rows: CsvRow[]): Array<[line: number, first: number, email: string]> {
  const first = new Map<string, number>();
  const out: Array<[number, number, string]> = [];
  for (const row of rows) {
    const key = row.email.trim().toLowerCase();
    const at = first.get(key);
    if (at === undefined) first.set(key, row.line);
    else out.push([row.line, at, row.email]);
  }
  return out;
}

export interface IssueSummary {
  issued: number;
  skipped: number;
  failed: number;
  /** Rows refused before sending (with --skip-invalid). */
  invalid: number;
  requests: number;
}

/** `certsvc issue`: every row of the CSV, in bulk calls of at most 100. Returns the exit code. */
export async function runIssue(flags: IssueFlags, connection: Connection, stdout: NodeJS.WritableStream, stderr: NodeJS.WriteStream): Promise<number> {
  const { rows, invalid } = readRows(flags.csv, flags.skipInvalid === true);
  if (rows.length === 0) throw new UsageError(`${flags.csv}: no valid row; nothing was sent.`);
  const repeats = repeatedEmails(rows);
  for (const [line, first, email] of repeats.slice(0, shown)) {
    stderr.write(
      flags.skipExisting
        ? `line ${line} repeats the email of line ${first} (${email}): issued once; line ${line} gets the same certificate.\n`
        : `line ${line} repeats the email of line ${first} (${email}): with --no-skip-existing it is issued twice.\n`,
    );
  }
  if (repeats.length > shown) stderr.write(`… and ${repeats.length - shown} more repeated emails.\n`);
  const { client } = connection;
  const bar = stderr.isTTY ? progressBar(stderr, { rate: () => client.rateLimit, waitingUntil: connection.waitingUntil }) : undefined;
  let outcomes: ItemOutcome[];
  try {
    const items = rows.map(({ name, email, data }) => ({ batchId: flags.batch, name, email, data, ...(flags.send ? { send: true } : {}) }));
    outcomes = await client.issueMany(items, { skipExisting: flags.skipExisting, onProgress: bar?.update });
  } finally {
    bar?.stop();
  }

  const failures = outcomes.flatMap((o, i) => (o.ok ? [] : [{ row: rows[i], error: o.error }]));
  const refused = invalid.map((r) => ({ row: { line: r.line, name: r.name, email: r.email, data: {} }, error: r.error }));
  // The batch could not be read (no such batch, a refused key, an answer the core cannot
  // read): nothing was sent, and one line says why better than one per row.
  const unread = failures[0]?.error.detail.unreadBatch !== undefined ? failures[0].error.cause : undefined;
  if (failures.length === rows.length && unread instanceof CertificateServiceError) throw unread;
  // Rows refused before sending (--skip-invalid) and rows that failed, in file order.
  const reported = [...refused, ...failures].sort((a, b) => a.row.line - b.row.line);
  if (flags.errors) {
    const records = reported.map(({ row, error }) => [row.line, row.name, row.email, error.code, error.message, error.outcomeUnknown]);
    fs.writeFileSync(flags.errors, stringify(records, { header: true, columns: ['line', 'name', 'email', 'code', 'message', 'outcomeUnknown'], cast: { boolean: (b) => String(b) } }));
  }
  if (reported.length && flags.errors) stderr.write(`${reported.length} row${reported.length > 1 ? 's' : ''} not issued; see ${flags.errors}.\n`);
  else if (reported.length) {
    for (const { row, error } of reported.slice(0, shown)) stderr.write(`line ${row.line} (${row.email}): ${error.message}\n`);
    if (reported.length > shown) stderr.write(`… and ${reported.length - shown} more (pass --errors <file> to get them all as CSV).\n`);
  }
  if (failures.some((f) => f.error.outcomeUnknown)) {
    stderr.write(
      flags.skipExisting
        ? 'Some rows have an unknown outcome (sent, but no reliable answer came back). Run the same command again: rows already in the batch are skipped, so none is issued twice.\n'
        : 'Some rows have an unknown outcome (sent, but no reliable answer came back). Check the batch before sending them again, or run again without --no-skip-existing.\n',
    );
  }

  const summary: IssueSummary = {
    issued: outcomes.filter((o) => o.ok && !o.skipped).length,
    skipped: outcomes.filter((o) => o.ok && o.skipped).length,
    failed: failures.length,
    invalid: refused.length,
    requests: connection.requests(),
  };
  stdout.write(`${JSON.stringify(summary)}\n`);
  return summary.failed || summary.invalid ? 1 : 0;
}
