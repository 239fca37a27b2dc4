// A second local user, for tests of what another user of the machine can do to our state folders
// (plant a folder, a key, a link before we make them). Adding a user needs root: the CI runs as
// root (.ci/run), so these tests run there; elsewhere they are skipped, and their names say why.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const AS_ROOT = process.getuid?.() === 0;

/** `describe`, or, when not root, `describe.skip` with the reason in its name. */
export const describeWithOtherUser = (name: string, body: () => void): void =>
  AS_ROOT ? describe(name, body) : describe.skip(`${name} [skipped: adding a second local user needs root; the CI runs as root]`, body);

export interface OtherUser {
  name: string;
  uid: number;
  gid: number;
  /** Runs a shell script as that user (a real process of theirs); throws with its stderr when it fails. */
  sh(script: string): string;
  /**
   * Runs `step` in this process as that user (effective uid and gid; the real ones stay root's,
   * so this process can come back). Synchronous steps only: nothing else of this process runs meanwhile.
   */
  as<T>(step: () => T): T;
  /**
   * The same around an async step (a CLI run, a tool call in this process). Keep it to steps that
   * end before any other I/O of this process would run, and run them once as root first, so every
   * module they load is loaded already.
   */
  asAsync<T>(step: () => Promise<T>): Promise<T>;
}

/** A throwaway user (useradd), made before the file's tests and removed after them; root only. */
export function otherUser(): OtherUser {
  const user = { name: `certsvc-t${randomBytes(4).toString('hex')}`, uid: -1, gid: -1 } as OtherUser;
  beforeAll(() => {
    // Test files run in parallel, and useradd fails while another holds the passwd lock: try again.
    for (let attempt = 1; ; attempt++) {
      const made = spawnSync('useradd', ['--no-create-home', '--user-group', '--shell', '/usr/sbin/nologin', user.name], { encoding: 'utf8' });
      if (made.status === 0) break;
      if (attempt === 20) throw new Error(`useradd ${user.name} failed: ${made.stderr}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
    user.uid = Number(execFileSync('id', ['-u', user.name], { encoding: 'utf8' }));
    user.gid = Number(execFileSync('id', ['-g', user.name], { encoding: 'utf8' }));
  });
  afterAll(() => {
    for (let attempt = 1; attempt <= 20; attempt++) {
      if (spawnSync('userdel', [user.name]).status === 0) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  });
  user.sh = (script) => {
    const run = spawnSync('sh', ['-c', script], { uid: user.uid, gid: user.gid, cwd: '/', encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    if (run.status !== 0) throw new Error(`as ${user.name}: ${script}\n${run.stderr}`);
    return run.stdout;
  };
  const become = () => {
    const groups = process.getgroups!();
    process.setgroups!([user.gid]);
    process.setegid!(user.gid);
    process.seteuid!(user.uid);
    return () => {
      process.seteuid!(0);
      process.setegid!(0);
      process.setgroups!(groups);
    };
  };
  user.as = (step) => {
    const back = become();
    try {
      return step();
    } finally {
      back();
    }
  };
  user.asAsync = async (step) => {
    const back = become();
    try {
      return await step();
    } finally {
      back();
    }
  };
  return user;
}

/** A folder like /tmp (root's, everyone may write, sticky), removed after the file's tests. */
export function sharedFolder(): { path: string } {
  const shared = { path: '' };
  beforeAll(() => {
    shared.path = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-shared-'));
    fs.chmodSync(shared.path, 0o1777);
  });
  afterAll(() => fs.rmSync(shared.path, { recursive: true, force: true }));
  return shared;
}
