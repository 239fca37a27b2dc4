// Runs shell blocks of the READMEs as a reader pastes them into a terminal: one bash session,
// with the substitutions docs/tests.md lists ("The README blocks"). Used by `npm run
// test:readme` (from the repository root) and `npm run test:registry` (from an empty folder,
// with npm's registry set to a local one).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, withDescendants } from '../support/processes';
import { until } from '../support/until';
import { n8nCacheDir } from '../e2e/n8n/harness';
import { ensureNode } from '../zapier/support/node22';
import { PLANS } from './blocks';
import { ROOT, type Fence } from './markdown';

const READER_NODE: { bin?: string } = {};
/** Installs the reader's Node (readerNode) and makes it readerEnv's default. */
export async function useReaderNode(): Promise<string> {
  READER_NODE.bin = await readerNode();
  return READER_NODE.bin;
}

export interface Session {
  file: string;
  home: string;
  /** Where each `/tmp/<name>` of the README goes (`<fresh>/<name>`, not created). */
  fresh: string;
  port: number;
  status: number | null;
  stdout: string;
  stderr: string;
  /** What each server line printed, in order. */
  serverLogs: () => string[];
  /** The pid of each server line (what `$!` was). */
  serverPids: number[];
}

/**
 * The reader's Node: the oldest the packages support (the SDK's engines floor, `>=X.Y.Z`), installed
 * from npm into the cache once. This machine's own `node` may be older (Node 20 left support).
 */
export async function readerNode(): Promise<string> {
  const floor = /^>=(\d+\.\d+\.\d+)$/.exec(JSON.parse(fs.readFileSync(path.join(ROOT, 'shared/sdk/package.json'), 'utf8')).engines.node)?.[1];
  if (!floor) throw new Error('shared/sdk/package.json: engines.node is not ">=X.Y.Z"');
  return ensureNode(floor);
}

/**
 * The environment of a reader's terminal on this machine: no npm or jest variables, no
 * node_modules/.bin on PATH, and `node` (the one `npm` and `npx` run on too) the given binary.
 */
export function readerEnv(home: string, node = READER_NODE.bin): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(npm_|CERTSVC_|JEST_|INIT_CWD$|NODE_ENV$|NODE_OPTIONS$|NODE$)/i.test(key)) env[key] = value;
  }
  const machinePath = (process.env.PATH ?? '').split(path.delimiter).filter((p) => !p.includes(`${path.sep}node_modules${path.sep}`));
  if (!node) throw new Error('readerEnv: call `await useReaderNode()` first (in beforeAll)');
  env.PATH = [path.dirname(node), ...machinePath].join(path.delimiter);
  env.HOME = home;
  env.npm_config_cache = path.join(os.homedir(), '.npm');
  env.CERTSVC_CACHE_DIR = path.dirname(n8nCacheDir());
  return env;
}

/** The blocks as one bash script, with the substitutions above. */
export function script(blocks: Fence[], s: Pick<Session, 'fresh' | 'port'>): string {
  const out = ['set -euo pipefail'];
  let servers = 0;
  for (const block of blocks) {
    const plan = PLANS[block.key] as Exclude<(typeof PLANS)[string], { notRun: string }>;
    out.push(`echo "### ${block.key.replaceAll('`', '')}"`);
    for (const written of block.text.split('\n')) {
      const line = written.replaceAll('4010', String(s.port)).replace(/\/tmp\/([\w.-]+)/g, (_m, name: string) => `${s.fresh}/${name}`);
      const skip = plan.skip?.[written.trim()];
      const banner = plan.servers?.[written.trim()];
      if (skip) out.push(`# not run: ${written.trim()}`);
      else if (banner) {
        const log = `${s.fresh}/server-${++servers}.log`;
        out.push(
          `${line} > ${log} 2>&1 &`,
          `echo $! >> ${s.fresh}/servers.pids`,
          `for i in $(seq 900); do grep -qF '${banner}' ${log} && break; kill -0 $! 2>/dev/null || { echo "the server stopped:"; cat ${log}; exit 1; }; sleep 0.2; done`,
          `grep -qF '${banner}' ${log} || { echo "no banner '${banner}' after 180 s:"; cat ${log}; exit 1; }`,
        );
      } else out.push(line);
    }
  }
  return `${out.join('\n')}\n`;
}

export interface SessionOptions {
  /** Where the session starts (default: the repository root). */
  cwd?: string;
  /** The reader's home (default: a fresh empty folder). */
  home?: string;
  /** Changes to the reader's environment (after readerEnv). */
  env?: (env: NodeJS.ProcessEnv, home: string) => NodeJS.ProcessEnv;
}

/**
 * Runs the blocks in bash and resolves when bash ends (killed after 15 min). Asynchronous, so a
 * sandbox in the test's own process answers the blocks meanwhile.
 */
export async function runSession(file: string, blocks: Fence[], port: number, options: SessionOptions = {}): Promise<Session> {
  const home = options.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'readme-home-'));
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-tmp-'));
  fs.writeFileSync(path.join(fresh, 'blocks.sh'), script(blocks, { fresh, port }));
  const env = options.env ? options.env(readerEnv(home), home) : readerEnv(home);
  const child = spawn('bash', [path.join(fresh, 'blocks.sh')], { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  const pids = fs.existsSync(path.join(fresh, 'servers.pids')) ? fs.readFileSync(path.join(fresh, 'servers.pids'), 'utf8').trim().split('\n').map(Number) : [];
  return {
    file,
    home,
    fresh,
    port,
    status,
    stdout,
    stderr,
    serverPids: pids,
    serverLogs: () => pids.map((_p, i) => fs.readFileSync(path.join(fresh, `server-${i + 1}.log`), 'utf8')),
  };
}

/** Kills each server's pid, as a reader would (`kill <pid>`); returns the processes still running 10 s later, then ends them. */
export async function stopServers(s: Session): Promise<number[][]> {
  const trees = s.serverPids.map((pid) => withDescendants([pid]));
  for (const pid of s.serverPids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await until('the servers to stop', () => trees.every((t) => alive(t).length === 0), 10_000, 100).catch(() => undefined); // what is left is returned
  const left = trees.map((t) => alive(t));
  for (const pid of left.flat()) process.kill(pid, 'SIGKILL');
  return left;
}

export function expectSuccess(s: Session): void {
  expect({ status: s.status, tail: s.status === 0 ? '' : `${s.stdout.slice(-3000)}\n--- stderr ---\n${s.stderr.slice(-3000)}` }).toEqual({ status: 0, tail: '' });
}
