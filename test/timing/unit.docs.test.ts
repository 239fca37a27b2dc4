// docs/tests.md's `npm run test:unit` timings are exactly what test/timing/unit.json holds
// (written by `npm run test:unit:measure` from timed runs), as a table.
import fs from 'node:fs';
import path from 'node:path';
import { readMeasurement, TARGETS, unitBlock, withBlock, type Measurement } from './unit';

test.each(TARGETS.map((file) => [path.relative(path.resolve(__dirname, '../..'), file), file]))('%s shows the figures of unit.json', (_name, file) => {
  const text = fs.readFileSync(file, 'utf8');
  expect(text).toBe(withBlock(text, unitBlock(readMeasurement()), file));
});

test('the table is rebuilt from the measurement: one row per run, a changed figure changes it; no measurement, no figure', () => {
  const m: Measurement = readMeasurement() ?? {
    about: '',
    cpus: 2,
    runs: [{ measuredAt: '2026-01-01T00:00:00.000Z', seconds: 1, tests: 1, suites: 1, loadBefore: 0, loadAfter: 0 }],
  };
  expect(unitBlock(undefined).replace(/<!--[\s\S]*?-->/g, '')).not.toMatch(/\d/);
  const rows = (b: string) => b.split('\n').filter((l) => /^\| \d/.test(l));
  expect(rows(unitBlock(m))).toHaveLength(m.runs.length);
  const slower = { ...m, runs: m.runs.map((r) => ({ ...r, seconds: r.seconds + 60 })) };
  expect(rows(unitBlock(slower)).map((l) => l.split('|')[5].trim())).toEqual(m.runs.map((r) => String(Math.round(r.seconds + 60))));
});

test('a file without the markers is refused, not silently left alone', () => {
  expect(() => withBlock('# no markers', unitBlock(undefined), 'x.md')).toThrow(/x\.md has no/);
});
