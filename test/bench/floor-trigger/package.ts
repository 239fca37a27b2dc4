/**
 * Builds the bench-only floor trigger (BenchFloorTrigger.node.ts) into a custom-extensions folder
 * of its own, outside the repo, as test/e2e/n8n/package-setup.ts does for our package. n8n loads
 * every `*.node.js` of such a folder as `CUSTOM.<name>` (n8n-core custom-directory-loader.js);
 * the node imports only types, so the compiled file requires nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';

export const FLOOR_TRIGGER = 'CUSTOM.benchFloorTrigger';

/** A fresh folder holding BenchFloorTrigger.node.js; the caller removes it. */
export function floorTriggerExtensionsDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-bench-floor-'));
  buildSync({
    entryPoints: [path.join(__dirname, 'BenchFloorTrigger.node.ts')],
    outfile: path.join(dir, 'BenchFloorTrigger.node.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    logLevel: 'silent',
  });
  return dir;
}
