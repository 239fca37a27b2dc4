// `certsvc` (run in this process, test/support/cli.ts) against an in-process sandbox: a 250-row
// CSV issued in 3 bulk calls, the second run skipping all 250; bad input refused before any
// request, a bad row before any write; failed rows in --errors; exit codes 0/1/2; the API key never
// printed. On a terminal: terminal.process.test.ts; a base URL where nothing answers:
// network.test.ts; what the written CSV files hold: csv-files.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { CertificateServiceError, createClient, signPayload } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { runCli, type CliRun } from '../support/cli';
import { sentEmails, startStub } from '../sdk/stub-service';

jest.setTimeout(60_000);

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await createSandbox({ timeScale: 0.001 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-'));
}, 120_000);
afterAll(async () => {
  await sb.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI with the sandbox's URL, and `env`, as its whole environment. */
const certsvc = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> => runCli(args, { CERTSVC_BASE_URL: sb.baseUrl, ...env });

const lastLine = (text: string) => JSON.parse(text.trim().split('\n').pop()!);
const writeCsv = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `Learner ${from + i},learner${from + i}@example.com,Course ${i % 3},${i}`);
const routes = () => sb.controls.counters().requests.byRoute;
const count = (pattern: RegExp) => Object.entries(routes()).filter(([r]) => pattern.test(r)).reduce((n, [, c]) => n + c, 0);
const BULK = /^POST .*\/recipients\/bulk$/;

async function workspace(design = 'design_classic') {
  const ws = sb.controls.createWorkspace({ quota: 10_000 });
  const created = await certsvc(['batches', 'create', '--title', 'CLI', '--design', design], { CERTSVC_API_KEY: ws.apiKey });
  expect(created.code).toBe(0);
  return { ...ws, batchId: JSON.parse(created.stdout).id as string };
}

test('issue: 250 rows in 3 bulk calls; the second run issues 0 and skips 250', async () => {
  const ws = await workspace();
  const csv = writeCsv('250.csv', ['name,email,course,score', ...rows(250)].join('\n'));
  sb.controls.resetCounters();

  const first = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(first.code).toBe(0);
  // The batch and its design read once (2), one read of the (empty) batch for skip-existing, then 3 bulk calls of 100, 100, 50.
  expect(lastLine(first.stdout)).toEqual({ issued: 250, skipped: 0, failed: 0, invalid: 0, requests: 6, unknown: 0, notSent: 0 });
  expect(count(BULK)).toBe(3);
  expect(sb.controls.counters().requests.total).toBe(6);
  expect(sb.controls.quota(ws.workspaceId).used).toBe(250);

  sb.controls.resetCounters();
  const second = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(second.code).toBe(0);
  expect(lastLine(second.stdout)).toEqual({ issued: 0, skipped: 250, failed: 0, invalid: 0, requests: 5, unknown: 0, notSent: 0 });
  expect(count(/^POST/)).toBe(0);
  expect(sb.controls.quota(ws.workspaceId).used).toBe(250);

  // The data columns arrived as data fields; get finds a certificate by its ID.
  const list = await fetch(`${sb.baseUrl}/batches/${ws.batchId}/recipients?limit=100`, { headers: { Authorization: `Bearer ${ws.apiKey}` } });
  const some = ((await list.json()) as { data: Array<{ email: string; data: Record<string, string>; certificateId: string }> }).data.find((r) => r.email === 'learner249@example.com')!;
  expect(some.data).toEqual({ course: 'Course 0', score: '249' }); // newest first
  const got = await certsvc(['get', some.certificateId], { CERTSVC_API_KEY: ws.apiKey });
  expect(got.code).toBe(0);
  expect(JSON.parse(got.stdout)).toMatchObject({ certificateId: some.certificateId, email: 'learner249@example.com' });

  for (const r of [first, second, got]) expect(r.stdout + r.stderr).not.toContain(ws.apiKey);
}, 60_000);

test('--dry-run, then the issue: each reads the batch, its design and its certificates once; rows issued in between are skipped, not issued twice', async () => {
  const ws = await workspace();
  const csv = writeCsv('dry-then-issue.csv', ['name,email,course,score', ...rows(5)].join('\n'));
  const key = { CERTSVC_API_KEY: ws.apiKey };
  sb.controls.resetCounters();
  const dry = await certsvc(['issue', '--dry-run', '--batch', ws.batchId, '--csv', csv], key);
  expect(lastLine(dry.stdout)).toMatchObject({ dryRun: true, issue: 5, requests: 3 });
  expect(routes()).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1, 'GET /batches/:id/recipients': 1 });
  // Between the two commands (another process, any time later) two of the rows are issued elsewhere:
  // the dry run's reads stay with it, and the issue reads the certificates again.
  const other = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
  await other.issueMany([1, 3].map((i) => ({ batchId: ws.batchId, name: `Learner ${i}`, email: `learner${i}@example.com` })));
  sb.controls.resetCounters();
  const issued = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], key);
  expect(lastLine(issued.stdout)).toMatchObject({ issued: 3, skipped: 2, requests: 4 });
  expect(routes()).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1, 'GET /batches/:id/recipients': 1, 'POST /batches/:id/recipients/bulk': 1 });
  expect(sb.controls.quota(ws.workspaceId).used).toBe(5); // one certificate per email
});

