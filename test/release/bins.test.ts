// The bins the builds write are executable. tsc writes 0644, and `npm exec` marks a bin
// executable only when it first links the package into its cache (~/.npm/_npx, keyed by path):
// seen in a clone made again at the same path, where `npm exec -w shared/sandbox --
// certsvc-sandbox` failed with "sh: 1: certsvc-sandbox: Permission denied".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeBinsExecutable } = require('../../release/bins.js') as { makeBinsExecutable: (dir: string) => string[] };

const ROOT = path.join(__dirname, '../..');
const packages = fs.readdirSync(path.join(ROOT, 'shared')).map((name) => path.join(ROOT, 'shared', name)).filter((dir) => fs.existsSync(path.join(dir, 'package.json')));
const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { bin?: Record<string, string>; scripts?: Record<string, string> };
const mode = (file: string) => fs.statSync(file).mode & 0o777;

test('makeBinsExecutable marks every file under "bin" 0755, in either form of the field', () => {
  for (const bin of [{ a: 'dist/a.js', b: 'dist/b.js' }, 'dist/a.js']) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-bins-'));
    fs.mkdirSync(path.join(dir, 'dist'));
    for (const f of ['a.js', 'b.js']) fs.writeFileSync(path.join(dir, 'dist', f), '', { mode: 0o644 });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', bin }));
    const marked = makeBinsExecutable(dir);
    expect(marked.map((f) => [f, mode(path.join(dir, f))])).toEqual((typeof bin === 'string' ? [bin] : Object.values(bin)).map((f) => [f, 0o755]));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('each package whose bin the build writes marks it executable in its build, and the built bins are', () => {
  const built = packages.filter((dir) => Object.values(manifest(dir).bin ?? {}).some((f) => f.startsWith('dist/')));
  expect(built.map((dir) => path.basename(dir)).sort()).toEqual(['cli', 'mcp', 'sandbox']);
  for (const dir of built) {
    expect(manifest(dir).scripts?.build).toMatch(/&& node \.\.\/\.\.\/release\/bins\.js$/);
    for (const file of Object.values(manifest(dir).bin!)) expect([file, mode(path.join(dir, file)) & 0o111]).toEqual([file, 0o111]);
  }
});
