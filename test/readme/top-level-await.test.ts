// A README example with a top-level `await` runs only as an ES module; `npm init -y` makes a
// CommonJS app, so such a block names its file (`// recover.mts`, `// issue.mjs`) on its first
// line, and the reader knows what to save it as.
import fs from 'node:fs';
import path from 'node:path';
import { markdownFiles } from './markdown';

const ROOT = path.resolve(__dirname, '../..');

test('every js/ts example with a top-level await names an ES-module file (.mjs or .mts) on its first line', () => {
  const offenders: string[] = [];
  let blocks = 0;
  // What users copy: the packages' READMEs and docs/ (the test suites' own notes are for maintainers).
  for (const file of markdownFiles(ROOT).filter((f) => !path.relative(ROOT, f).startsWith('test/'))) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/```(js|ts)\n([\s\S]*?)```/g)) {
      blocks++;
      const topLevelAwait = /^(?:const|let|var|for)?[^\n]*?\bawait\b/m.test(m[2].split('\n').filter((l) => !/^\s/.test(l) && !l.startsWith('//')).join('\n'));
      const firstLine = m[2].split('\n')[0];
      if (topLevelAwait && !/^\/\/ [\w.-]+\.m[jt]s\b/.test(firstLine)) offenders.push(`${path.relative(ROOT, file)}: ${firstLine}`);
    }
  }
  expect(blocks).toBeGreaterThan(5);
  expect(offenders).toEqual([]);
});