test("--no-skip-existing issues again without reading the batch's certificates", async () => {
  const ws = await workspace();
  const csv = writeCsv('3.csv', ['email,name', 'a@example.com,A', 'b@example.com,B', 'a@example.com,A again'].join('\n'));
  const first = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(lastLine(first.stdout)).toEqual({ issued: 2, skipped: 1, failed: 0, invalid: 0, requests: 4, unknown: 0, notSent: 0 });
  // A repeated email is named by its line (the header is line 1).
  expect(first.stderr).toContain('line 4 repeats the email of line 2 (a@example.com): issued once; line 4 gets the same certificate.');
  sb.controls.resetCounters();
  const again = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--no-skip-existing'], { CERTSVC_API_KEY: ws.apiKey });
  expect(again.stderr).toContain('line 4 repeats the email of line 2 (a@example.com): with --no-skip-existing it is issued twice.');
  expect(lastLine(again.stdout)).toEqual({ issued: 3, skipped: 0, failed: 0, invalid: 0, requests: 3, unknown: 0, notSent: 0 });
  expect(count(/^GET .*\/recipients/)).toBe(0); // the batch and its design only
});

test.each([
  ['a bad email on line 7', ['name,email', ...rows(5).map((r) => r.split(',').slice(0, 2).join(',')), 'Bad Row,not-an-email', 'Fine,fine@example.com'], /line 7: Invalid "email": "not-an-email" is not a valid email address/],
  ['an empty name on line 3', ['name,email', 'A,a@example.com', ',b@example.com'], /line 3: Invalid "name"/],
])('%s: exit 2, the line named, nothing sent (the batch and its design read, for the rows\' other checks)', async (_what, lines, message) => {
  const ws = await workspace();
  const csv = writeCsv('bad-row.csv', lines.join('\n'));
  sb.controls.resetCounters();
  const r = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stdout).toBe('');
  expect(Object.keys(routes()).sort()).toEqual(['GET /batches/:id', 'GET /designs']); // reads only
});

