// Every shell block of the READMEs and docs/ is either run by `npm run test:readme` or listed in
// test/readme/blocks.ts with the reason it is not; every fence says its language, so a shell
// block cannot hide as an unlabelled one.
import fs from 'node:fs';
import path from 'node:path';
import { PLANS } from './blocks';
import { fences, markdownFiles, ROOT, shellBlocks } from './markdown';

const blocks = shellBlocks();

test('every fence has a language (sh or bash for commands, text for diagrams)', () => {
  const bare = markdownFiles().flatMap(fences).filter((f) => !f.lang);
  expect(bare.map((f) => `${f.file}:${f.line}`)).toEqual([]);
});

test('every shell block is listed, and every listed block exists', () => {
  expect(blocks.map((b) => b.key).sort()).toEqual(Object.keys(PLANS).sort());
});

test.each(blocks.map((b) => [b.key, b] as const))('%s: the lines it skips or serves are in it, with a reason', (key, block) => {
  const plan = PLANS[key];
  const lines = block.text.split('\n').map((l) => l.trim());
  if ('notRun' in plan) return expect(plan.notRun.length).toBeGreaterThan(20);
  if (plan.registry !== undefined) expect(plan.registry.length).toBeGreaterThan(20);
  for (const [line, why] of Object.entries({ ...plan.skip, ...plan.servers })) {
    expect(lines).toContain(line);
    expect(why.length).toBeGreaterThan(4);
  }
});

test('the running suite is only in `npm run test:readme`: `npm test` and `npm run test:unit` leave it out, the fast checks stay in', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; jest: { testPathIgnorePatterns: string[] } };
  const ignored = (patterns: string[], file: string) => patterns.some((p) => new RegExp(p.replace('<rootDir>', ROOT)).test(path.join(ROOT, file)));
  const unitIgnores = [...pkg.scripts['test:unit'].matchAll(/'([^']+)'/g)].map((m) => m[1]);
  for (const patterns of [pkg.jest.testPathIgnorePatterns, unitIgnores]) {
    expect(ignored(patterns, 'test/readme/blocks.e2e.test.ts')).toBe(true);
    expect(ignored(patterns, 'test/readme/blocks.test.ts')).toBe(false);
  }
  expect(fs.existsSync(path.join(ROOT, 'test/readme/blocks.e2e.test.ts'))).toBe(true);
  expect(pkg.scripts['test:readme']).toMatch(/--testPathIgnorePatterns \/node_modules\/ .*test\/readme\/$/);
});
