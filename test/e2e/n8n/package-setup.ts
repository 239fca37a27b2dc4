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

/**
 * PIDs of the live processes whose environment contains `marker` (e.g.
 * `N8N_USER_FOLDER=/tmp/certsvc-n8n-abc`), from /proc; Linux only ([] elsewhere).
 * n8n passes only a few variables to its task runners, so use `withDescendants` to find those.
 */
export function processesWithEnv(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (environ.split('\0').includes(marker)) {
      // A zombie has an empty environ, so a match is a live process; skip ourselves anyway.
      if (Number(entry) !== process.pid) pids.push(Number(entry));
    }
  }
  return pids;
}

/** `pids` and all their descendants (by parent PID, from /proc); Linux only. */
export function withDescendants(pids: number[]): number[] {
  if (process.platform !== 'linux') return pids;
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const out = new Set<number>();
  const queue = [...pids];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (out.has(pid)) continue;
    out.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...out];
}

/** The PIDs among `pids` that are still running (zombies count as gone); Linux only. */
export function alive(pids: number[]): number[] {
  if (process.platform !== 'linux') return [];
  return pids.filter((pid) => {
    const stat = readStat(pid);
    return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
  });
}

function readStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses, so split after the last ')'.
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}
