import path from 'node:path';

/** The CLI's own package folder (dist/.. or src/..). */
const PACKAGE_DIR = path.resolve(__dirname, '..');

/**
 * The folder the user typed the command in. `npm exec -w shared/cli -- certsvc …` (the way in from
 * a clone) runs the bin with its working folder set to the workspace, shared/cli, and keeps the
 * user's folder in INIT_CWD; so INIT_CWD is used only when the working folder is the CLI's own
 * package, and a script that does `cd sub && certsvc …` still reads from `sub`.
 */
export function userFolder(cwd: string, env: NodeJS.ProcessEnv): string {
  return path.resolve(cwd) === PACKAGE_DIR && env.INIT_CWD ? path.resolve(env.INIT_CWD) : cwd;
}

/** A file named on the command line, as an absolute path from the folder the user typed in. */
export function userPath(file: string, cwd: string, env: NodeJS.ProcessEnv): string {
  return path.resolve(userFolder(cwd, env), file);
}
