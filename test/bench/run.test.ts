// `--only` replaces the rows of the benchmarks it runs and no others (test/bench/run.ts benchOf).
import { benchOf } from './run';

test.each([
  ['P9', 'P9'],
  ['P9d', 'P9'],
  ['P9g', 'P9'],
  ['P9r', 'P9R'],
  ['P9rd', 'P9R'],
  ['P9rs', 'P9R'],
  ['P4a', 'P4'],
  ['S1', 'S'],
  ['S3', 'S3'],
])('row %s belongs to benchmark %s', (row, bench) => {
  expect(benchOf(row)).toBe(bench);
});
