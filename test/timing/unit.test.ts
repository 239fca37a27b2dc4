// The root README's `npm run test:unit` figures are exactly what test/timing/unit.json holds
// (written by `npm run test:unit:measure` from timed runs).
import fs from 'node:fs';
import path from 'node:path';
import { coverageThreshold, readMeasurement, TARGETS, unitBlock, withBlock } from './unit';

test.each(TARGETS.map((file) => [path.relative(path.resolve(__dirname, '../..'), file), file]))('%s shows the figures of unit.json', (_name, file) => {
  const text = fs.readFileSync(file, 'utf8');
  expect(text).toBe(withBlock(text, unitBlock(readMeasurement()), file));
});

test('the block is rebuilt from the measurement: a changed figure changes it; no measurement, no figure', () => {
  const m = readMeasurement() ?? {
    about: '',
    cpus: 2,
    runs: [{ measuredAt: '2026-01-01T00:00:00.000Z', seconds: 1, tests: 1, suites: 1, loadBefore: 0, loadAfter: 0 }],
  };
  expect(unitBlock(undefined)).not.toMatch(/\d/);
  const slower = { ...m, runs: m.runs.map((r) => ({ ...r, seconds: r.seconds + 60 })) };
  expect(unitBlock(slower)).not.toBe(unitBlock(m));
  const { lines, branches } = coverageThreshold();
  expect(unitBlock(m)).toContain(`fails below ${lines} % of lines or ${branches} % of branches`);
});
