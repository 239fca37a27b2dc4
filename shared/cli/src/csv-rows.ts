import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { emailKey, UsageError } from '@certificate-service/sdk';
import { unguard } from './csv-write';
import { isErrorsFile, REPORT_COLUMNS } from './errors-file';

/** One CSV row as read: the core's issue plan checks it. */
export interface CsvRow {
  /** Line number in the file (the header is line 1). */
  line: number;
  name: string;
  email: string;
  data: Record<string, string>;
}

/** The header: `name` and `email` (any case) are required, every other column is a data field. */
function checkHeader(header: string[], file: string): string[] {
  const columns = header.map((h) => (['name', 'email'].includes(h.trim().toLowerCase()) ? h.trim().toLowerCase() : h.trim()));
  const missing = ['name', 'email'].filter((c) => !columns.includes(c));
  if (missing.length) {
    const semicolons = header.length === 1 && header[0].includes(';') ? ' It looks separated by semicolons: certsvc reads comma-separated files (export "CSV (comma delimited)").' : '';
    throw new UsageError(`${file}, line 1: no ${missing.map((c) => `"${c}"`).join(' or ')} column (the header has: ${header.join(', ')}).${semicolons}`);
  }
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice !== undefined) throw new UsageError(`${file}, line 1: the column "${twice}" appears twice.`);
  if (columns.includes('')) throw new UsageError(`${file}, line 1: a column has no name.`);
  return columns;
}

export interface CsvFile {
  /** The data columns (every column but name and email), trimmed, as in the header. */
  columns: string[];
  rows: CsvRow[];
  /** An --errors file read back: its `line` and report columns were left out (errors-file.ts). */
  errorsFile: boolean;
}

/**
 * Reads the rows; the file's own problems (no header, a bad column, a broken line) name their line.
 * A byte-order mark is skipped, and a cell certsvc guarded against spreadsheet formulas (`'=…`,
 * csv-write.ts) reads as it was.
 */
export function readRows(file: string): CsvFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the CSV file ${file}: ${(error as Error).message}`);
  }
  if (!text.replace(/^\uFEFF/, '').trim()) throw new UsageError(`${file} is empty: give a header row (name,email and any variables) and one row per certificate.`);
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  let columns: string[] = [];
  let errorsFile = false;
  // An --errors file's `line` and report columns are its report: csv-parse skips a column given as `false`.
  const header = (h: string[]): Array<string | false> => {
    errorsFile = isErrorsFile(h);
    if (!errorsFile) return (columns = checkHeader(h, file));
    columns = checkHeader(h.slice(1, -REPORT_COLUMNS.length), file);
    return [false, ...columns, ...REPORT_COLUMNS.map(() => false as const)];
  };
  try {
    records = parse(text, { columns: header, bom: true, skip_empty_lines: true, trim: true, info: true, cast: (cell) => unguard(cell) });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
  if (records.length === 0) throw new UsageError(`${file} has a header but no rows.`);
  const rows = records.map(({ record, info }) => {
    const { name, email, ...rest } = record;
    // An empty cell sets no field, so a column used by some rows only leaves the others alone.
    return { line: info.lines, name: name ?? '', email: email ?? '', data: Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== '')) };
  });
  return { columns: columns.filter((c) => c !== 'name' && c !== 'email'), rows, errorsFile };
}

/** Each row's data keyed by the variable its column fills (see columns.ts). */
export function renameColumns(rows: CsvRow[], rename: ReadonlyMap<string, string>): CsvRow[] {
  if (![...rename].some(([from, to]) => from !== to)) return rows;
  return rows.map((row) => ({ ...row, data: Object.fromEntries(Object.entries(row.data).map(([k, v]) => [rename.get(k) ?? k, v])) }));
}

/** Rows whose email (any case) an earlier row already has: `[line, first line, email]`. */
export function repeatedEmails(rows: CsvRow[]): Array<[line: number, first: number, email: string]> {
  const first = new Map<string, number>();
  const out: Array<[number, number, string]> = [];
  for (const row of rows) {
    const key = emailKey(row.email);
    const at = first.get(key);
    if (at === undefined) first.set(key, row.line);
    else out.push([row.line, at, row.email]);
  }
  return out;
}

