// The CSV files certsvc writes (`certificates list --csv`, `issue --out`, `issue --errors`) are
// opened in spreadsheets: read here as bytes and with csv-parse, as a script would. Each starts
// with a UTF-8 byte-order mark (not with --no-bom); a cell a spreadsheet would run as a formula
// has a leading ' (a negative number is left as it is), and --json keeps the value as it is. A
// refused run names every bad row at once and still writes --errors and --out; that --errors
// file, fixed as a user would, issues every row as it was when fed back as --csv.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { createClient } from '@certificate-service/sdk';
import { toCsv, unguard } from '../../shared/cli/src/csv-write';
import { cliWorld, runCli } from '../support/cli';

jest.setTimeout(60_000);

const world = cliWorld({ rateLimit: false }, 'certsvc-csv-');

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** The attack cells of OWASP's CSV Injection page, one per character a spreadsheet may run. */
const FORMULAS = ['=HYPERLINK("http://x","Click")', '+1+2', '-1+2', '@SUM(1+1)', '\t=1+2', '\r=1+2', '\n=1+2'];
const UNICODE = 'José Müller-Øster';

/** A file as a script reads it: csv-parse, the byte-order mark skipped, one object per row. */
const records = (file: string) => parse(fs.readFileSync(file), { columns: true, bom: true }) as Array<Record<string, string>>;
/** Every cell, header included, either starts with none of = + - @ tab CR LF or is a negative number. */
function expectNoFormulaCell(file: string) {
  const cells = (parse(fs.readFileSync(file), { bom: true }) as string[][]).flat();
  expect(cells.filter((c) => /^[=+\-@\t\r\n]/.test(c) && !/^-\d+(\.\d+)?$/.test(c))).toEqual([]);
}
const posts = () => Object.entries(world.sb.controls.counters().requests.byRoute).filter(([r]) => r.startsWith('POST')).reduce((n, [, c]) => n + c, 0);

async function batch(design: string) {
  const ws = world.sb.controls.createWorkspace({ quota: 1_000 });
  const client = createClient({ baseUrl: world.sb.baseUrl, apiKey: ws.apiKey });
  const { id } = await client.createBatch({ title: 'CSV files', designId: design });
  const certsvc = (args: string[]) => runCli(args, { CERTSVC_BASE_URL: world.sb.baseUrl, CERTSVC_API_KEY: ws.apiKey });
  return { client, batchId: id, certsvc };
}

