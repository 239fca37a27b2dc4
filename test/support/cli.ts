// What a CLI test file needs: a sandbox and a temp folder for the file's tests (made before
// them, closed after), and `certsvc` run in this process (`runCli`: the program's main with fake
// streams, its own environment and folder). What needs a real process (a signal, a terminal, npm
// exec, INIT_CWD) runs the built CLI as a child (`runCliProcess`, `runCliAsDocumented`), in
// `*.process.test.ts` files, which `npm run test:unit` leaves to `npm test`.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createSandbox, type Sandbox, type SandboxOptions } from '@certificate-service/sandbox';
import { main } from '../../shared/cli/src/main';
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
    world.sb = (await createSandbox({ ...options, seed: true })) as Sandbox;
    world.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  }, 120_000);
  afterAll(async () => {
    await world.sb.close();
    fs.rmSync(world.dir, { recursive: true, force: true });
  });
  return world;
}

export interface CliOptions {
  /** What stdin holds; empty when not given. */
  stdin?: string;
  /** stdin is a terminal (the user types `stdin` at a question), not a pipe. */
  stdinTerminal?: boolean;
  /** The working folder (default this process's); relative file names resolve from it. */
  cwd?: string;
  /** stderr is a terminal this many columns wide (a progress bar is drawn on it). */
  terminalColumns?: number;
}

/**
 * Runs `certsvc` in this process: its main with fake streams, `env` as its whole environment
 * (nothing of this process's), and the exit code main returns, as the bin sets it.
 */
export async function runCli(args: string[], env: Record<string, string | undefined>, options: CliOptions = {}): Promise<CliRun> {
  const stdin = Object.assign(new PassThrough(), { isTTY: options.stdinTerminal === true });
  stdin.end(options.stdin ?? '');
  let stdout = '';
  let stderr = '';
  const io = {
    stdin,
    stdout: { write: (t: string | Uint8Array) => ((stdout += String(t)), true) } as unknown as NodeJS.WritableStream,
    stderr: { isTTY: options.terminalColumns !== undefined, columns: options.terminalColumns, write: (t: string | Uint8Array) => ((stderr += String(t)), true) } as unknown as NodeJS.WriteStream,
    env: { ...env },
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await main(['node', 'certsvc', ...args], io);
  return { code, stdout, stderr };
}

/** Runs the built CLI as a child process (asynchronously, so this process keeps serving the sandbox) with only `env` and PATH. */
export async function runCliProcess(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  await ensureBuilt();
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
export async function runCliAsDocumented(args: string[], env: Record<string, string | undefined>, cwd = REPO_ROOT): Promise<CliRun> {
  await ensureBuilt();
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
