import fs from 'node:fs';
import type { IssueOutcome } from '@certificate-service/sdk';
import type { CsvRow } from './csv-rows';
import { toCsv } from './csv-write';

type NotIssued = Extract<IssueOutcome, { ok: false }>;

/** What an --errors file says of each row after the row itself. */
export const REPORT_COLUMNS = ['outcome', 'code', 'message', 'outcomeUnknown'] as const;

/**
 * `--errors`: each row that got no certificate, in file order, as it was read (`line`, then `name`,
 * `email` and its data columns under the variable each fills), then why (`outcome`, `code`,
 * `message`, `outcomeUnknown`). Fixed, the file is an input again (`--csv`): read back, `line`
 * and the report columns are not data (see `isErrorsFile`). `why` gives each row's message.
 */
export function writeErrors(
  file: string,
  rows: readonly CsvRow[],
  columns: readonly string[],
  outcomes: ReadonlyArray<IssueOutcome | undefined>,
  why: (outcome: NotIssued, index: number) => string,
  bom: boolean,
): number {
  const records = outcomes.flatMap((o, i) => {
    if (!o || o.ok) return [];
    const { line, name, email, data } = rows[i];
    return [[line, name, email, ...columns.map((c) => (Object.hasOwn(data, c) ? data[c] : '')), o.kind, o.error.code, why(o, i), o.error.outcomeUnknown]];
  });
  fs.writeFileSync(file, toCsv(records, { columns: ['line', 'name', 'email', ...columns, ...REPORT_COLUMNS], bom }));
  return records.length;
}

/** A header as `writeErrors` writes it: `line` first, the report columns last. */
export function isErrorsFile(header: readonly string[]): boolean {
  const tail = header.slice(-REPORT_COLUMNS.length).map((h) => h.trim());
  return header.length >= 3 + REPORT_COLUMNS.length && header[0].trim() === 'line' && REPORT_COLUMNS.every((c, k) => tail[k] === c);
}
