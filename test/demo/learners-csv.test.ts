// examples/learners.csv, the sample the root README issues from: `certsvc issue` (in process)
// issues every row into a batch of each sandbox design that has variables (Classic: course and
// score, optional; Minimal: course, required, and no score: the column is refused unless
// --allow-unknown-columns), with the design check on, and the certificates carry the variables.
import path from 'node:path';
import { createClient } from '@certificate-service/sdk';
import { createSandbox, DESIGNS, type Sandbox } from '@certificate-service/sandbox';
import { runCli } from '../support/cli';

const CSV = path.resolve(__dirname, '../../examples/learners.csv');
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
}, 120_000);
afterAll(() => sb.close());

const certsvc = (args: string[]) => runCli(args, { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey! });

test.each(DESIGNS.filter((d) => d.variables?.length).map((d) => [d.id, d.variables!.map((v) => v.name)] as const))(
  'every row is issued into a %s batch, filling its variables',
  async (designId, variables) => {
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey! });
    const batch = await client.createBatch({ title: `Sample ${designId}`, designId });
    // A column this design has no variable for (Minimal has no score) refuses every row, naming it;
    // --allow-unknown-columns sends it, and says so. The README issues into Classic: nothing is said.
    const columns = ['course', 'score'];
    const unknown = columns.filter((c) => !variables.includes(c));
    let run = await certsvc(['issue', '--batch', batch.id, '--csv', CSV]);
    if (unknown.length) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`"${unknown[0]}" is not a variable of the certificate design`);
      expect(sb.controls.certificates(batch.id)).toHaveLength(0);
      run = await certsvc(['issue', '--batch', batch.id, '--csv', CSV, '--allow-unknown-columns']);
    }
    expect(run.code).toBe(0);
    const warned = run.stderr.split('\n').filter(Boolean).map((line) => /^`(\w+)`: not a variable of this design/.exec(line)?.[1] ?? line);
    expect(warned).toEqual(unknown);
    const summary = JSON.parse(run.stdout.trim()) as { issued: number };
    expect(summary).toMatchObject({ issued: expect.any(Number), failed: 0, invalid: 0, unknown: 0 });
    expect(summary.issued).toBeGreaterThanOrEqual(3);
    const certificates = sb.controls.certificates(batch.id);
    expect(certificates).toHaveLength(summary.issued);
    // Every required variable, and the variables the CSV has a column for, are filled on every row.
    for (const c of certificates) expect(Object.keys(c.data).filter((k) => variables.includes(k)).sort()).toEqual(variables.filter((v) => v !== 'completedOn').sort());
  },
  60_000,
);
