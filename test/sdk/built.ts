// The SDK's build (shared/dist), made when missing or older than its sources, as users get it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { newestMtime } from '../support/files';

export const SHARED = path.resolve(__dirname, '../../shared');
export const CLI = path.join(SHARED, 'dist/cli/main.js');
const run = promisify(execFile);


/** `npm test` builds first; run alone, a jest file builds the SDK itself when it is stale. */
export async function ensureBuilt(): Promise<void> {
  const dist = path.join(SHARED, 'dist');
  const sources = Math.max(newestMtime(path.join(SHARED, 'src')), fs.statSync(path.join(SHARED, 'package.json')).mtimeMs);
  if (fs.existsSync(CLI) && newestMtime(dist) >= sources) return;
  await run(process.execPath, [path.resolve(__dirname, '../../node_modules/typescript/bin/tsc'), '-p', path.join(SHARED, 'tsconfig.json')]);
}
