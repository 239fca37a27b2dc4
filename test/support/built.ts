// The builds of the packages under shared/ (sdk, cli, sandbox, mcp), made when missing or older than
// their sources, as users get them. The CLI and the sandbox build against the SDK's dist.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { newestMtime } from '../support/files';

export const PACKAGES = {
  sdk: path.resolve(__dirname, '../../shared/sdk'),
  // The sandbox before the CLI: the CLI reads the sandbox's delivery log with its type (type only).
  sandbox: path.resolve(__dirname, '../../shared/sandbox'),
  cli: path.resolve(__dirname, '../../shared/cli'),
  mcp: path.resolve(__dirname, '../../shared/mcp'),
};
export const CLI = path.join(PACKAGES.cli, 'dist/main.js');
export const MCP = path.join(PACKAGES.mcp, 'dist/main.js');
const run = promisify(execFile);

/** `npm test` builds first; run alone, a jest file builds the packages itself when they are stale. */
export async function ensureBuilt(): Promise<void> {
  for (const dir of Object.values(PACKAGES)) {
    const dist = path.join(dir, 'dist');
    // What tsc reads: not package.json, which a pack stamps and puts back while other tests run.
    const sources = Math.max(newestMtime(path.join(dir, 'src')), fs.statSync(path.join(dir, 'tsconfig.json')).mtimeMs);
    if (fs.existsSync(dist) && newestMtime(dist) >= sources) continue;
    await run(process.execPath, [path.resolve(__dirname, '../../node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')]);
  }
}
