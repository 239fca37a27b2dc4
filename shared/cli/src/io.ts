/**
 * Where the commands read and write, and the environment and folder they run in: the process's
 * (fakes in in-process tests, which then need not touch process.env or the working folder).
 */
export interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  /** CERTSVC_API_KEY, CERTSVC_BASE_URL, CERTSVC_WEBHOOK_SECRET, CERTSVC_STATE_DIR, INIT_CWD. */
  env: NodeJS.ProcessEnv;
  /** The working folder: relative file names resolve from it (see paths.ts). */
  cwd: string;
}

export const processIo: Io = {
  get stdin() {
    return process.stdin; // made when first read: only verify and a question read it
  },
  stdout: process.stdout,
  stderr: process.stderr,
  get env() {
    return process.env;
  },
  get cwd() {
    return process.cwd();
  },
};
