// `npm run test:unit`'s figures in the root README (tests, seconds, load) come from
// test/timing/unit.json, which `npm run test:unit:measure` writes from runs it times itself, so
// no figure is typed by hand (test/timing/unit.test.ts fails when the README and the file differ).
// The coverage thresholds it quotes are package.json's.
//   npm run test:unit:measure               one run of `npm run test:unit`, timed; writes unit.json and the README
//   npm run test:unit:measure -- --runs 3   three runs, one after the other
//   npx tsx test/timing/unit.ts --docs      only rewrites the README from unit.json
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
export const MEASUREMENT = path.join(__dirname, 'unit.json');
export const TARGETS = [path.join(ROOT, 'README.md')];
const BEGIN = '<!-- unit:begin: generated from test/timing/unit.json by `npm run test:unit:measure`; do not edit -->';
const END = '<!-- unit:end -->';

export interface Run {
  measuredAt: string;
  /** Wall time of the whole `npm run test:unit`, its build included. */
  seconds: number;
  tests: number;
  suites: number;
  /** 1-minute load average just before the run, and just after it. */
  loadBefore: number;
  loadAfter: number;
}
export interface Measurement {
  about: string;
  cpus: number;
  runs: Run[];
}

/** The SDK core's coverage thresholds, which `npm test` enforces (package.json). */
export function coverageThreshold(): { lines: number; branches: number } {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { jest: { coverageThreshold: { global: { lines: number; branches: number } } } }).jest.coverageThreshold.global;
}

const n = (x: number) => x.toLocaleString('en-US');
const list = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
const range = (xs: number[]) => (Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}–${Math.max(...xs)}`);

/** The README's block: the figures of `m`, or nothing before the first measurement (no figure is typed by hand). */
export function unitBlock(m: Measurement | undefined): string {
  if (!m) return `${BEGIN}\n${END}`;
  const tests = [...new Set(m.runs.map((r) => r.tests))];
  const dates = [...new Set(m.runs.map((r) => r.measuredAt.slice(0, 10)))];
  const threshold = coverageThreshold();
  const text =
    `\`npm run test:unit\` is the fast inner loop: everything that needs no n8n install, no browser and no ` +
    `Debian service, without the hosts' own tools and without coverage ([docs/tests.md](docs/tests.md) says why; ${list(tests.map(n))} tests; ${list(m.runs.map((r) => `${Math.round(r.seconds)}`))} s in ` +
    `${m.runs.length === 1 ? 'one run' : `${m.runs.length} runs`} on a ${m.cpus}-core machine, build included, jest's cache warm (a first run in a new clone takes longer), with a 1-minute ` +
    `load average of ${range(m.runs.map((r) => r.loadBefore))} before ${m.runs.length === 1 ? 'it' : 'each'}; ` +
    `\`npm run test:unit:measure\`, ${list(dates)}). \`npm test\` also measures the SDK core's coverage ` +
    `(\`shared/sdk/src\`) and fails below ${threshold.lines} % of lines or ${threshold.branches} % of branches; ` +
    `\`npm run test:unit -- --coverage\` measures it in the loop.`;
  return `${BEGIN}\n${text}\n${END}`;
}

/** The file's text with its block replaced by `block`; throws when the markers are missing. */
export function withBlock(text: string, block: string, file: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} has no ${BEGIN} … ${END} block`);
  return text.slice(0, start) + block + text.slice(end + END.length);
}

export function readMeasurement(): Measurement | undefined {
  return fs.existsSync(MEASUREMENT) ? (JSON.parse(fs.readFileSync(MEASUREMENT, 'utf8')) as Measurement) : undefined;
}

export function writeDocs(m = readMeasurement()): void {
  for (const file of TARGETS) fs.writeFileSync(file, withBlock(fs.readFileSync(file, 'utf8'), unitBlock(m), file));
}

/** One timed `npm run test:unit`, with jest's own counts; throws when anything failed. */
function measureOnce(): Run {
  const summary = path.join(ROOT, '.tmp', 'unit-measure.json');
  fs.mkdirSync(path.dirname(summary), { recursive: true });
  fs.rmSync(summary, { force: true });
  const loadBefore = os.loadavg()[0];
  const started = Date.now();
  const run = spawnSync('npm', ['run', 'test:unit', '--', '--json', `--outputFile=${summary}`], { cwd: ROOT, stdio: 'inherit' });
  const seconds = (Date.now() - started) / 1000;
  const loadAfter = os.loadavg()[0];
  if (run.status !== 0 || !fs.existsSync(summary)) throw new Error(`npm run test:unit failed (exit ${run.status}): a failed run is not the loop's time, so nothing was written`);
  const jest = JSON.parse(fs.readFileSync(summary, 'utf8')) as { numTotalTests: number; numFailedTests: number; numTotalTestSuites: number };
  if (jest.numFailedTests > 0) throw new Error(`${jest.numFailedTests} tests failed: nothing was written`);
  return {
    measuredAt: new Date(started).toISOString(),
    seconds: Math.round(seconds * 10) / 10,
    tests: jest.numTotalTests,
    suites: jest.numTotalTestSuites,
    loadBefore: Math.round(loadBefore * 100) / 100,
    loadAfter: Math.round(loadAfter * 100) / 100,
  };
}

function main(argv: string[]): void {
  if (argv.includes('--docs')) return writeDocs();
  const i = argv.indexOf('--runs');
  const count = i < 0 ? 1 : Number(argv[i + 1]);
  if (!Number.isInteger(count) || count < 1) throw new Error('--runs takes a whole number of runs, e.g. --runs 3');
  const measurement: Measurement = {
    about: 'Written by test/timing/unit.ts (npm run test:unit:measure): wall time of whole `npm run test:unit` runs, build included.',
    cpus: os.cpus().length,
    runs: Array.from({ length: count }, () => measureOnce()),
  };
  fs.writeFileSync(MEASUREMENT, `${JSON.stringify(measurement, null, 2)}\n`);
  writeDocs(measurement);
  console.log(`wrote ${path.relative(ROOT, MEASUREMENT)} and the README: ${measurement.runs.map((r) => `${r.tests} tests in ${r.seconds} s`).join('; ')}`);
}

if (require.main === module) main(process.argv.slice(2));
