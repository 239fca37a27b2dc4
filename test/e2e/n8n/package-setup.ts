/**
 * Helpers around the harness for runs that load OUR package into n8n.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { newestMtime } from '../../support/files';

const REPO_ROOT = path.resolve(__dirname, '../../..');
export const PACKAGE_DIR = path.join(REPO_ROOT, 'n8n');

/** The community package's package.json, as it is on disk now. */
export const packageJson = (): Record<string, any> => JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));

/**
 * Builds the community package (`npm run build -w n8n`) when n8n/dist is missing or older than
 * its sources (as test/n8n/package.test.ts does), so parallel test files that read dist are
 * not disturbed by needless rebuilds. Returns whether it built.
 */
export function ensurePackageBuilt(opts: { force?: boolean } = {}): boolean {
  const sources = Math.max(
    ...['nodes', 'credentials', 'icons', 'scripts', 'package.json'].map((d) => newestMtime(path.join(PACKAGE_DIR, d))),
    newestMtime(path.join(REPO_ROOT, 'shared', 'sdk', 'src')),
    // the build stamps the publisher's identity
    newestMtime(path.join(REPO_ROOT, 'publisher.json')),
    newestMtime(path.join(REPO_ROOT, 'release')),
  );
  const dist = path.join(PACKAGE_DIR, 'dist');
  if (!opts.force && fs.existsSync(dist) && newestMtime(dist) >= sources) return false;
  const res = spawnSync('npm', ['run', 'build', '-w', 'n8n'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`npm run build -w n8n failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
  return true;
}

/**
 * Copies the built community package (package.json + dist/) into a fresh temp folder
 * OUTSIDE the repo and returns that folder, for N8N_CUSTOM_EXTENSIONS.
 *
 * Why a copy: loaded from the repo, `require('n8n-workflow')` in dist/ would resolve to the
 * repo's node_modules (a different n8n-workflow copy than n8n's own), so classes such as
 * NodeOperationError would fail n8n's `instanceof` checks. From a folder with no
 * node_modules above it, the require falls through to the NODE_PATH that n8n sets to its
 * own module paths.
 */
export function copyPackageToExtensionsDir(packageDir: string): string {
  const dist = path.join(packageDir, 'dist');
  if (!fs.existsSync(dist)) throw new Error(`${dist} is missing; run \`npm run build -w n8n\` first`);
  const extDir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-n8n-ext-'));
  const target = path.join(extDir, 'n8n-nodes-certificate-service');
  fs.mkdirSync(target);
  fs.copyFileSync(path.join(packageDir, 'package.json'), path.join(target, 'package.json'));
  fs.cpSync(dist, path.join(target, 'dist'), { recursive: true });
  return extDir;
}

// Process helpers, kept with the other test support (the sandbox's CLI test uses them too).
export { alive, processesWithEnv, withDescendants } from '../../support/processes';
