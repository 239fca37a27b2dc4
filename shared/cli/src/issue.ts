import { CertificateServiceError, fileInFlightMarkers, lineList, outcomeReport, type DesignVariable, type IssueOutcome, type OutcomeReport, type OutcomeTally, UsageError } from '@certificate-service/sdk';
import type { Context } from './command';
import type { CsvRow } from './csv-rows';
import { writeErrors } from './errors-file';
import { invalidReason, readIssueInput, unknownColumnsNote, type IssueInputFlags } from './issue-input';
import { progressBar } from './progress';
import { resultsFile } from './results-file';

/** File names resolved from the user's folder (main.ts). */
export interface IssueFlags extends IssueInputFlags {
  /** The rows not issued, with why, as CSV (errors-file.ts). */
  errors?: string;
  /** One CSV row per input row with its outcome and certificate, written as the run goes. */
  out?: string;
  /** false (`--no-bom`): the CSV files written start without a UTF-8 byte-order mark (csv-write.ts). */
  bom?: boolean;
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

/**
 * What `certsvc issue` prints on stdout, one JSON line: the core's tally (each row counted once;
 * `invalid` only with --skip-invalid, `notSent` after Ctrl-C) and the HTTP requests sent.
 */
export type IssueSummary = Omit<OutcomeTally, 'total'> & { requests: number };

/** The core's tally, keys in this order (scripts read them), plus the request count. */
function summary({ tally: t }: OutcomeReport, requests: number): IssueSummary {
  return { issued: t.issued, skipped: t.skipped, invalid: t.invalid, failed: t.failed, unknown: t.unknown, notSent: t.notSent, requests };
}

/** The rows' lines in the CSV file, as the core names them (`lines 3-5`). */
const linesOf = (rows: CsvRow[], items: number[]) => lineList(items.map((i) => rows[i].line));

/**
 * Why a row got no certificate, in the CLI's words, for --errors: a bad row as stderr says it, a
 * row held back by naming the line that held it. Never starting with the row's email: it has its
 * own column, and may start with a character a spreadsheet runs (`=1+2@example.org`).
 */
function reasons(rows: CsvRow[], variables: readonly DesignVariable[]) {
  return (o: Extract<IssueOutcome, { ok: false }>, i: number): string => {
    if (o.kind === 'invalid') return invalidReason(o, variables);
    if (o.kind === 'notSent' && o.reason === 'stopOnInvalid' && o.because !== undefined) return `not sent: line ${rows[o.because].line} is invalid, and nothing is sent while a row is invalid (--skip-invalid issues the others)`;
    const own = `${rows[i].email}: `;
    return o.error.message.startsWith(own) ? o.error.message.slice(own.length) : o.error.message;
  };
}

/** A row whose call was in flight when the run was ended: it may still be issued. */
function interruptedInFlight(): IssueOutcome {
  const error = new CertificateServiceError({ code: 'UNKNOWN', phase: 'request', outcomeUnknown: true, message: 'its call was in flight when certsvc was stopped; the service may still issue it.' });
  return { kind: 'unknown', ok: false, error };
}

/** A row no call had carried yet when certsvc was quit. */
function neverSent(): IssueOutcome {
  const error = new CertificateServiceError({ code: 'NOT_SENT', phase: 'validation', message: 'not sent, because certsvc was stopped first.' });
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
export async function runIssue(flags: IssueFlags, context: Context, interrupts: Interrupts = processInterrupts): Promise<number> {
  const { connection, io } = context;
  const { stdout, stderr } = io;
  const { client } = connection;
  // Emails in flight in another certsvc (or MCP server) on this machine, even one quit with a
  // second Ctrl-C, are waited for rather than issued again: markers in the state folder, which is
  // checked here, before any request (a folder another user could change, or one this user cannot
  // write, is an error naming it and the fix). Only skip-existing holds emails.
  const markers = flags.skipExisting === false ? undefined : fileInFlightMarkers({ env: io.env });
  const bar = stderr.isTTY ? progressBar(stderr, { rate: () => client.rateLimit, waitingUntil: connection.waitingUntil }) : undefined;
  // Every message goes through the bar (when there is one), so it starts on a fresh line.
  const say = (text: string) => (bar ? bar.say(text) : void stderr.write(text));
  bar?.doing('reading the batch');
  let input;
  try {
    input = await readIssueInput(flags, connection, say);
  } catch (error) {
    bar?.stop();
    throw error;
  }
  const { rows, items } = input;
  const bom = flags.bom !== false;
  const variables = input.variables.get(flags.batch) ?? [];
  const errorsFile = flags.errors;
  const errors = (outcomes: Array<IssueOutcome | undefined>) => (errorsFile ? writeErrors(errorsFile, rows, input.columns, outcomes, reasons(rows, variables), bom) : 0);
  const out = flags.out === undefined ? undefined : resultsFile(flags.out, rows, bom);
  const known: Array<IssueOutcome | undefined> = new Array(rows.length);
  let done = 0; // rows with an outcome other than "not sent": what the bar shows, also after a Ctrl-C
  let inFlight: number[] = [];
  const stop = new AbortController();
  bar?.update(0, rows.length);

  const onInterrupt = () => {
    if (!stop.signal.aborted) {
      stop.abort();
      say('Stopping: the call in flight finishes, nothing more is sent (Ctrl-C again to quit at once).\n');
      bar?.doing('stopping');
      return;
    }
    // The second Ctrl-C: leave now, saying what may still happen.
    bar?.stop('quit');
    const unsettled: Array<[number, IssueOutcome]> = [];
    for (const i of inFlight) if (!known[i]) unsettled.push([i, (known[i] = interruptedInFlight())]);
    for (let i = 0; i < rows.length; i++) if (!known[i]) unsettled.push([i, (known[i] = neverSent())]);
    out?.add(unsettled);
    const where = errorsFile ? `; they are in ${errorsFile} as "unknown"` : '';
    errors(known);
    if (inFlight.length) {
      stderr.write(
        `Quit while the call for ${linesOf(rows, inFlight)} was in flight${where}. The service may still finish that call: wait a minute, then run the same command again; rows it issued by then are skipped.\n`,
      );
    }
    if (out) stderr.write(`Results so far: ${flags.out}\n`);
    interrupts.exit(INTERRUPTED);
  };
  interrupts.on('SIGINT', onInterrupt);

  let outcomes: IssueOutcome[];
  try {
    outcomes = await client.issueMany(items, {
      skipExisting: flags.skipExisting,
      // Without --skip-invalid, one bad row sends nothing.
      stopOnInvalid: flags.skipInvalid !== true,
      allowUnknownVariables: flags.allowUnknownColumns === true,
      // The design's variables as read once above: the check runs on them, and reads nothing more.
      variables: input.variables,
      inFlight: markers,
      signal: stop.signal,
      onCall: (indexes) => {
        inFlight = indexes;
        bar?.doing(`sending ${indexes.length} row${indexes.length === 1 ? '' : 's'}`);
      },
      onOutcomes: (settled) => {
        for (const [i, o] of settled) {
          if (!known[i] && o.kind !== 'notSent') done++;
          known[i] = o;
        }
        out?.add(settled);
        if (settled.some(([i]) => inFlight.includes(i))) inFlight = [];
        bar?.doing(undefined);
        bar?.update(done, rows.length);
      },
    });
  } finally {
    interrupts.off('SIGINT', onInterrupt);
    bar?.stop(stop.signal.aborted ? 'stopped' : undefined);
  }

  const invalid = outcomes.flatMap((o, i) => (o.kind === 'invalid' ? [`line ${rows[i].line}: ${invalidReason(o, variables)}`] : []));
  if (invalid.length && flags.skipInvalid !== true) {
    // Every bad row at once (the core's plan decided each), and the files say it too.
    const more = invalid.length > shown ? `\n  … and ${invalid.length - shown} more` : '';
    const n = errors(outcomes);
    if (errorsFile) stderr.write(`${n} row${n > 1 ? 's' : ''} not issued, each with why: ${errorsFile}\n`);
    if (out) stderr.write(`Every row, none sent: ${flags.out}\n`);
    const note = unknownColumnsNote(outcomes);
    throw new UsageError(`${input.csv} has ${invalid.length} bad row${invalid.length > 1 ? 's' : ''}; nothing was sent (--skip-invalid issues the others).\n  ${invalid.slice(0, shown).join('\n  ')}${more}${note ? `\n${note}` : ''}`);
  }
  for (const line of invalid.slice(0, shown)) stderr.write(`${line} (not sent)\n`);
  if (invalid.length > shown) stderr.write(`… and ${invalid.length - shown} more invalid rows.\n`);
  const note = unknownColumnsNote(outcomes);
  if (note) stderr.write(`${note}\n`);
  // One reason for every row and nothing issued (the batch could not be read, a refused key):
  // said once, as the command's error.
  const report = outcomeReport(outcomes);
  const problems = report.problems.filter((p) => p.kind !== 'invalid');
  const only = problems.length === 1 && problems[0].items.length === rows.length ? outcomes[0] : undefined;
  if (only?.kind === 'unreadBatch' && only.error.cause instanceof CertificateServiceError) throw only.error.cause;

  if (errorsFile) {
    const n = errors(outcomes);
    if (n) stderr.write(`${n} row${n > 1 ? 's' : ''} not issued; see ${errorsFile}\n`);
  } else {
    for (const p of problems.slice(0, shown)) stderr.write(`${linesOf(rows, p.items)}: ${p.message}\n`);
    if (problems.length > shown) stderr.write(`… and ${problems.length - shown} more (pass --errors <file> to get every row as CSV).\n`);
  }
  if (out) stderr.write(`Every row with its certificate: ${flags.out}\n`);
  if (report.tally.unknown) {
    stderr.write(
      flags.skipExisting
        ? 'Some rows have an unknown outcome (sent, but no reliable answer came back). Run the same command again: rows already in the batch are skipped, so none is issued twice.\n'
        : 'Some rows have an unknown outcome (sent, but no reliable answer came back). Check the batch before sending them again, or run again without --no-skip-existing.\n',
    );
  }
  const result = summary(report, connection.requests());
  stdout.write(`${JSON.stringify(result)}\n`);
  if (stop.signal.aborted) {
    const again = flags.skipExisting ? 'Run the same command again to issue them (rows already issued are skipped).' : 'Run again without --no-skip-existing to issue only them.';
    stderr.write(`Stopped: ${result.notSent} row${result.notSent === 1 ? '' : 's'} not sent. ${again}\n`);
    return INTERRUPTED;
  }
  return result.failed || result.invalid || result.unknown ? 1 : 0;
}
