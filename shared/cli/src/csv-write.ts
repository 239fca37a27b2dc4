import { stringify } from 'csv-stringify/sync';

/**
 * Every CSV certsvc writes is made here, because it is opened in a spreadsheet (docs/design/cli.md):
 *
 * - A cell a spreadsheet would run as a formula gets a leading `'`, so it is shown as text (OWASP,
 *   "CSV Injection"): csv-stringify's `escape_formulas` does this for `=`, `+`, `-`, `@`, tab and
 *   CR (and their full-width forms); a leading LF or NUL gets it here (OWASP's current list, ASVS
 *   5.0 1.2.10). A negative number (`-5`, `-0.25`) is written as it is: it calls and references
 *   nothing, and a spreadsheet then reads the number.
 * - A UTF-8 byte-order mark starts the file unless `bom` is false (`--no-bom`): without it, Excel's
 *   default import reads the bytes in the system's code page ("José" becomes "JosÃ©").
 *
 * Booleans are written `true`/`false` (csv-stringify's own are `1` and empty).
 */
export function toCsv(records: unknown[][], options: { columns?: string[]; bom: boolean }): string {
  return stringify(records, {
    ...(options.columns ? { header: true, columns: options.columns } : {}),
    bom: options.bom,
    escape_formulas: true,
    cast: {
      boolean: (b) => String(b),
      string: (s) => (NEGATIVE_NUMBER.test(s) ? { value: s, escape_formulas: false } : /^[\n\0]/.test(s) ? `'${s}` : s),
    },
  });
}

const NEGATIVE_NUMBER = /^-\d+(\.\d+)?$/;

/**
 * A cell certsvc guarded, back as it was: the `'` before a formula character is dropped, so an
 * --errors file fixed in a spreadsheet (which shows the `'` and saves it) reads as input again.
 */
export function unguard(cell: string): string {
  return /^'[=+\-@\t\r\n\0\uFF1D\uFF0B\uFF0D\uFF20]/.test(cell) ? cell.slice(1) : cell;
}
