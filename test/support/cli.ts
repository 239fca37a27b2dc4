// What a CLI test file needs: the built `certsvc`, a sandbox and a temp folder for the file's
// tests (made before them, closed after), and a runner for the CLI as a child process.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSandbox, type Sandbox, type SandboxOptions } from '@certificate-service/sandbox';
import { CLI, ensureBuilt } from './built';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The file's sandbox and temp folder, there once `beforeAll` has run. */
export function cliWorld(options: SandboxOptions, prefix: string): { sb: Sandbox; dir: string } {
  const world = {} as { sb: Sandbox; dir: string };
  beforeAll(async () => {
    await ensureBuilt();
    world.sb = (await createSandbox({ ...options, seed: true })) as Sandbox;
    world.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  }, 120_000);
  afterAll(async () => {
    await world.sb.close();
    fs.rmSync(world.dir, { recursive: true, force: true });
  });
  return world;
}

/** Runs the built CLI (asynchronously, so this process keeps serving the sandbox) with only `env` and PATH. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  return new Promise((resolve) =>
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** The repository root: where the CLI README tells a user to run `npm exec -w shared/cli -- certsvc …`. */
export const REPO_ROOT = path.resolve(__dirname, '../..');

/**
 * Runs `certsvc` the way the README tells a user to, from a clone: `npm exec -w shared/cli --
 * certsvc …` in the repository root (npm then runs the bin in shared/cli, with INIT_CWD the root),
 * so relative paths in `args` are the user's. About 1 s a run: keep these few.
 */
export function runCliAsDocumented(args: string[], env: Record<string, string | undefined>, cwd = REPO_ROOT): Promise<CliRun> {
  const npmEnv = { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_update_notifier: 'false', ...env };
  return new Promise((resolve) =>
    execFile('npm', ['exec', '-w', 'shared/cli', '--', 'certsvc', ...args], { cwd, env: npmEnv }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** A folder under the repository's .tmp (git-ignored), and its path relative to the root, as a user would type it. */
export function repoTempDir(prefix: string): { abs: string; rel: string } {
  fs.mkdirSync(path.join(REPO_ROOT, '.tmp'), { recursive: true });
  const abs = fs.mkdtempSync(path.join(REPO_ROOT, '.tmp', prefix));
  return { abs, rel: path.relative(REPO_ROOT, abs) };
}
