// In-process (the program's main with fake streams, against an in-process sandbox): the
// certificates commands, the confirmation before what cannot be undone, where relative paths
// resolve, how columns match variables, and the progress bar through a Ctrl-C.
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { createClient } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { REPO_ROOT, runCli } from '../support/cli';
import { userFolder } from '../../shared/cli/src/paths';
import { matchColumns } from '../../shared/cli/src/columns';
import { closest } from '@certificate-service/sdk';
import { runIssue, type Interrupts } from '../../shared/cli/src/issue';
import { connect } from '../../shared/cli/src/connect';

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, seed: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-cmd-'));
});
afterAll(async () => {
  await sb.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `certsvc …` in this process; `answer` is typed on a terminal when given, else stdin is no terminal. */
const certsvc = (args: string[], answer?: string) =>
  runCli(['--base-url', sb.baseUrl, '--api-key', sb.apiKey!, ...args], {}, answer === undefined ? {} : { stdin: `${answer}\n`, stdinTerminal: true });

async function batchWith(n: number) {
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey! });
  const batch = await client.createBatch({ title: 'Commands', designId: 'design_classic' });
  await client.issueMany(Array.from({ length: n }, (_, i) => ({ batchId: batch.id, name: `P ${i}`, email: `p${i}@example.com` })));
  return { client, batchId: batch.id };
}

test('certificates count and list page through the whole batch (250 certificates, 3 pages); find by email in any case', async () => {
  const { batchId } = await batchWith(250);
  expect(JSON.parse((await certsvc(['certificates', 'count', '--batch', batchId])).stdout)).toEqual({ batchId, count: 250 });
  const listed = await certsvc(['certificates', 'list', '--batch', batchId, '--json']);
  expect(new Set(JSON.parse(listed.stdout).map((c: { email: string }) => c.email)).size).toBe(250);
  const table = (await certsvc(['certificates', 'list', '--batch', batchId])).stdout.trim().split('\n');
  expect(table[0]).toBe('certificateId\temail\temailStatus\tcertUrl');
  expect(table).toHaveLength(251);
  expect(JSON.parse((await certsvc(['certificates', 'count', '--batch', batchId, '--email-status', 'sent'])).stdout).count).toBe(0);
  const found = await certsvc(['certificates', 'find', '--batch', batchId, '--email', 'P7@Example.com']);
  expect(JSON.parse(found.stdout)).toMatchObject({ email: 'p7@example.com', batchId });
  const none = await certsvc(['certificates', 'find', '--batch', batchId, '--email', 'nobody@example.com']);
  expect(none).toMatchObject({ code: 1, stdout: '' });
  expect(none.stderr).toContain('No certificate for nobody@example.com');
  expect((await certsvc(['certificates', 'list', '--batch', batchId, '--json', '--csv', 'x.csv'])).code).toBe(2); // one output at a time
});

test('certificates send queues the email without asking; delete asks on a terminal, refuses without one (exit 2) unless --yes', async () => {
  const { batchId } = await batchWith(3);
  const [a, b, c] = sb.controls.certificates(batchId);
  const sent = await certsvc(['certificates', 'send', a.certificateId]);
  expect(sent.code).toBe(0);
  expect(sent.stderr).toBe('');

  const refused = await certsvc(['certificates', 'delete', a.certificateId]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/It cannot be undone, and there is no terminal to ask: pass --yes to confirm/);
  const declined = await certsvc(['certificates', 'delete', a.certificateId], 'n');
  expect(declined.code).toBe(1);
  expect(declined.stderr).toContain('Nothing deleted.');
  expect(sb.controls.certificates(batchId)).toHaveLength(3);

  const accepted = await certsvc(['certificates', 'delete', a.certificateId], 'y');
  expect(accepted.code).toBe(0);
  expect(accepted.stderr).toContain(`Delete certificate ${a.certificateId} (${a.email}, batch ${batchId})? It cannot be undone. [y/N]`);
  const byRecipientId = await certsvc(['certificates', 'delete', b.id, '--batch', batchId, '--yes']);
  expect(byRecipientId.code).toBe(0);
  expect(sb.controls.certificates(batchId).map((r) => r.email)).toEqual([c.email]);
});

test('subscriptions delete asks too: refused without a terminal unless --yes', async () => {
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey! });
  const sub = await client.createSubscription({ url: 'http://localhost:9/hook', events: ['certificate.issued'] });
  expect((await certsvc(['subscriptions', 'delete', sub.id])).code).toBe(2);
  expect((await certsvc(['subscriptions', 'delete', sub.id], 'y')).code).toBe(0);
  expect(sb.controls.subscriptions(sb.workspace.workspaceId).map((s) => s.id)).not.toContain(sub.id);
});

