import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { InFlightMarkers } from './issue/in-flight';
import { privatePath, stateDir, type PrivatePathOptions } from './state-dir';

// In-flight markers as files, for issue runs in different processes (a per-call MCP client whose
// server process is killed mid-call, a CLI quit with a second Ctrl-C, then a new run): one file
// per (service, batch, email) key under `<stateDir>/in-flight/`, created exclusively (`wx`), named
// by the key's hash (no email or key in a file name). A marker says which process holds it and,
// once its call is sent, when. The folder and each marker read are checked first (privatePath):
// another user's folder or marker could hold this user's emails, or lose their markers.

export interface FileMarkerOptions {
  /** Default `<stateDir(env)>/in-flight`. Made 0700 if missing; refused, with an error naming it, if another user could change it. */
  dir?: string;
  /** The environment `stateDir` reads when `dir` is not given (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /**
   * A marker whose process is gone (killed) but whose call was sent: that call may still be at
   * the service, so the marker holds for this long after it was sent. Default 60 s: twice the
   * default request timeout (30 s), past which the service has answered or dropped it.
   */
  orphanSettleMs?: number;
  /** A marker older than this is stale whatever its process (a pid reused, another host). Default 1 h. */
  maxLiveMs?: number;
  now?: () => number;
}

interface Marker {
  pid: number;
  host: string;
  /** The process's start time as the kernel gives it (Linux /proc/<pid>/stat field 22): tells a reused pid. */
  procStart?: string;
  createdAt: number;
  sentAt?: number;
}

/** Field 22 of /proc/<pid>/stat (start time since boot, in clock ticks); undefined off Linux or when gone. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, not ours to signal
  }
}

/**
 * What a marker found on disk means: `live` (its process runs: wait), `settling` (its process is
 * gone but its call was sent less than `orphanSettleMs` ago: wait), `stale` (gone and never sent,
 * or settled, or older than `maxLiveMs`: it may be taken over).
 */
export function markerState(m: Marker | undefined, mtimeMs: number, options: Required<Pick<FileMarkerOptions, 'orphanSettleMs' | 'maxLiveMs'>> & { now: number }): 'live' | 'settling' | 'stale' {
  const created = m?.createdAt ?? mtimeMs;
  if (options.now - created >= options.maxLiveMs) return 'stale';
  // Unreadable (its writer was killed mid-write): as if sent when the file was made.
  if (!m) return options.now - mtimeMs >= options.orphanSettleMs ? 'stale' : 'settling';
  const running = m.host === os.hostname() ? pidAlive(m.pid) && (m.procStart === undefined || processStart(m.pid) === undefined || processStart(m.pid) === m.procStart) : true; // another host: cannot tell, so running
  if (running) return 'live';
  if (m.sentAt === undefined) return 'stale';
  return options.now - m.sentAt >= options.orphanSettleMs ? 'stale' : 'settling';
}

/** A marker's text; a link is not followed (ELOOP). */
function readText(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function readMarker(file: string, check: PrivatePathOptions): { marker?: Marker; mtimeMs: number } | undefined {
  const stats = privatePath(file, 'file', check); // another user's, or a link: refused, not read
  if (!stats) return undefined; // gone meanwhile
  try {
    return { marker: JSON.parse(readText(file)) as Marker, mtimeMs: stats.mtimeMs };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : { mtimeMs: stats.mtimeMs };
  }
}

/** In-flight markers in files; pass to `issueMany` as `inFlight`. */
export function fileInFlightMarkers(options: FileMarkerOptions = {}): InFlightMarkers {
  const dir = options.dir ?? path.join(stateDir(options.env), 'in-flight');
  const check: PrivatePathOptions = options.dir === undefined ? {} : { field: 'dir', instead: 'or pass a dir of your own' };
  // Checked (and made) before anything is held, so a refused folder stops the run before any request.
  privatePath(dir, 'folder', check);
  const now = options.now ?? Date.now;
  const policy = { orphanSettleMs: options.orphanSettleMs ?? 60_000, maxLiveMs: options.maxLiveMs ?? 3_600_000 };
  const me = { pid: process.pid, host: os.hostname(), procStart: processStart(process.pid) };
  const fileOf = (key: string) => {
    if (!/^[0-9a-f]{16,128}$/.test(key)) throw new Error('in-flight marker: a key is a hex hash'); // never a path
    return path.join(dir, key);
  };
  const create = (file: string): boolean => {
    try {
      fs.writeFileSync(file, JSON.stringify({ ...me, createdAt: now() } satisfies Marker), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  };
  /** Moves a stale marker aside (rename: one process wins) and removes it if it is still the one judged stale. */
  const takeOver = (file: string, judged: string): void => {
    const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      return; // another process moved it first
    }
    const moved = readText(aside);
    if (moved !== judged) {
      // A fresh marker was made between the look and the move: put it back.
      try {
        fs.linkSync(aside, file);
      } catch {
        /* a newer one is there already */
      }
    }
    fs.rmSync(aside, { force: true });
  };
  return {
    async acquire(key) {
      const file = fileOf(key);
      for (let attempt = 0; attempt < 3; attempt++) {
        if (create(file)) return true;
        const found = readMarker(file, check);
        if (!found) continue; // released meanwhile: try again
        if (markerState(found.marker, found.mtimeMs, { ...policy, now: now() }) !== 'stale') return false;
        let judged = '';
        try {
          judged = readText(file);
        } catch {
          continue;
        }
        takeOver(file, judged);
      }
      return false;
    },
    async sending(keys) {
      const at = now();
      for (const key of keys) {
        const file = fileOf(key);
        const tmp = `${file}.tmp-${process.pid}`;
        const marker = JSON.stringify({ ...me, createdAt: readMarker(file, check)?.marker?.createdAt ?? at, sentAt: at } satisfies Marker);
        fs.rmSync(tmp, { force: true }); // a leftover (or a link put there) goes; the new one is made, never written through
        fs.writeFileSync(tmp, marker, { flag: 'wx', mode: 0o600 });
        fs.renameSync(tmp, file); // whole or not at all
      }
    },
    async release(keys) {
      for (const key of keys) fs.rmSync(fileOf(key), { force: true });
    },
  };
}
