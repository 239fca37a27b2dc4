// `npm run test:unit`'s timings (tests, seconds, load) in docs/tests.md come from
// test/timing/unit.json, which `npm run test:unit:measure` writes from runs it times itself, so
// no figure is typed by hand (test/timing/unit.docs.test.ts fails when the table and the file differ).
// They are a table, not a sentence: no generated prose.
//   npm run test:unit:measure               one run of `npm run test:unit`, timed; writes unit.json and the table
//   npm run test:unit:measure -- --runs 3   three runs, one after the other
//   npx tsx test/timing/unit.ts --docs      only rewrites the table from unit.json
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replaceMarkedBlock } from '../support/files';

const ROOT = path.resolve(__dirname, '../..');
export const MEASUREMENT = path.join(__dirname, 'unit.json');
export const TARGETS = [path.join(ROOT, 'docs/tests.md')];
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

/** The table of `m`: one row per run; only the header before the first measurement (no figure is typed by hand). */
export function unitBlock(m: Measurement | undefined): string {
  const rows = !m ? [] : m.runs.map((r, i) => `| ${i + 1} | ${r.measuredAt.slice(0, 16).replace('T', ' ')} UTC | ${m.cpus} | ${r.tests.toLocaleString('en-US')} | ${Math.round(r.seconds)} | ${r.loadBefore.toFixed(2)} | ${r.loadAfter.toFixed(2)} |`);
  const table = ['| run | started | cores | tests | seconds, build included | load before | load after |', '|---|---|---|---|---|---|---|', ...rows];
  return `${BEGIN}\n${table.join('\n')}\n${END}`;
}

/** The file's text with its block replaced by `block`; throws when the markers are missing. */
export function withBlock(text: string, block: string, file: string): string {
  return replaceMarkedBlock(text, BEGIN, END, block, file);
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
  console.log(`wrote ${path.relative(ROOT, MEASUREMENT)} and docs/tests.md: ${measurement.runs.map((r) => `${r.tests} tests in ${r.seconds} s`).join('; ')}`);
}

if (require.main === module) main(process.argv.slice(2));