test('subscriptions delete asks before it connects: without a key, the question is still the first thing said', async () => {
  const noTerminal = await runCli(['subscriptions', 'delete', 'whs_1'], {});
  expect(noTerminal).toMatchObject({ code: 2, stdout: '' });
  expect(noTerminal.stderr).toMatch(/^certsvc: Delete webhook subscription whs_1\? It cannot be undone, and there is no terminal to ask/);
  const declined = await runCli(['subscriptions', 'delete', 'whs_1'], {}, { stdin: 'n\n', stdinTerminal: true });
  expect(declined.code).toBe(1);
  expect(declined.stderr).toMatch(/Nothing deleted\.\n$/);
  expect(declined.stderr).not.toContain('API key');
});

test("paths: npm's INIT_CWD only when the working folder is the CLI's own package; a user's `cd sub && certsvc` keeps its folder", () => {
  const cliDir = path.resolve(__dirname, '../../shared/cli');
  expect(userFolder(cliDir, { INIT_CWD: '/home/ops/clone' })).toBe('/home/ops/clone');
  expect(userFolder('/home/ops/scripts/sub', { INIT_CWD: '/home/ops/scripts' })).toBe('/home/ops/scripts/sub');
  expect(userFolder(cliDir, {})).toBe(cliDir);
});

test('the folder and the environment are the run\'s own (io.cwd, io.env), never this process\'s: a relative --csv, INIT_CWD, the key', async () => {
  const { batchId } = await batchWith(0);
  const sub = fs.mkdtempSync(path.join(dir, 'folder-'));
  fs.writeFileSync(path.join(sub, 'people.csv'), 'name,email\nAda,ada@example.com\n');
  // The sandbox's key only here: this process's CERTSVC_API_KEY (none, or another) would be refused.
  const env = { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey! };
  const dry = await runCli(['issue', '--dry-run', '--batch', batchId, '--csv', 'people.csv'], env, { cwd: sub });
  expect(dry.code).toBe(0);
  expect(JSON.parse(dry.stdout)).toMatchObject({ issue: 1 });
  // From the CLI's own package (as npm exec -w runs it), the user's folder is INIT_CWD.
  const cliDir = path.resolve(__dirname, '../../shared/cli');
  const listed = await runCli(['certificates', 'list', '--batch', batchId, '--csv', 'out.csv'], { ...env, INIT_CWD: sub }, { cwd: cliDir });
  expect(JSON.parse(listed.stdout)).toEqual({ count: 0, csv: path.join(sub, 'out.csv') });
  expect(fs.existsSync(path.join(sub, 'out.csv'))).toBe(true);
  expect(fs.existsSync(path.join(cliDir, 'out.csv'))).toBe(false);
  // The same relative name from elsewhere is not found there: the folder really is the run's.
  const elsewhere = await runCli(['issue', '--dry-run', '--batch', batchId, '--csv', 'people.csv'], env, { cwd: REPO_ROOT });
  expect(elsewhere.code).toBe(2);
  expect(elsewhere.stderr).toContain(path.join(REPO_ROOT, 'people.csv'));
});

test('columns: trimmed, any case; an unknown column is said (with the closest variable) only when allowed, or when a required one is missing; nothing when the design lists none', () => {
  const design = (names: string[], source: 'design' | 'seen' | 'none' = 'design') => ({ batchId: 'b', designId: 'd', source, variables: names.map((name) => ({ name, label: name, required: false, source: source === 'seen' ? ('seen' as const) : ('design' as const) })) });
  const m = matchColumns([' Course ', 'coures', 'xyz'], design(['course', 'completedOn']), true);
  expect([...m.rename]).toEqual([[' Course ', 'course']]);
  expect(m.warnings).toEqual([
    '`coures`: not a variable of this design; did you mean `course`? Sent as it is (--allow-unknown-columns).',
    '`xyz`: not a variable of this design; its variables are `course`, `completedOn`. Sent as it is (--allow-unknown-columns).',
  ]);
  // Refused by default, but row by row, in the core's plan (issue.ts, dry-run.ts): nothing said here.
  expect(matchColumns(['coures'], design(['course']), false).warnings).toEqual([]);
  expect(() => matchColumns(['course', 'COURSE'], design(['course']), false)).toThrow(/both fill the variable "course"/);
  expect([...matchColumns(['course'], design(['Course', 'course']), false).rename]).toEqual([]); // two variables: left to the core, which names both
  expect(matchColumns(['anything'], design([], 'design'), true).warnings).toEqual([]);
  expect(matchColumns(['anything'], design([], 'none'), true).warnings).toEqual([]);
  expect(matchColumns(['Course'], design(['course'], 'seen'), true)).toEqual({ rename: new Map(), warnings: [] });
  const required = { ...design(['course']), variables: [{ name: 'course', label: 'Course', required: true, source: 'design' as const }] };
  expect(() => matchColumns(['coures'], required, false)).toThrow('line 1: no "course" column, which the design requires (the header has: coures). `coures`: not a variable of this design; did you mean `course`? Nothing was sent.');
  expect(closest('completedon', ['course', 'completedOn'])).toBe('completedOn');
  expect(closest('date', ['course'])).toBeUndefined();
});

