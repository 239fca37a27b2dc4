import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

// The pack stamps a package.json in the working tree while other processes may read it: Node
// reads the nearest package.json when it resolves a module (test/demo/serve.test.ts once failed
// with "Invalid package config shared/sdk/package.json" while a pack ran beside it). So the stamp
// replaces the file in one step (write aside, rename): a reader sees the old file or the new one,
// never a half-written one.
const { stampPackageJson, readPublisher } = require('../../release/publisher.js') as {
  stampPackageJson: (dir: string, publisher: unknown, root: string) => boolean;
  readPublisher: () => Record<string, string>;
};

it('a reader never sees a half-written package.json while it is stamped', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-stamp-'));
  const file = path.join(root, 'pkg', 'package.json');
  fs.mkdirSync(path.dirname(file));
  // Big enough that a write takes more than one read's time.
  const filler = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, 'x'.repeat(40)]));
  fs.writeFileSync(file, `${JSON.stringify({ name: 'pkg', version: '1.0.0', filler }, null, 2)}\n`);
  const base = readPublisher();
  const publishers = [base, { ...base, author: `${base.author} (other)` }];

  const reader = new Worker(
    `const fs = require('node:fs'); const { parentPort, workerData } = require('node:worker_threads');
     let reads = 0, bad = 0, stop = false;
     parentPort.on('message', () => { stop = true; });
     (function loop() {
       for (let i = 0; i < 200; i++) { reads++; try { JSON.parse(fs.readFileSync(workerData, 'utf8')); } catch { bad++; } }
       if (stop) parentPort.postMessage({ reads, bad }); else setImmediate(loop);
     })();`,
    { eval: true, workerData: file },
  );
  const result = new Promise<{ reads: number; bad: number }>((resolve) => reader.once('message', resolve));
  for (let i = 0; i < 400; i++) stampPackageJson('pkg', publishers[i % 2], root);
  reader.postMessage('stop');
  const { reads, bad } = await result;
  await reader.terminate();
  const left = fs.readdirSync(path.dirname(file));
  fs.rmSync(root, { recursive: true, force: true });
  expect(reads).toBeGreaterThan(100);
  expect(bad).toBe(0);
  expect(left).toEqual(['package.json']); // nothing left aside
}, 60_000);