test('the writer: each formula character guarded with a leading \', read back as it was; a negative number and plain text untouched', () => {
  const cell = (value: string) => (parse(toCsv([[value]], { bom: false })) as string[][])[0][0];
  for (const start of ['=', '+', '-', '@', '\t', '\r', '\n', '\0', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']) {
    const value = `${start}1+2`;
    expect(cell(value)).toBe(`'${value}`);
    expect(unguard(cell(value))).toBe(value);
  }
  for (const value of ['-5', '-0.25', UNICODE, "O'Brien", "'quoted'", '1+2', 'a=b']) {
    expect(cell(value)).toBe(value);
    expect(unguard(value)).toBe(value);
  }
  expect(cell('+447700900123')).toBe("'+447700900123"); // a phone number stays text, with its +
  expect(toCsv([[true, false, 3]], { bom: false })).toBe('true,false,3\n');
  expect(toCsv([], { columns: ['a'], bom: true })).toBe('\uFEFFa\n');
});

test('certificates list --csv: a byte-order mark, formula cells guarded (header, API fields, data), --json as they are; --no-bom for scripts', async () => {
  const { client, batchId, certsvc } = await batch('design_modern'); // no variables: any data
  const items = FORMULAS.map((f, i) => ({ batchId, name: f, email: `f${i}@example.com`, data: { formula: f, score: '-5', phone: '+44 20 7946 0958', who: UNICODE } }));
  expect((await client.issueMany(items)).every((o) => o.kind === 'issued')).toBe(true);
  const file = path.join(world.dir, 'certs.csv');
  const listed = await certsvc(['certificates', 'list', '--batch', batchId, '--csv', file]);
  expect(listed.code).toBe(0);

  const bytes = fs.readFileSync(file);
  expect(bytes.subarray(0, 3)).toEqual(BOM);
  expect(bytes.toString('utf8')).toContain(UNICODE); // UTF-8 after the mark
  expectNoFormulaCell(file);
  const rows = records(file);
  expect(Object.keys(rows[0])[0]).toBe('id');
  expect(rows.map((r) => r['data.formula']).sort()).toEqual(FORMULAS.map((f) => `'${f}`).sort());
  expect(rows.find((r) => r.email === 'f0@example.com')).toMatchObject({ name: `'${FORMULAS[0]}`, 'data.score': '-5', 'data.phone': "'+44 20 7946 0958", 'data.who': UNICODE });

  const json = JSON.parse((await certsvc(['certificates', 'list', '--batch', batchId, '--json'])).stdout) as Array<{ email: string; data: Record<string, string> }>;
  expect(json.map((c) => c.data.formula).sort()).toEqual([...FORMULAS].sort());

  const plain = path.join(world.dir, 'certs-no-bom.csv');
  expect((await certsvc(['certificates', 'list', '--batch', batchId, '--csv', plain, '--no-bom'])).code).toBe(0);
  expect(fs.readFileSync(plain).subarray(0, 3).toString('latin1')).toBe('id,');
  expect(parse(fs.readFileSync(plain), { columns: true })[0]).toHaveProperty('id'); // no bom option needed
});

/** Lines 3 (bad email) and 7 (the required course left empty) are bad; every row has a cell a spreadsheet would run. */
const MIXED = [
  'name,email,Course',
  '"=HYPERLINK(""http://x"",""Click"")",a@example.com,Safety 101',
  'Bad Email,not-an-email,Safety 101',
  '+1+2,=1+2@example.org,Safety 101',
  '-1+2,b@example.com,-5',
  '@SUM(1+1),c@example.com,"\t=1+2"',
  'Empty Course,d@example.com,',
  '"\t=1+2",e@example.com,@Safety',
].join('\n'); // (no cell with a line break: csv-parse then counts a later line, a known limit)

test('a refused run: every bad row at once, by line; --errors (every row not issued, with why) and --out (every row) are written; a dry run says the same and exits 2', async () => {
  const { batchId, certsvc } = await batch('design_minimal'); // `course` is required
  const csv = path.join(world.dir, 'mixed.csv');
  fs.writeFileSync(csv, MIXED);
  const errors = path.join(world.dir, 'mixed-errors.csv');
  const out = path.join(world.dir, 'mixed-out.csv');
  world.sb.controls.resetCounters();

  const dry = await certsvc(['issue', '--dry-run', '--batch', batchId, '--csv', csv]);
  expect(dry.code).toBe(2); // as the real run: bad rows, nothing sent
  expect(dry.stderr).toMatch(/^line 3: invalid, Invalid "email"/m);
  expect(dry.stderr).toMatch(/^line 7: invalid, "course" is required by the design and is empty$/m);
  expect((await certsvc(['issue', '--dry-run', '--skip-invalid', '--batch', batchId, '--csv', csv])).code).toBe(1); // as the real run with --skip-invalid

  const refused = await certsvc(['issue', '--batch', batchId, '--csv', csv, '--errors', errors, '--out', out]);
  expect(refused.code).toBe(2);
  expect(refused.stdout).toBe('');
  expect(refused.stderr).toMatch(/has 2 bad rows; nothing was sent \(--skip-invalid issues the others\)\.\n {2}line 3: Invalid "email": "not-an-email" is not a valid email address\n {2}line 7: "course" is required by the design and is empty\n$/);
  expect(refused.stderr).toContain(`7 rows not issued, each with why: ${errors}`);
  expect(posts()).toBe(0);
  expect(world.sb.controls.certificates(batchId)).toHaveLength(0);

  for (const file of [errors, out]) {
    expect(fs.readFileSync(file).subarray(0, 3)).toEqual(BOM);
    expectNoFormulaCell(file);
  }
  const notIssued = records(errors);
  expect(Object.keys(notIssued[0])).toEqual(['line', 'name', 'email', 'course', 'outcome', 'code', 'message', 'outcomeUnknown']);
  expect(notIssued.map((r) => [r.line, r.outcome])).toEqual([['2', 'notSent'], ['3', 'invalid'], ['4', 'notSent'], ['5', 'notSent'], ['6', 'notSent'], ['7', 'invalid'], ['8', 'notSent']]);
  expect(notIssued[1]).toMatchObject({ email: 'not-an-email', code: 'VALIDATION_ERROR', message: 'Invalid "email": "not-an-email" is not a valid email address' });
  expect(notIssued[5]).toMatchObject({ course: '', message: '"course" is required by the design and is empty' });
  expect(notIssued[2]).toMatchObject({ name: "'+1+2", email: "'=1+2@example.org", course: 'Safety 101', message: 'not sent: line 3 is invalid, and nothing is sent while a row is invalid (--skip-invalid issues the others)' });
  expect(notIssued[0].name).toBe(`'=HYPERLINK("http://x","Click")`);
  expect(notIssued[3]).toMatchObject({ name: "'-1+2", course: '-5' });
  expect(notIssued[4]).toMatchObject({ name: "'@SUM(1+1)", course: "'\t=1+2" });
  expect(notIssued[6]).toMatchObject({ name: "'\t=1+2", course: "'@Safety" });

  const every = records(out);
  expect(every.map((r) => [r.line, r.outcome]).sort()).toEqual(notIssued.map((r) => [r.line, r.outcome]));
  expect(every.find((r) => r.line === '4')).toMatchObject({ name: "'+1+2", email: "'=1+2@example.org", certificateId: '' });
});

test('round trip: that --errors file, fixed as a user would (byte-order mark and guards left in), issues every row as it was; its report columns are not sent', async () => {
  const { batchId, certsvc } = await batch('design_minimal');
  const csv = path.join(world.dir, 'trip.csv');
  fs.writeFileSync(csv, MIXED);
  const errors = path.join(world.dir, 'trip-errors.csv');
  expect((await certsvc(['issue', '--batch', batchId, '--csv', csv, '--errors', errors])).code).toBe(2);
  // The two fixes, typed into the file as written (a spreadsheet shows and saves the leading ').
  const text = fs.readFileSync(errors, 'utf8');
  const fixed = text.replace('not-an-email', 'fixed@example.com').replace(/^7,Empty Course,d@example\.com,,/m, '7,Empty Course,d@example.com,Safety 102,');
  expect(fixed).not.toBe(text.replace('not-an-email', 'fixed@example.com'));
  expect(fixed.startsWith('\uFEFF')).toBe(true);
  fs.writeFileSync(errors, fixed);

  const again = await certsvc(['issue', '--batch', batchId, '--csv', errors]);
  expect(again.stderr).toContain('is a certsvc --errors file: its columns line, outcome, code, message, outcomeUnknown are not sent');
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ issued: 7, invalid: 0 });
  const issued = new Map(world.sb.controls.certificates(batchId).map((c) => [c.email, c]));
  expect([...issued.values()].map((c) => Object.keys(c.data))).toEqual(Array(7).fill(['course']));
  const byEmail = (email: string) => ({ name: issued.get(email)?.name, course: issued.get(email)?.data.course });
  expect(byEmail('a@example.com')).toEqual({ name: '=HYPERLINK("http://x","Click")', course: 'Safety 101' });
  expect(byEmail('fixed@example.com')).toEqual({ name: 'Bad Email', course: 'Safety 101' });
  expect(byEmail('=1+2@example.org')).toEqual({ name: '+1+2', course: 'Safety 101' });
  expect(byEmail('b@example.com')).toEqual({ name: '-1+2', course: '-5' });
  expect(byEmail('c@example.com')).toEqual({ name: '@SUM(1+1)', course: '\t=1+2' });
  expect(byEmail('d@example.com')).toEqual({ name: 'Empty Course', course: 'Safety 102' });
  expect(byEmail('e@example.com')).toEqual({ name: '=1+2', course: '@Safety' }); // the name trimmed by the core, as on the first read
});

