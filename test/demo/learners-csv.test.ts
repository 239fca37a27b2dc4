// examples/learners.csv, the sample the root README issues from: the built `certsvc issue`
// issues every row into a batch of each sandbox design that has variables (Classic: course and
// score, optional; Minimal: course, required), with the design check on, and the certificates
// carry the variables.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { createClient } from '@certificate-service/sdk';
import { createSandbox, DESIGNS, type Sandbox } from '@certificate-service/sandbox';
import { CLI, ensureBuilt } from '../support/built';

const CSV = path.resolve(__dirname, '../../examples/learners.csv');
let sb: Sandbox;
beforeAll(async () => {
  await ensureBuilt();
  sb = await createSandbox({ rateLimit: false });
}, 120_000);
afterAll(() => sb.close());

const certsvc = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey! } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

test.each(DESIGNS.filter((d) => d.variables?.length).map((d) => [d.id, d.variables!.map((v) => v.name)] as const))(
  'every row is issued into a %s batch, filling its variables',
  async (designId, variables) => {
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey! });
    const batch = await client.createBatch({ title: `Sample ${designId}`, designId });
    const run = await certsvc(['issue', '--batch', batch.id, '--csv', CSV]);
    expect(run.code).toBe(0);
    // The only thing said: a column this design has no variable for (Minimal has no score), as a warning.
    const columns = ['course', 'score'];
    const warned = run.stderr.split('\n').filter(Boolean).map((line) => /^`(\w+)`: not a variable of this design/.exec(line)?.[1] ?? line);
    expect(warned).toEqual(columns.filter((c) => !variables.includes(c)));
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
