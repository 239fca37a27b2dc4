// `certsvc` run as the README tells a user: `npm exec -w shared/cli -- certsvc …` in the
// repository root, with paths relative to the root (npm runs the bin in shared/cli). Against the
// sandbox, whose design_minimal requires `course`: the design check names the CSV line before
// anything is sent, --dry-run says what a real run then does, --out holds every row's
// certificate, `certificates list --csv` exports the batch, and every file lands where typed.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ensureBuilt } from '../support/built';
import { REPO_ROOT, repoTempDir, runCliAsDocumented } from '../support/cli';

jest.setTimeout(120_000);

let sb: Sandbox;
let dir: { abs: string; rel: string };
beforeAll(async () => {
  await ensureBuilt();
  sb = await createSandbox({ rateLimit: false, seed: true });
  dir = repoTempDir('cli-as-documented-');
}, 120_000);
afterAll(async () => {
  await sb.close();
  fs.rmSync(dir.abs, { recursive: true, force: true });
});

const certsvc = (args: string[]) => runCliAsDocumented(args, { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey! });
const lastLine = (text: string) => JSON.parse(text.trim().split('\n').pop()!);
const posts = () => Object.entries(sb.controls.counters().requests.byRoute).filter(([r]) => r.startsWith('POST')).reduce((n, [, c]) => n + c, 0);
const rel = (name: string) => path.join(dir.rel, name); // as typed at the root, e.g. .tmp/cli-…/people.csv
const csvRows = (file: string) => parse(fs.readFileSync(file, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;

test('from the root, relative paths: line 13 named and nothing sent; --dry-run, then the real run does what it said; --out and certificates list --csv land where typed', async () => {
  const batch = JSON.parse((await certsvc(['batches', 'create', '--title', 'Ops', '--design', 'design_minimal'])).stdout) as { id: string };
  // 30 rows; line 13 (the 12th row) leaves the required `course` empty. The header says `Course`.
  const lines = ['name,email,Course', ...Array.from({ length: 30 }, (_, i) => `Learner ${i},learner${i}@example.com,${i === 11 ? '' : 'Safety 101'}`)];
  fs.writeFileSync(path.join(dir.abs, 'people.csv'), lines.join('\n'));

  sb.controls.resetCounters();
  const refused = await certsvc(['issue', '--batch', batch.id, '--csv', rel('people.csv'), '--errors', rel('failed.csv')]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('line 13: "course" is required by the design and is empty');
  expect(refused.stderr).toContain(path.join(REPO_ROOT, rel('people.csv'))); // named by its resolved path
  expect(refused.stdout).toBe('');
  expect(posts()).toBe(0);
  expect(sb.controls.certificates(batch.id)).toHaveLength(0);

  const dry = await certsvc(['issue', '--dry-run', '--batch', batch.id, '--csv', rel('people.csv')]);
  expect(dry.code).toBe(2); // what the real run without --skip-invalid exits
  expect(lastLine(dry.stdout)).toMatchObject({ dryRun: true, issue: 29, skipped: 0, invalid: 1, quota: 29, calls: 1 });
  expect(dry.stderr).toContain('line 2: issue (learner0@example.com)');
  expect(dry.stderr).toContain('line 13: invalid, "course" is required by the design and is empty');
  expect(dry.stderr).toMatch(/Would issue 29 certificates \(29 quota units\) in 1 call; nothing was sent/);
  expect(posts()).toBe(0);

  const real = await certsvc(['issue', '--batch', batch.id, '--csv', rel('people.csv'), '--skip-invalid', '--errors', rel('failed.csv'), '--out', rel('out.csv')]);
  expect(real.code).toBe(1);
  const summary = lastLine(real.stdout);
  // What the dry run said, row for row in count: 29 issued, the one invalid row never sent.
  expect({ issued: summary.issued, skipped: summary.skipped, invalid: summary.invalid }).toEqual({ issued: lastLine(dry.stdout).issue, skipped: 0, invalid: 1 });
  expect(real.stderr).toContain('line 13: "course" is required by the design and is empty (not sent)');
  const issued = sb.controls.certificates(batch.id);
  expect(issued.map((c) => c.email).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `learner${i}@example.com`).filter((e) => e !== 'learner11@example.com').sort());
  expect(issued.every((c) => c.data.course === 'Safety 101')).toBe(true); // `Course` filled `course`

  // Every file where it was typed (the root), named by its resolved path; none in shared/cli.
  expect(real.stderr).toContain(`see ${path.join(REPO_ROOT, rel('failed.csv'))}`);
  expect(real.stderr).toContain(path.join(REPO_ROOT, rel('out.csv')));
  expect(fs.existsSync(path.join(REPO_ROOT, 'shared/cli', rel('failed.csv')))).toBe(false);
  expect(csvRows(path.join(dir.abs, 'failed.csv')).map((r) => [r.line, r.outcome])).toEqual([['13', 'invalid']]);
  const out = csvRows(path.join(dir.abs, 'out.csv'));
  expect(out).toHaveLength(30);
  expect(Object.keys(out[0])).toEqual(['line', 'name', 'email', 'outcome', 'certificateId', 'certUrl', 'shareToken']);
  const byEmail = new Map(issued.map((c) => [c.email, c]));
  for (const row of out.filter((r) => r.outcome === 'issued')) {
    const c = byEmail.get(row.email)!;
    // A share token may start with `-` (1 in 64): then it has the leading ' of a formula cell (csv-write.ts).
    expect(row).toMatchObject({ certificateId: c.certificateId, certUrl: c.certUrl, shareToken: c.shareToken.startsWith('-') ? `'${c.shareToken}` : c.shareToken });
  }
  expect(out.find((r) => r.line === '13')).toMatchObject({ outcome: 'invalid', certificateId: '' });
  // Row for row: the lines the dry run would issue are the lines issued.
  const wouldIssue = [...dry.stderr.matchAll(/^line (\d+): issue /gm)].map((m) => m[1]).sort();
  expect(out.filter((r) => r.outcome === 'issued').map((r) => r.line).sort()).toEqual(wouldIssue);
  expect(wouldIssue).toHaveLength(29);

  const listed = await certsvc(['certificates', 'list', '--batch', batch.id, '--csv', rel('certs.csv')]);
  expect(listed.code).toBe(0);
  expect(listed.stderr).toContain(`Wrote 29 certificates to ${path.join(REPO_ROOT, rel('certs.csv'))}`);
  const exported = csvRows(path.join(dir.abs, 'certs.csv'));
  expect(exported).toHaveLength(29);
  expect(Object.keys(exported[0])).toEqual(expect.arrayContaining(['id', 'batchId', 'certificateId', 'certUrl', 'shareToken', 'email', 'emailStatus', 'data.course']));
  expect(new Set(exported.map((r) => r.certificateId))).toEqual(new Set(issued.map((c) => c.certificateId)));
});

test('columns: `Course` fills `course`; a typo column (`compeltedOn`) is refused with the closest variable before anything is sent, and --allow-unknown-columns sends it', async () => {
  const batch = JSON.parse((await certsvc(['batches', 'create', '--title', 'Columns', '--design', 'design_minimal'])).stdout) as { id: string };
  fs.writeFileSync(path.join(dir.abs, 'typo.csv'), 'name,email, Course ,compeltedOn\nAda,ada@example.com,Safety 101,2026-11-01\n');
  sb.controls.resetCounters();
  const refused = await certsvc(['issue', '--batch', batch.id, '--csv', rel('typo.csv')]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('line 2: Invalid "data.compeltedOn": "compeltedOn" is not a variable of the certificate design; did you mean "completedOn"?');
  expect(posts()).toBe(0);
  const allowed = await certsvc(['issue', '--batch', batch.id, '--csv', rel('typo.csv'), '--allow-unknown-columns']);
  expect(allowed.code).toBe(0);
  expect(allowed.stderr).toContain('`compeltedOn`: not a variable of this design; did you mean `completedOn`? Sent as it is (--allow-unknown-columns).');
  expect(lastLine(allowed.stdout)).toMatchObject({ issued: 1 });
  expect(sb.controls.certificates(batch.id)[0].data).toEqual({ course: 'Safety 101', compeltedOn: '2026-11-01' });
});
