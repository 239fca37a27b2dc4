// The next steps `npm start` ends with (serve, the CLI with the sample CSV, n8n, Zapier): every
// command, file and README section they name exists. That `npm start` prints them:
// next-steps.process.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { fences } from '../readme/markdown';
import { runCli } from '../support/cli';
import { NEXT_STEPS, SERVE_PORT } from '../../demo/next-steps';

const ROOT = path.resolve(__dirname, '../..');

test('each next step names what exists: --serve on its port, the CLI with the sample CSV, the README sections', async () => {
  expect(NEXT_STEPS).toContain(`npm start -- --serve (base URL http://127.0.0.1:${SERVE_PORT}/api/v1`);
  expect(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).toMatch(/"start": "npm run build && node --import tsx demo\/start\.ts"/);

  expect(NEXT_STEPS).toContain('--csv examples/learners.csv');
  expect(fs.readFileSync(path.join(ROOT, 'examples/learners.csv'), 'utf8').split('\n')[0]).toMatch(/^name,email,/);
  const help = (await runCli(['issue', '--help'], {})).stdout;
  expect(help).toMatch(/--batch <id>/);
  expect(help).toMatch(/--csv <file>/);

  // The sections they point to, and what those sections run.
  const tryIt = fences('README.md').filter((f) => f.key.startsWith('README.md › Try it from this clone')).map((f) => f.text).join('\n');
  expect(NEXT_STEPS).toContain('"Try it from this clone"');
  expect(tryIt).toMatch(/certsvc issue --batch .* --csv examples\/learners\.csv/);
  expect(tryIt).toMatch(/install-n8n\.sh/);
  const invoke = fences('zapier/README.md').filter((f) => f.key.startsWith('zapier/README.md › Try it locally')).map((f) => f.text).join('\n');
  expect(NEXT_STEPS).toContain('zapier/README.md, "Try it locally"');
  expect(invoke).toMatch(/zapier-platform invoke/);
});
