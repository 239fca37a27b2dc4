import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { ItemOutcome } from '../bulk';
import { CertificateServiceError } from '../errors';
import { validateIssue } from '../validation';
import type { Connection } from './connect';
import { progressBar } from './progress';
import { UsageError } from './usage-error';

export interface IssueFlags {
  batch: string;
  csv: string;
  send?: boolean;
  skipExisting: boolean;
  errors?: string;
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

/** Reads and checks every row before anything is sent; each problem names its line. */
export function readRows(file: string): CsvRow[] {
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
  const problems: string[] = [];
  for (const { record, info } of records) {
    const { name, email, ...rest } = record;
    // An empty cell sets no field, so a column used by some rows only leaves the others alone.
    const data = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== ''));
    try {
      rows.push({ line: info.lines, ...validateIssue({ name, email, data }) });
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      problems.push(`line ${info.lines}: ${error.message}`);
    }
  }
  if (problems.length) {
    const more = problems.length > shown ? `\n  … and ${problems.length - shown} more` : '';
    throw new UsageError(`${file} has ${problems.length} bad row${problems.length > 1 ? 's' : ''}; nothing was sent.\n  ${problems.slice(0, shown).join('\n  ')}${more}`);
  }
  return rows;
}

export interface IssueSummary {
  issued: number;
  skipped: number;
  failed: number;
  requests: number;
}

/** `certsvc issue`: every row of the CSV, in bulk calls of at most 100. Returns the exit code. */
export async function runIssue(flags: IssueFlags, connection: Connection, stdout: NodeJS.WritableStream, stderr: NodeJS.WriteStream): Promise<number> {
  const rows = readRows(flags.csv);
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
  // The batch could not be read (no such batch, a refused key, an answer the core cannot
  // read): nothing was sent, and one line says why better than one per row.
  const unread = failures[0]?.error.detail.unreadBatch !== undefined ? failures[0].error.cause : undefined;
  if (failures.length === rows.length && unread instanceof CertificateServiceError) throw unread;
  if (flags.errors) {
    const records = failures.map(({ row, error }) => [row.line, row.name, row.email, error.code, error.message, error.outcomeUnknown]);
    fs.writeFileSync(flags.errors, stringify(records, { header: true, columns: ['line', 'name', 'email', 'code', 'message', 'outcomeUnknown'] }));
  }
  if (failures.length && flags.errors) stderr.write(`${failures.length} row${failures.length > 1 ? 's' : ''} failed; see ${flags.errors}.\n`);
  else if (failures.length) {
    for (const { row, error } of failures.slice(0, shown)) stderr.write(`line ${row.line} (${row.email}): ${error.message}\n`);
    if (failures.length > shown) stderr.write(`… and ${failures.length - shown} more (pass --errors <file> to get them all as CSV).\n`);
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
    requests: connection.requests(),
  };
  stdout.write(`${JSON.stringify(summary)}\n`);
  return summary.failed ? 1 : 0;
}
