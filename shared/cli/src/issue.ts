import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { CertificateServiceError, countOutcomes, emailKey, outcomeProblems, type IssueItem, type IssueOutcome } from '@certificate-service/sdk';
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

/** One CSV row as read: the core's issue plan checks it. */
export interface CsvRow {
  /** Line number in the file (the header is line 1). */
  line: number;
  name: string;
  email: string;
  data: Record<string, string>;
}

/** Where Ctrl-C comes from (the process; a fake in tests), and how the second one ends the run. */
export interface Interrupts {
  on(event: 'SIGINT', listener: () => void): unknown;
  off(event: 'SIGINT', listener: () => void): unknown;
  exit(code: number): void;
}

const processInterrupts: Interrupts = {
  on: (event, listener) => process.on(event, listener),
  off: (event, listener) => process.off(event, listener),
  exit: (code) => process.exit(code),
};

/** Exit code after Ctrl-C (128 + SIGINT), as shells expect. */
export const INTERRUPTED = 130;
const shown = 10;

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

/** Reads the rows; the file's own problems (no header, a bad column, a broken line) name their line. */
export function readRows(file: string): CsvRow[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the CSV file ${file}: ${(error as Error).message}`);
  }
  if (!text.replace(/^\uFEFF/, '').trim()) throw new UsageError(`${file} is empty: give a header row (name,email and any variables) and one row per certificate.`);
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parse(text, { columns: (header: string[]) => checkHeader(header, file), bom: true, skip_empty_lines: true, trim: true, info: true });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
  if (records.length === 0) throw new UsageError(`${file} has a header but no rows.`);
  return records.map(({ record, info }) => {
    const { name, email, ...rest } = record;
    // An empty cell sets no field, so a column used by some rows only leaves the others alone.
    return { line: info.lines, name: name ?? '', email: email ?? '', data: Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== '')) };
  });
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

/** What `certsvc issue` prints on stdout, one JSON line; each row is counted once. */
export interface IssueSummary {
  issued: number;
  skipped: number;
  /** Refused before sending (with --skip-invalid). */
  invalid: number;
  /** Refused by the service, or held back because of a refusal or an unreadable batch. */
  failed: number;
  /** Sent, and no readable answer: check, or run the same command again (rows already issued are skipped). */
  unknown: number;
  /** Never sent, because the run was stopped (Ctrl-C). */
  notSent: number;
  requests: number;
}

function summary(outcomes: IssueOutcome[], requests: number): IssueSummary {
  const c = countOutcomes(outcomes);
  return { issued: c.issued, skipped: c.skipped, invalid: c.invalid, failed: c.failed + c.refusedEarlier + c.unreadBatch, unknown: c.unknown, notSent: c.notSent, requests };
}

function lineList(rows: CsvRow[], items: number[]): string {
  const lines = items.map((i) => rows[i].line);
  if (lines.length === 1) return `line ${lines[0]}`;
  const contiguous = lines.every((l, k) => k === 0 || l === lines[k - 1] + 1);
  if (contiguous) return `lines ${lines[0]}-${lines.at(-1)}`;
  return `${lines.length} lines (${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''})`;
}

/** The rows that did not get a certificate, one CSV line each, in file order. */
function writeErrors(file: string, rows: CsvRow[], outcomes: Array<IssueOutcome | undefined>): number {
  const records = outcomes.flatMap((o, i) => (o && !o.ok ? [[rows[i].line, rows[i].name, rows[i].email, o.kind, o.error.code, o.error.message, o.error.outcomeUnknown]] : []));
  const columns = ['line', 'name', 'email', 'outcome', 'code', 'message', 'outcomeUnknown'];
  fs.writeFileSync(file, stringify(records, { header: true, columns, cast: { boolean: (b) => String(b) } }));
  return records.length;
}

/** A row whose call was in flight when the run was ended: it may still be issued. */
function interruptedInFlight(row: CsvRow): IssueOutcome {
  const error = new CertificateServiceError({
    code: 'UNKNOWN',
    phase: 'request',
    outcomeUnknown: true,
    message: `${row.email}: its call was in flight when certsvc was stopped; the service may still issue it.`,
  });
  return { kind: 'unknown', ok: false, error };
}

/** A row no call had carried yet when certsvc was quit. */
function neverSent(row: CsvRow): IssueOutcome {
  const error = new CertificateServiceError({ code: 'NOT_SENT', phase: 'validation', message: `${row.email}: not sent, because certsvc was stopped first.` });
  return { kind: 'notSent', ok: false, reason: 'cancelled', error };
}

/**
 * `certsvc issue`: every row of the CSV through the core's issue plan (skip-existing on unless
 * --no-skip-existing), in bulk calls of at most 100. Returns the exit code.
 *
 * Ctrl-C once: the call in flight finishes, nothing more is sent, the outcomes so far are written
 * (stdout, --errors) and the exit code is 130; running the same command again issues the rest.
 * Ctrl-C twice: it exits at once; the rows of the call in flight are written as `unknown`, since
 * the service may still finish that call.
 */
export async function runIssue(flags: IssueFlags, connection: Connection, stdout: NodeJS.WritableStream, stderr: NodeJS.WriteStream, interrupts: Interrupts = processInterrupts): Promise<number> {
  const rows = readRows(flags.csv);
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
  const items: IssueItem[] = rows.map(({ name, email, data }) => ({ batchId: flags.batch, name, email, data, ...(flags.send ? { send: true } : {}) }));
  const known: Array<IssueOutcome | undefined> = new Array(rows.length);
  let inFlight: number[] = [];
  const stop = new AbortController();
  const bar = stderr.isTTY ? progressBar(stderr, { rate: () => client.rateLimit, waitingUntil: connection.waitingUntil }) : undefined;

  const onInterrupt = () => {
    if (!stop.signal.aborted) {
      stop.abort();
      bar?.stop();
      stderr.write('Stopping: the call in flight finishes, nothing more is sent (Ctrl-C again to quit at once).\n');
      return;
    }
    // The second Ctrl-C: leave now, saying what may still happen.
    for (const i of inFlight) if (!known[i]) known[i] = interruptedInFlight(rows[i]);
    for (let i = 0; i < rows.length; i++) known[i] ??= neverSent(rows[i]);
    const where = flags.errors ? `; they are in ${flags.errors} as "unknown"` : '';
    if (flags.errors) writeErrors(flags.errors, rows, known);
    if (inFlight.length) {
      stderr.write(
        `Quit while the call for ${lineList(rows, inFlight)} was in flight${where}. The service may still finish that call: wait a minute, then run the same command again; rows it issued by then are skipped.\n`,
      );
    }
    interrupts.exit(INTERRUPTED);
  };
  interrupts.on('SIGINT', onInterrupt);

  let outcomes: IssueOutcome[];
  try {
    outcomes = await client.issueMany(items, {
      skipExisting: flags.skipExisting,
      // Without --skip-invalid, one bad row sends nothing (and reads nothing).
      stopOnInvalid: flags.skipInvalid !== true,
      signal: stop.signal,
      onProgress: bar?.update,
      onCall: (indexes) => (inFlight = indexes),
      onOutcomes: (settled) => {
        for (const [i, o] of settled) known[i] = o;
        if (settled.some(([i]) => inFlight.includes(i))) inFlight = [];
      },
    });
  } finally {
    interrupts.off('SIGINT', onInterrupt);
    if (!stop.signal.aborted) bar?.stop();
  }

  const invalid = outcomes.flatMap((o, i) => (o.kind === 'invalid' ? [`line ${rows[i].line}: ${o.error.message}`] : []));
  if (invalid.length && flags.skipInvalid !== true) {
    const more = invalid.length > shown ? `\n  … and ${invalid.length - shown} more` : '';
    throw new UsageError(`${flags.csv} has ${invalid.length} bad row${invalid.length > 1 ? 's' : ''}; nothing was sent (--skip-invalid issues the others).\n  ${invalid.slice(0, shown).join('\n  ')}${more}`);
  }
  // One reason for every row and nothing issued (the batch could not be read, a refused key):
  // said once, as the command's error.
  const problems = outcomeProblems(outcomes);
  const c = countOutcomes(outcomes);
  const only = problems.length === 1 && problems[0].items.length === rows.length ? outcomes[0] : undefined;
  if (only?.kind === 'unreadBatch' && only.error.cause instanceof CertificateServiceError) throw only.error.cause;

  if (flags.errors) {
    const n = writeErrors(flags.errors, rows, outcomes);
    if (n) stderr.write(`${n} row${n > 1 ? 's' : ''} not issued; see ${flags.errors}.\n`);
  } else {
    for (const p of problems.slice(0, shown)) stderr.write(`${lineList(rows, p.items)}: ${p.message}\n`);
    if (problems.length > shown) stderr.write(`… and ${problems.length - shown} more (pass --errors <file> to get every row as CSV).\n`);
  }
  if (c.unknown) {
    stderr.write(
      flags.skipExisting
        ? 'Some rows have an unknown outcome (sent, but no reliable answer came back). Run the same command again: rows already in the batch are skipped, so none is issued twice.\n'
        : 'Some rows have an unknown outcome (sent, but no reliable answer came back). Check the batch before sending them again, or run again without --no-skip-existing.\n',
    );
  }
  const result = summary(outcomes, connection.requests());
  stdout.write(`${JSON.stringify(result)}\n`);
  if (stop.signal.aborted) {
    const again = flags.skipExisting ? 'Run the same command again to issue them (rows already issued are skipped).' : 'Run again without --no-skip-existing to issue only them.';
    stderr.write(`Stopped: ${result.notSent} row${result.notSent === 1 ? '' : 's'} not sent. ${again}\n`);
    return INTERRUPTED;
  }
  return result.failed || result.invalid || result.unknown ? 1 : 0;
}
