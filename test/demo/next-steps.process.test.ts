// `npm start` (its script after the build: the demo under tsx, a child process) ends with the
// next steps. A process test: `npm test` runs it, `npm run test:unit` leaves it out.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { EMBEDDED_SANDBOX, NEXT_STEPS, SERVE_PORT } from '../../demo/next-steps';

const ROOT = path.resolve(__dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');

test('npm start (its script after the build) ends with the next steps, and links to no sandbox but the one --serve starts', () => {
  const run = spawnSync(NODE, ['--import', 'tsx', 'demo/start.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr.slice(-2000) }).toEqual({ status: 0, stderr: '' });
  expect(run.stdout.trimEnd().endsWith(`All flows passed.\n\n${NEXT_STEPS}`)).toBe(true);
  // Its own sandbox stops when the report ends: the report says so and gives no address of it.
  expect(run.stdout.startsWith(`${EMBEDDED_SANDBOX}\n`)).toBe(true);
  const links = run.stdout.match(/https?:\/\/[^\s),]+/g) ?? [];
  expect(links.filter((link) => !link.startsWith(`http://127.0.0.1:${SERVE_PORT}/`))).toEqual([]);
}, 180_000);
