// `npm run test:unit` leaves out the tests that a rename or a new measurement breaks, not a bug:
// the walks (function and file names on the way to the HTTP call) and the figures generated into
// READMEs and docs. They are `*.docs.test.ts`, and `npm test` runs them.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; jest: { testPathIgnorePatterns: string[] } };
const ignored = (patterns: string[], file: string) => patterns.some((p) => new RegExp(p.replace('<rootDir>', ROOT)).test(path.join(ROOT, file)));
const unitIgnores = [...pkg.scripts['test:unit'].matchAll(/'([^']+)'/g)].map((m) => m[1]);

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(file);
    return e.name.endsWith('.test.ts') ? [file] : [];
  });
}
const files = testFiles('test');
/** Tests that compare a README's or a doc's figures with a generated results file, or walk our frames. */
const pinned = files.filter((f) => /\breadResults\(|\breadMeasurement\(/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')) || f.startsWith('test/walks/'));

test('the walks and every generated-figure test are *.docs.test.ts: in npm test, not in npm run test:unit', () => {
  expect(pinned.some((f) => f.startsWith('test/walks/')) && pinned.some((f) => f.startsWith('test/bench/'))).toBe(true);
  for (const file of pinned) expect(file).toMatch(/\.docs\.test\.ts$/);
  for (const file of files.filter((f) => f.endsWith('.docs.test.ts'))) {
    expect([file, ignored(unitIgnores, file)]).toEqual([file, true]);
    expect([file, ignored(pkg.jest.testPathIgnorePatterns, file)]).toEqual([file, false]);
  }
  expect(ignored(unitIgnores, 'test/cli/commands.test.ts')).toBe(false);
});
