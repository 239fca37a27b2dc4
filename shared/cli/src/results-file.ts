import fs from 'node:fs';
import type { IssueOutcome } from '@certificate-service/sdk';
import type { CsvRow } from './csv-rows';
import { toCsv } from './csv-write';

const COLUMNS = ['line', 'name', 'email', 'outcome', 'certificateId', 'certUrl', 'shareToken'];

/**
 * `--out`: one CSV row per input row (line, name, email, outcome and, for an issued or skipped
 * row, its certificate's ID, URL and share token: what a mail merge needs). Each outcome is
 * appended as soon as it is known, so after a Ctrl-C (or a crash) the file is true up to there.
 * Rows appear in the order their outcomes settle; `line` gives the CSV order back. The
 * byte-order mark (`bom`) is written once, before the header.
 */
export function resultsFile(file: string, rows: readonly CsvRow[], bom: boolean) {
  fs.writeFileSync(file, toCsv([], { columns: COLUMNS, bom }));
  const written = new Set<number>();
  return {
    /** Appends the rows not written yet (a row's first outcome is its last one). */
    add(settled: ReadonlyArray<readonly [index: number, outcome: IssueOutcome]>) {
      const records = settled.flatMap(([i, o]) => {
        if (written.has(i)) return [];
        written.add(i);
        const r = o.ok ? o.recipient : undefined;
        return [[rows[i].line, rows[i].name, rows[i].email, o.kind, r?.certificateId ?? '', r?.certUrl ?? '', r?.shareToken ?? '']];
      });
      if (records.length) fs.appendFileSync(file, toCsv(records, { bom: false }));
    },
    get count() {
      return written.size;
    },
  };
}