test.each([
  ['no email column', ['name,mail', 'A,a@example.com'], /line 1: no "email" column \(the header has: name, mail\)/],
  ['a row with too many cells', ['name,email', 'A,a@example.com', 'B,b@example.com,extra'], /line 3/],
  ['no rows', ['name,email'], /has a header but no rows/],
])('%s: exit 2, the line named, no request sent', async (_what, lines, message) => {
  const ws = sb.controls.createWorkspace();
  const csv = writeCsv('bad.csv', lines.join('\n'));
  sb.controls.resetCounters();
  const r = await certsvc(['issue', '--batch', 'batch_x', '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stdout).toBe('');
  expect(sb.controls.counters().requests.total).toBe(0);
});

test('rows that fail: exit 1, each in --errors as CSV, outcome-unknown ones flagged, and a re-run issues only those', async () => {
  const ws = await workspace();
  const csv = writeCsv('fail.csv', ['name,email', ...rows(250).map((r) => r.split(',').slice(0, 2).join(','))].join('\n'));
  const errors = path.join(dir, 'errors.csv');
  // The second bulk call fails with a 500: sent, no reliable answer, so never retried.
  sb.controls.injectFaults({ kind: '500', match: { method: 'POST', path: '^/api/v1/batches/[^/]+/recipients/bulk$' }, every: 2, count: 1 });
  const r = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--errors', errors], { CERTSVC_API_KEY: ws.apiKey });
  sb.controls.clearFaults();
  expect(r.code).toBe(1);
  expect(lastLine(r.stdout)).toEqual({ issued: 150, skipped: 0, failed: 0, invalid: 0, requests: 6, unknown: 100, notSent: 0 });
  expect(r.stderr).toMatch(/100 rows not issued; see .*errors\.csv/);
  expect(r.stderr).toMatch(/unknown outcome.*Run the same command again/);
  const failed = parse(fs.readFileSync(errors, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  expect(failed).toHaveLength(100);
  expect(failed[0]).toMatchObject({ line: '102', name: 'Learner 100', email: 'learner100@example.com', outcome: 'unknown', outcomeUnknown: 'true' }); // booleans as true/false, not csv-stringify's 1 and ''
  expect(failed[0].message).toMatch(/^Outcome unknown: POST .* was sent but no reliable answer came back/); // the email has its own column

  const again = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--errors', errors], { CERTSVC_API_KEY: ws.apiKey });
  expect(again.code).toBe(0);
  expect(lastLine(again.stdout)).toEqual({ issued: 100, skipped: 150, failed: 0, invalid: 0, requests: 5, unknown: 0, notSent: 0 }); // batch + design, 2 list pages, 1 bulk call
  expect(fs.readFileSync(errors, 'utf8')).toBe('\uFEFFline,name,email,outcome,code,message,outcomeUnknown\n');
}, 60_000);

test('usage errors exit 2 before any request; a refused key or an unknown batch exits 1; the key is never printed', async () => {
  const ws = sb.controls.createWorkspace();
  sb.controls.resetCounters();
  expect((await certsvc(['issue', '--csv', 'x.csv'], { CERTSVC_API_KEY: ws.apiKey })).code).toBe(2); // no --batch
  expect((await certsvc(['frobnicate'], { CERTSVC_API_KEY: ws.apiKey })).code).toBe(2);
  const noKey = await certsvc(['auth']);
  expect(noKey).toMatchObject({ code: 2, stderr: expect.stringMatching(/No API key: set CERTSVC_API_KEY or pass --api-key/) });
  expect((await certsvc(['auth'], { CERTSVC_API_KEY: ws.apiKey, CERTSVC_BASE_URL: '' })).stderr).toMatch(/No service URL/);
  expect((await certsvc(['get', ' '], { CERTSVC_API_KEY: ws.apiKey })).code).toBe(2);
  expect(sb.controls.counters().requests.total).toBe(0);
  expect((await certsvc(['--help'])).code).toBe(0);

  const bad = 'sk_live_sandbox_not_a_real_key_42';
  const refused = await certsvc(['auth', '--api-key', bad], { CERTSVC_API_KEY: ws.apiKey });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/INVALID_API_KEY|invalid|API key/i);
  expect(refused.stderr).toMatch(/\nCopy the whole key again, or make a new one under Settings → API keys.* Set the key in CERTSVC_API_KEY/); // the hint, on its own line
  expect(refused.stdout + refused.stderr).not.toContain(bad);

  const csv = writeCsv('one.csv', 'name,email\nA,a@example.com\n');
  const noBatch = await certsvc(['issue', '--batch', 'batch_missing', '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(noBatch.code).toBe(1);
  expect(noBatch.stderr).toMatch(/^certsvc: .*"batch_missing"/);
  expect(noBatch.stdout).toBe('');

  const ok = await certsvc(['auth'], { CERTSVC_API_KEY: ws.apiKey });
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout)).toMatchObject({ workspaceId: ws.workspaceId });
  expect(ok.stdout + ok.stderr).not.toContain(ws.apiKey);
});

test('an unknown batch: said once, as the command\'s error, before any row is sent (the batch is read first for its design)', async () => {
  const ws = sb.controls.createWorkspace();
  const csv = writeCsv('gone.csv', `name,email,course,score\n${rows(250).join('\n')}\n`);
  const errors = path.join(dir, 'gone-errors.csv');
  sb.controls.resetCounters();
  const r = await certsvc(['issue', '--batch', 'batch_gone', '--csv', csv, '--no-skip-existing', '--errors', errors], { CERTSVC_API_KEY: ws.apiKey });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^certsvc: .*"batch_gone"/);
  expect(count(BULK)).toBe(0);
  expect(sb.controls.counters().requests.total).toBe(1);
  expect(r.stdout).toBe('');
});

test('batches list, designs list', async () => {
  const ws = await workspace();
  const batches = await certsvc(['batches', 'list'], { CERTSVC_API_KEY: ws.apiKey });
  expect(JSON.parse(batches.stdout).map((b: { id: string }) => b.id)).toEqual([ws.batchId]);
  const designs = await certsvc(['designs', 'list'], { CERTSVC_API_KEY: ws.apiKey });
  expect(JSON.parse(designs.stdout).map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining(['design_classic', 'design_modern', 'design_minimal']));
});

test('a full workspace (20 subscriptions): the error says what to do; subscriptions list and delete make room', async () => {
  const ws = sb.controls.createWorkspace({ quota: 10 });
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
  const created = [];
  for (let i = 0; i < 20; i++) created.push(await client.createSubscription({ url: `http://localhost:9/hook/${i}`, events: ['certificate.issued'] }));
  const full = await client.createSubscription({ url: 'http://localhost:9/hook/new', events: ['certificate.issued'] }).catch((e: unknown) => e);
  expect(full).toBeInstanceOf(CertificateServiceError);
  expect((full as CertificateServiceError).code).toBe('PLAN_LIMIT_EXCEEDED');
  expect((full as CertificateServiceError).hint).toBe('Free one: delete a webhook subscription that nothing uses any more.');
  expect((full as CertificateServiceError).hint).not.toMatch(/certsvc|Zap|n8n/); // the core's words fit every host

  // The CLI says the same, then its own words: the commands that make room.
  const refused = await certsvc(['subscriptions', 'create', '--url', 'http://localhost:9/hook/new', '--events', 'certificate.issued'], { CERTSVC_API_KEY: ws.apiKey });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/\nFree one: delete a webhook subscription that nothing uses any more\. List them with "certsvc subscriptions list" and remove one with "certsvc subscriptions delete <id>"\.\n$/); // the fact once (the service's), the advice once

  const listed = await certsvc(['subscriptions', 'list'], { CERTSVC_API_KEY: ws.apiKey });
  expect(listed.code).toBe(0);
  const subscriptions = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
  expect(subscriptions.map((s) => s.id).sort()).toEqual(created.map((s) => s.id).sort());
  expect(subscriptions[0]).toMatchObject({ url: expect.stringMatching(/^http:\/\/localhost:9\/hook\//), events: ['certificate.issued'] });
  expect(listed.stdout).not.toMatch(/wh_sec_/); // a listing never shows a signing secret

  const deleted = await certsvc(['subscriptions', 'delete', created[3].id, '--yes'], { CERTSVC_API_KEY: ws.apiKey }); // no terminal: --yes confirms
  expect(deleted.code).toBe(0);
  expect(JSON.parse(deleted.stdout)).toMatchObject({ id: created[3].id, deleted: true });
  expect(sb.controls.subscriptions(ws.workspaceId)).toHaveLength(19);
  const made = await certsvc(['subscriptions', 'create', '--url', 'http://localhost:9/hook/new', '--events', 'certificate.issued, certificate.sent'], { CERTSVC_API_KEY: ws.apiKey });
  expect(made.code).toBe(0);
  const sub = JSON.parse(made.stdout) as { id: string; url: string; events: string[]; secret: string };
  expect(sub).toMatchObject({ url: 'http://localhost:9/hook/new', events: ['certificate.issued', 'certificate.sent'], secret: expect.stringMatching(/^wh_sec_/) });
  expect(made.stderr).toMatch(/Store the secret now: the service shows it only once/);
  expect(made.stdout + made.stderr).not.toContain(ws.apiKey);
  const tested = await certsvc(['subscriptions', 'test', sub.id], { CERTSVC_API_KEY: ws.apiKey });
  expect(tested.code).toBe(0);
  expect(JSON.parse(tested.stdout)).toMatchObject({ id: sub.id });
  const bad = await certsvc(['subscriptions', 'create', '--url', 'http://example.com/hook', '--events', 'certificate.issued'], { CERTSVC_API_KEY: ws.apiKey });
  expect(bad).toMatchObject({ code: 2, stderr: expect.stringMatching(/"url"/) }); // refused before sending
});

test('a column the design does not list (`compeltedOn`) refuses every row that fills it, with the closest variable; nothing is sent; the dry run says so; --allow-unknown-columns sends it', async () => {
  const ws = await workspace('design_minimal'); // course (required), completedOn
  const key = { CERTSVC_API_KEY: ws.apiKey };
  // Line 3 leaves the typo column empty, so that row sets no such field and is valid.
  const csv = writeCsv('typo.csv', ['name,email,Course,compeltedOn', 'A,a@example.com,Safety,2026-11-01', 'B,b@example.com,Safety,', 'C,c@example.com,Safety,2026-11-02'].join('\n'));
  const why = 'Invalid "data.compeltedOn": "compeltedOn" is not a variable of the certificate design; did you mean "completedOn"?';
  sb.controls.resetCounters();

  const refused = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], key);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`has 2 bad rows; nothing was sent (--skip-invalid issues the others).\n  line 2: ${why}\n  line 4: ${why}\nA column the design does not list is refused`);
  expect(refused.stderr).toContain('pass --allow-unknown-columns to send it as it is');
  const strict = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--strict'], key); // the old opt-in: accepted, the same
  expect(strict.code).toBe(2);
  const dry = await certsvc(['issue', '--dry-run', '--batch', ws.batchId, '--csv', csv], key);
  expect(dry.code).toBe(2);
  expect(dry.stderr).toContain(`line 2: invalid, ${why}\nline 3: issue (b@example.com)\nline 4: invalid, ${why}\n`);
  expect(dry.stderr).toContain('pass --allow-unknown-columns');
  expect(lastLine(dry.stdout)).toMatchObject({ dryRun: true, issue: 1, invalid: 2 });
  expect(count(/^POST/)).toBe(0);
  expect(sb.controls.certificates(ws.batchId)).toHaveLength(0);

  const skipping = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--skip-invalid'], key);
  expect(skipping.code).toBe(1);
  expect(lastLine(skipping.stdout)).toMatchObject({ issued: 1, invalid: 2 });
  // `Course` filled `course`, sent as the design spells it.
  expect(sb.controls.certificates(ws.batchId).map((c) => [c.email, c.data])).toEqual([['b@example.com', { course: 'Safety' }]]);

  const allowed = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--allow-unknown-columns'], key);
  expect(allowed.code).toBe(0);
  expect(allowed.stderr).toContain('`compeltedOn`: not a variable of this design; did you mean `completedOn`? Sent as it is (--allow-unknown-columns).');
  expect(lastLine(allowed.stdout)).toMatchObject({ issued: 2, skipped: 1 });
  expect(sb.controls.certificates(ws.batchId).find((c) => c.email === 'a@example.com')?.data).toEqual({ course: 'Safety', compeltedOn: '2026-11-01' });
  const both = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--strict', '--allow-unknown-columns'], key);
  expect(both.code).toBe(2);
});

test('a column that matches two variables of the design (`Course` and `course`) refuses every row that fills it, naming both, even with --allow-unknown-columns (a stub service that checks nothing)', async () => {
  const stub = await startStub({ batches: { b_twins: 'twins' }, designs: [{ id: 'twins', variables: [{ name: 'Course' }, { name: 'course' }] }] });
  try {
    const csv = writeCsv('twins.csv', ['name,email,COURSE', 'A,a@example.com,Safety'].join('\n'));
    const run = await runCli(['issue', '--batch', 'b_twins', '--csv', csv, '--allow-unknown-columns'], { CERTSVC_BASE_URL: stub.baseUrl, CERTSVC_API_KEY: 'sk_test_stub_key_0123456789' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 2: Invalid "data.COURSE": "COURSE" matches 2 variables of the certificate design ("Course", "course"), which differ only in letter case or spaces, so it is not sent');
    expect(sentEmails(stub)).toEqual([]);
  } finally {
    await stub.close();
  }
});

test('a design that lists no variables refuses no column', async () => {
  const ws = await workspace('design_modern');
  const csv = writeCsv('free.csv', ['name,email,anything', 'A,a@example.com,x'].join('\n'));
  const run = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(run.code).toBe(0);
  expect(sb.controls.certificates(ws.batchId)[0].data).toEqual({ anything: 'x' });
});

test('--skip-invalid issues the valid rows and writes the invalid ones to --errors; without it nothing is sent', async () => {
  const ws = await workspace();
  const csv = writeCsv('mixed.csv', ['name,email', 'A,a@example.com', ',b@example.com', 'C,not-an-email', 'D,d@example.com'].join('\n'));
  sb.controls.resetCounters();
  const strict = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv], { CERTSVC_API_KEY: ws.apiKey });
  expect(strict.code).toBe(2);
  expect(strict.stderr).toMatch(/has 2 bad rows; nothing was sent \(--skip-invalid issues the others\)\.\n {2}line 3: .*"name".*\n {2}line 4: .*"email"/);
  expect(count(/^POST/)).toBe(0);

  const errors = path.join(dir, 'mixed-errors.csv');
  const lenient = await certsvc(['issue', '--batch', ws.batchId, '--csv', csv, '--skip-invalid', '--errors', errors], { CERTSVC_API_KEY: ws.apiKey });
  expect(lenient.code).toBe(1);
  expect(lastLine(lenient.stdout)).toEqual({ issued: 2, skipped: 0, failed: 0, invalid: 2, requests: 4, unknown: 0, notSent: 0 });
  const written = parse(fs.readFileSync(errors, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  expect(written.map((r) => [r.line, r.code])).toEqual([['3', 'VALIDATION_ERROR'], ['4', 'VALIDATION_ERROR']]);
  expect(written[1].email).toBe('not-an-email');
});

describe('verify', () => {
  const secret = 'wh_sec_cli_verify_0123456789';
  const body = JSON.stringify({ id: 'whe_9', type: 'certificate.viewed', createdAt: '2026-11-23T00:00:00.000Z', data: { id: 'rec_9' } });
  const verify = (args: string[], input: string) => runCli(['verify', ...args], {}, { stdin: input });

  test('a signed delivery verifies (exit 0); the wrong secret or a changed body does not (exit 1); the secret is never printed', async () => {
    const h = signPayload(secret, body);
    const ok = await verify(['--secret', secret, '--signature', h['X-Service-Signature'], '--timestamp', h['X-Service-Timestamp']], body);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, event: { id: 'whe_9', type: 'certificate.viewed' } });
    const wrong = await verify(['--secret', 'wh_sec_other_0000000000000', '--signature', h['X-Service-Signature']], body);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ ok: false, reason: 'NO_MATCHING_SIGNATURE' });
    const changed = await verify(['--secret', secret, '--signature', h['X-Service-Signature']], JSON.stringify(JSON.parse(body), null, 2));
    expect(JSON.parse(changed.stdout).reason).toBe('NO_MATCHING_SIGNATURE');
    for (const r of [ok, wrong, changed]) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  test('an old delivery needs --tolerance; no secret is a usage error', async () => {
    const h = signPayload(secret, body, Math.floor(Date.now() / 1000) - 7200);
    expect(JSON.parse((await verify(['--secret', secret, '--signature', h['X-Service-Signature']], body)).stdout).reason).toBe('TIMESTAMP_TOO_OLD');
    expect((await verify(['--secret', secret, '--signature', h['X-Service-Signature'], '--tolerance', '86400'], body)).code).toBe(0);
    const none = await verify(['--signature', h['X-Service-Signature']], body);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No signing secret/);
  });

  test('empty input is a missing body (MISSING_BODY), not a signature that fails to match', async () => {
    const h = signPayload(secret, body);
    const empty = await verify(['--secret', secret, '--signature', h['X-Service-Signature']], '');
    expect(empty.code).toBe(1);
    expect(JSON.parse(empty.stdout)).toMatchObject({ ok: false, reason: 'MISSING_BODY', message: 'The delivery has no body.' });
  });
});
