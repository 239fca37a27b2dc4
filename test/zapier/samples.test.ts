// Every output field of every trigger, create and search appears in its sample: the sample is
// what the Zap editor shows before a real run, so it must show the whole shape (issue 19, item 4).
// The operations are read from the app definition, so new ones are covered without a change here.
import { app } from './helpers';

type Operation = { operation: { sample?: Record<string, unknown>; outputFields?: Array<{ key: string }>; hidden?: boolean }; display?: { hidden?: boolean } };
const all = (kind: 'triggers' | 'creates' | 'searches') => Object.entries(app[kind] as Record<string, Operation>).map(([key, op]) => [`${kind}.${key}`, op] as const);
const operations = [...all('triggers'), ...all('creates'), ...all('searches')].filter(([, op]) => op.operation.outputFields?.length);

/**
 * A Zapier output key read from a sample: `viewer__viewedAt` is nested; `results[]line` is a
 * line item, read from every line (undefined when a line lacks it, or there are none).
 */
function read(sample: Record<string, unknown>, key: string): unknown {
  const [list, child] = key.split('[]');
  if (child !== undefined) {
    const lines = sample[list];
    if (!Array.isArray(lines) || lines.length === 0) return undefined;
    const values = lines.map((line) => read(line as Record<string, unknown>, child));
    return values.some((v) => v === undefined || v === null) ? undefined : values;
  }
  return key.split('__').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), sample);
}

test('the operations with output fields are found (triggers, creates and searches)', () => {
  const kinds = new Set(operations.map(([name]) => name.split('.')[0]));
  expect([...kinds].sort()).toEqual(['creates', 'searches', 'triggers']);
  expect(operations.length).toBeGreaterThanOrEqual(15);
});

test.each(operations)('%s: every output field has a value in the sample', (_name, op) => {
  const sample = op.operation.sample!;
  expect(sample).toBeDefined();
  const missing = op.operation.outputFields!.map((f) => f.key).filter((key) => read(sample, key) === undefined || read(sample, key) === null);
  expect(missing).toEqual([]);
});
