/**
 * Builds the bench-only floor trigger (BenchFloorTrigger.node.ts) into a folder of its own inside
 * a custom-extensions folder (the one test/e2e/n8n/package-setup.ts made for our package). n8n
 * loads every `*.node.js` under that folder as `CUSTOM.<name>` (n8n-core custom-directory-loader.js).
 * Not a second N8N_CUSTOM_EXTENSIONS folder: n8n 2.41.1 keeps one loader per package name, and every
 * custom folder's is `CUSTOM`, so only the last folder listed would load
 * (n8n/dist/load-nodes-and-credentials.js, runDirectoryLoader, line 367). The node imports only
 * types, so the compiled file requires nothing.
 */
import path from 'node:path';
import { buildSync } from 'esbuild';

export const FLOOR_TRIGGER = 'CUSTOM.benchFloorTrigger';

/** Adds `bench-floor-trigger/BenchFloorTrigger.node.js` to the custom-extensions folder `extDir`. */
export function addFloorTrigger(extDir: string): void {
  buildSync({
    entryPoints: [path.join(__dirname, 'BenchFloorTrigger.node.ts')],
    outfile: path.join(extDir, 'bench-floor-trigger', 'BenchFloorTrigger.node.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    logLevel: 'silent',
  });
}
