import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validationError } from './errors';

/**
 * Where the SDK and its tools keep state that must outlive a process (in-flight markers; the MCP
 * server's confirmation key and used tokens): `$CERTSVC_STATE_DIR`, else `$XDG_STATE_HOME/certsvc`,
 * else `~/.local/state/certsvc`. XDG *state*, not a cache: losing it may let a retry issue twice.
 * Every user of it checks it with privatePath() first.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CERTSVC_STATE_DIR?.trim()) return path.resolve(env.CERTSVC_STATE_DIR.trim());
  if (env.XDG_STATE_HOME?.trim()) return path.join(path.resolve(env.XDG_STATE_HOME.trim()), 'certsvc');
  return path.join(os.homedir(), '.local', 'state', 'certsvc');
}

/** A folder state is kept in; a file of state; a file no one else may read either (a key). */
export type PrivateKind = 'folder' | 'file' | 'secret';

export interface PrivatePathOptions {
  /** The setting the path comes from, named by the error (default `CERTSVC_STATE_DIR`). */
  field?: string;
  /** The way out the error ends with, starting "or " (default: or set CERTSVC_STATE_DIR to a folder of your own). */
  instead?: string;
  /** A missing folder is made, 0700 (default true); false: a missing folder is undefined, as a missing file is. */
  create?: boolean;
}

/** The sticky bit: in such a folder only an entry's owner (or root) may move or remove it. */
const STICKY = 0o1000;
const STATE_DIR_WAY_OUT = 'or set CERTSVC_STATE_DIR to a folder of your own';

/**
 * Checks `target` before anything in it is trusted, the way ssh checks ~/.ssh: when another local
 * user could have made it or could change it (a state folder in a shared place such as /tmp), they
 * could plant a confirmation key, a memory of used tokens or a delivery store, so it is refused
 * with an error (VALIDATION_ERROR) naming the path and the fix, and nothing in it is read.
 * - It must be what is expected (a folder, or a regular file), not a symbolic link to one.
 * - It must belong to this user (or root, who can do anything anyway), and no other user may
 *   write it (no group or other write bit; a `secret` no other user may read either).
 * - A folder must be writable by this user (checked here, so the error says which folder and how
 *   to fix it, not a bare EACCES later); a missing one is made 0700 (its missing parents too).
 * - Every folder above it must belong to this user or root, and be writable by others only with
 *   the sticky bit (as /tmp), where no one can move or replace another's entry; else someone
 *   could swap the folder for their own. Symbolic links above it are followed (and checked too).
 * Returns the target's lstat, or undefined when it does not exist (a file; a folder with
 * `create: false`). Files are made by their users with 0600 and `wx` (never through a link).
 * Windows has no POSIX owners or modes: there it only makes the folder (a no-op otherwise).
 */
export function privatePath(target: string, kind: PrivateKind, options: PrivatePathOptions = {}): fs.Stats | undefined {
  const where = path.resolve(target);
  const noun = kind === 'folder' ? 'folder' : 'file';
  const refuse = (problem: string, fix?: string): never => {
    const instead = options.instead ?? STATE_DIR_WAY_OUT;
    throw validationError(options.field ?? 'CERTSVC_STATE_DIR', `${problem}: ${fix ? `${fix}, ${instead}` : instead.replace(/^or /, '')}.`);
  };
  const me = process.geteuid?.(); // the user files are made and checked as
  const ours = (uid: number) => uid === me || uid === 0;
  /** `dir` and every folder above it: this user's or root's, and no one else can move what is in them. */
  const checkAbove = (dir: string) => {
    for (const above of ancestors(dir, refuse)) {
      const s = lstat(above, refuse)!;
      if (!ours(s.uid)) refuse(`${where} is inside ${above}, which belongs to another user (uid ${s.uid}), who could replace it`);
      if (s.isDirectory() && s.mode & 0o022 && !(s.mode & STICKY)) {
        refuse(`${where} is inside ${above}, which other users can write (mode ${mode(s)}, no sticky bit), so they could replace it`, `chmod go-w ${above}`);
      }
    }
  };
  let stats = lstat(where, refuse);
  if (!stats && kind === 'folder' && options.create !== false) {
    // Nothing is made inside another user's folder.
    if (me !== undefined) checkAbove(nearestExisting(where));
    try {
      fs.mkdirSync(where, { recursive: true, mode: 0o700 });
    } catch (error) {
      const code = codeOf(error);
      const fix = code === 'EACCES' || code === 'EPERM' ? `make ${nearestExisting(where)} writable` : code === 'ENOTDIR' ? `move ${nearestExisting(where)} away (a file where a folder should be)` : undefined;
      refuse(`${where} cannot be made (${code})`, fix);
    }
    stats = lstat(where, refuse);
  }
  if (!stats || me === undefined) return stats;
  checkAbove(path.dirname(where));
  if (stats.isSymbolicLink()) refuse(`${where} is a symbolic link, where a ${noun} was expected`, `remove it (rm ${where})`);
  if (kind === 'folder' ? !stats.isDirectory() : !stats.isFile()) refuse(`${where} is not a ${noun}`, 'move it away');
  if (!ours(stats.uid)) refuse(`${where} belongs to another user (uid ${stats.uid}), so what is in it is not trusted`, `remove it if you can (rm -r ${where})`);
  const shut = kind === 'secret' ? 0o077 : 0o022;
  if (stats.mode & shut) {
    // A shared folder such as /tmp cannot be closed: only a folder of one's own is the way out.
    if (kind === 'folder' && stats.mode & STICKY) refuse(`${where} is a shared folder (mode ${mode(stats)}): other users can put files in it`);
    refuse(`${where} can be ${kind === 'secret' ? 'read or written' : 'written'} by other users (mode ${mode(stats)})`, `chmod ${kind === 'folder' ? 700 : 600} ${where}`);
  }
  // The owner and the bits above decide it: group and others never write here, root always can.
  if (kind === 'folder' && me !== 0 && (stats.uid !== me || (stats.mode & 0o300) !== 0o300)) {
    refuse(`${where} cannot be written by this user (uid ${me}; it belongs to uid ${stats.uid}, mode ${mode(stats)})`, stats.uid === me ? `chmod 700 ${where}` : `make it yours (sudo chown ${me} ${where})`);
  }
  return stats;
}

function lstat(p: string, refuse: (problem: string) => never): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return undefined; // not there (ENOTDIR: a file on the way)
    return refuse(`${p} cannot be read (${codeOf(error)})`);
  }
}

/** `dir` and every folder above it, as written and as its links resolve, from the root down. */
function ancestors(dir: string, refuse: (problem: string) => never): string[] {
  const up = (p: string): string[] => (path.dirname(p) === p ? [p] : [...up(path.dirname(p)), p]);
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch (error) {
    return refuse(`${dir} cannot be read (${codeOf(error)})`);
  }
  return [...new Set([...up(dir), ...up(real)])];
}

function nearestExisting(p: string): string {
  return fs.existsSync(p) || path.dirname(p) === p ? p : nearestExisting(path.dirname(p));
}

const mode = (s: fs.Stats) => (s.mode & 0o7777).toString(8);
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