test('--errors after a failed call: the message does not start with the email (=1+2@example.org has its own column); --no-bom writes both files without the mark', async () => {
  const { batchId, certsvc } = await batch('design_classic');
  const csv = path.join(world.dir, 'fails.csv');
  fs.writeFileSync(csv, 'name,email\nA,=1+2@example.org\nB,b@example.com\n');
  const errors = path.join(world.dir, 'fails-errors.csv');
  const out = path.join(world.dir, 'fails-out.csv');
  world.sb.controls.injectFaults({ kind: '500', match: { method: 'POST', path: '^/api/v1/batches/[^/]+/recipients/bulk$' }, count: 1 });
  const r = await certsvc(['issue', '--batch', batchId, '--csv', csv, '--errors', errors, '--out', out, '--no-bom']);
  world.sb.controls.clearFaults();
  expect(r.code).toBe(1);
  for (const file of [errors, out]) {
    expect(fs.readFileSync(file).subarray(0, 5).toString('latin1')).toBe('line,');
    expectNoFormulaCell(file);
  }
  const [first] = parse(fs.readFileSync(errors), { columns: true }) as Array<Record<string, string>>;
  expect(first).toMatchObject({ email: "'=1+2@example.org", outcome: 'unknown', outcomeUnknown: 'true' });
  expect(first.message).toMatch(/^Outcome unknown: POST /);
});
