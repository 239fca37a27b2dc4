// Outcome kinds: hosts switch on the union, and the compiler finds a kind a host forgot. This
// type-checks the core's outcome module and the hosts that switch on it with one kind added to
// the union (in memory, through the TypeScript compiler API), and expects the build to fail in
// each of them; without the addition it must type-check cleanly. The CLI and the MCP server
// report by `ok` and by the counts, so they are not among them.
import path from 'node:path';
import ts from 'typescript';
import { CertificateServiceError, countOutcomes, ISSUE_OUTCOME_KINDS, outcomeReport, type IssueOutcome, type Recipient } from '@certificate-service/sdk/core';

const ROOT = path.join(__dirname, '../..');
const OUTCOME = path.join(ROOT, 'shared/sdk/src/issue/outcome.ts');
const HOSTS = [
  'n8n/nodes/CertificateService/actions/certificate/issue.operation.ts',
  'zapier/src/creates/issue_certificate.ts',
  'zapier/src/creates/issue_certificates_bulk.ts',
].map((f) => path.join(ROOT, f));
const LAST_KIND = "  | { kind: 'unreadBatch'; ok: false; error: CertificateServiceError; batchId: string };";

const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
const options = { ...config.options, noEmit: true };
// Both programs share every parsed file but outcome.ts (the types of n8n-workflow and
// zapier-platform-core are most of the work).
const parsed = new Map<string, ts.SourceFile | undefined>();

/** The diagnostics of the outcome module and the hosts, with `outcome.ts` as `edit` makes it. */
function diagnostics(edit: (source: string) => string): Map<string, string[]> {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (file, language, ...rest) => {
    if (path.resolve(file) === OUTCOME) return ts.createSourceFile(file, edit(ts.sys.readFile(file)!), language);
    if (!parsed.has(file)) parsed.set(file, getSourceFile.call(host, file, language, ...rest));
    return parsed.get(file);
  };
  const program = ts.createProgram([OUTCOME, ...HOSTS], options, host);
  const out = new Map<string, string[]>();
  for (const file of [OUTCOME, ...HOSTS]) {
    out.set(path.relative(ROOT, file), program.getSemanticDiagnostics(program.getSourceFile(file)).map((d) => `TS${d.code}`));
  }
  return out;
}

test('a kind added to the union fails the build in the counts and in every host that switches on it', () => {
  const clean = diagnostics((source) => source);
  for (const [file, codes] of clean) expect([file, codes]).toEqual([file, []]);

  const added = diagnostics((source) => {
    expect(source).toContain(LAST_KIND);
    return source.replace(LAST_KIND, `${LAST_KIND.slice(0, -1)}\n  | { kind: 'forgotten'; ok: false; error: CertificateServiceError };`);
  });
  expect(Object.fromEntries(added)).toEqual({
    'shared/sdk/src/issue/outcome.ts': ['TS2741', 'TS2741'], // the counts' record and the tally's grouping lack the new kind
    'n8n/nodes/CertificateService/actions/certificate/issue.operation.ts': ['TS2366'], // the switch does not return for it
    'zapier/src/creates/issue_certificate.ts': ['TS2366'],
    'zapier/src/creates/issue_certificates_bulk.ts': ['TS2366'],
  });
}, 60_000);

test('every kind is counted, in the order hosts report them', () => {
  expect(ISSUE_OUTCOME_KINDS).toEqual(['issued', 'skipped', 'invalid', 'failed', 'unknown', 'notSent', 'refusedEarlier', 'unreadBatch']);
  expect(countOutcomes([])).toEqual({ issued: 0, skipped: 0, invalid: 0, failed: 0, unknown: 0, notSent: 0, refusedEarlier: 0, unreadBatch: 0, total: 0 });
});

test('the one report every host prints: held-over refusals and unread batches count as failed, a stopped run as not sent', () => {
  const error = (code: string, message: string) => new CertificateServiceError({ code, phase: 'validation', message });
  const recipient = { id: 'r', name: 'A', email: 'a@example.com', certificateId: 'c' } as Recipient;
  const outcomes: IssueOutcome[] = [
    { kind: 'issued', ok: true, recipient },
    { kind: 'skipped', ok: true, recipient, reason: 'inBatch' },
    { kind: 'invalid', ok: false, error: error('VALIDATION_ERROR', 'bad email') },
    { kind: 'failed', ok: false, error: error('BATCH_ARCHIVED', 'archived') },
    { kind: 'refusedEarlier', ok: false, error: error('BATCH_ARCHIVED', 'held'), because: 3 },
    { kind: 'unreadBatch', ok: false, error: error('UNKNOWN', 'unread'), batchId: 'b' },
    { kind: 'unknown', ok: false, error: error('UNKNOWN', 'no answer') },
    { kind: 'notSent', ok: false, error: error('NOT_SENT', 'stopped'), reason: 'cancelled' },
  ];
  const report = outcomeReport(outcomes);
  expect(report.counts).toEqual(countOutcomes(outcomes));
  expect(report.tally).toEqual({ total: 8, issued: 1, skipped: 1, invalid: 1, failed: 3, unknown: 1, notSent: 1 });
  expect(report.notIssued).toBe(6);
  expect(report.problems.map((p) => p.items)).toEqual([[2], [3], [4], [5], [6], [7]]);
  expect(report.sentence).toBe('Of 8 items, 1 certificate was issued, 1 skipped (already issued), 1 invalid, 3 failed, 1 with an unknown outcome and 1 not sent.');
});