test('Ctrl-C on a terminal: the bar ends at the true count (200/250, not 250/250), and every message starts on a fresh line', async () => {
  const { batchId } = await batchWith(0);
  const csv = path.join(dir, 'ctrl-c.csv');
  fs.writeFileSync(csv, ['name,email', ...Array.from({ length: 250 }, (_, i) => `L ${i},l${i}@example.com`)].join('\n'));
  sb.controls.injectFaults({ kind: 'delay', delayMs: 800, every: 2, match: { method: 'POST', path: '^/api/v1/batches/[^/]+/recipients/bulk$' } });
  let listener: (() => void) | undefined;
  const interrupts: Interrupts = { on: (_e, l) => (listener = l), off: () => undefined, exit: () => undefined };
  let text = '';
  const stderr = { isTTY: true, columns: 100, write: (t: string) => ((text += t), true) } as unknown as NodeJS.WriteStream;
  let stdout = '';
  const connection = connect({ baseUrl: sb.baseUrl, apiKey: sb.apiKey! }, {});
  const bulkCalls = () => Object.entries(sb.controls.counters().requests.byRoute).filter(([r]) => /bulk$/.test(r)).reduce((n, [, c]) => n + c, 0);
  sb.controls.resetCounters();
  const io = { stdin: process.stdin, stdout: { write: (t: string) => ((stdout += t), true) } as unknown as NodeJS.WritableStream, stderr, env: {}, cwd: dir };
  const run = runIssue({ batch: batchId, csv, skipExisting: true }, { connection, io }, interrupts);
  while (bulkCalls() < 2) await new Promise((r) => setTimeout(r, 10));
  listener!();
  expect(await run).toBe(130);
  sb.controls.clearFaults();
  expect(JSON.parse(stdout)).toMatchObject({ issued: 200, notSent: 50 });
  const drawings = text.split(/\r/).filter((d) => d.startsWith('['));
  expect(drawings.at(-1)).toMatch(/^\[#+\.+\] 200\/250 · stopped\x1b\[K\n/);
  expect(text).not.toMatch(/250\/250/);
  expect(text).toMatch(/\] 100\/250 · sending 100 rows \d s/); // the call in flight, counted
  // A message never runs into the bar: it follows a cleared line or a new line.
  for (const message of ['Stopping: the call in flight finishes', 'Stopped: 50 rows not sent']) {
    const at = text.indexOf(message);
    expect(at).toBeGreaterThan(0);
    const before = text.slice(0, at);
    expect(before.endsWith('\n') || before.endsWith('\r\x1b[K')).toBe(true); // not right after a drawing ("…250\x1b[K")
  }
});

test('--dry-run: skip for a row already in the batch, once for a repeated email, the quota; then the real run does the same; it writes no file', async () => {
  const { batchId } = await batchWith(2); // p0, p1 already issued
  const csv = path.join(dir, 'dry.csv');
  fs.writeFileSync(csv, ['name,email', 'P 0,p0@example.com', 'New,new@example.com', 'New again,NEW@example.com', 'P 1,p1@example.com'].join('\n'));
  const before = sb.controls.counters().requests.byRoute;
  const posts = (byRoute: Record<string, number>) => Object.entries(byRoute).filter(([r]) => r.startsWith('POST')).reduce((n, [, c]) => n + c, 0);
  const dry = await certsvc(['issue', '--dry-run', '--batch', batchId, '--csv', csv]);
  expect(dry.code).toBe(0);
  expect(posts(sb.controls.counters().requests.byRoute)).toBe(posts(before));
  expect(dry.stderr).toMatch(/^line 2: skip, p0@example.com is already in the batch \(CERT-[\d-]+\)$/m);
  expect(dry.stderr).toContain('line 3: issue (new@example.com)');
  expect(dry.stderr).toContain('line 4: same email as line 3, gets its certificate');
  expect(dry.stderr).toContain('Would issue 1 certificate (1 quota unit) in 1 call; nothing was sent.');
  const said = JSON.parse(dry.stdout);
  expect(said).toMatchObject({ dryRun: true, issue: 1, skipped: 3, invalid: 0, quota: 1, calls: 1 });
  const real = await certsvc(['issue', '--batch', batchId, '--csv', csv]);
  expect(JSON.parse(real.stdout)).toMatchObject({ issued: said.issue, skipped: said.skipped, invalid: said.invalid });
  expect((await certsvc(['issue', '--dry-run', '--batch', batchId, '--csv', csv, '--out', path.join(dir, 'no.csv')])).code).toBe(2);
  expect(fs.existsSync(path.join(dir, 'no.csv'))).toBe(false);
});
