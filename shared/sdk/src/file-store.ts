import { closeSync, linkSync, openSync, readSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { DEFAULT_KEEP_DAYS, newAttempt, type DeliveryStore } from './webhooks/store';
import { keepMsOf, pendingMsOf } from './store-options';
import { privatePath, type PrivatePathOptions } from './state-dir';

// A DeliveryStore in one SQLite file (node:sqlite), shared by every process of one machine that
// opens the same path: pending and done claims both live in the file, a claim is one atomic
// statement, and WAL mode lets readers and the one writer at a time wait for each other (busy
// timeout) instead of failing. A done key is on disk before settle returns (synchronous FULL for
// that commit), so it survives a power cut; pending claims are written without waiting for the
// disk (NORMAL: they survive their process, not a power cut, which ends the process too). The
// file is never emptied or rewritten: a damaged one stops the receiver with SQLite's own words.
// Beside it SQLite keeps `<path>-wal` and `<path>-shm`. The store is synchronous (node:sqlite): a
// claim that waits for another process's write holds the event loop meanwhile (at most the busy timeout).
// A file on a network share is not one machine: use redisStore or postgresStore there.
// The folder, the file and its -wal/-shm are checked before SQLite opens them (privatePath): another
// user's file or a folder others can write (/tmp) could hand this store keys it never ran ("done",
// so an event is skipped) or take them away (an event run twice). The file is made 0600, and SQLite
// gives -wal and -shm the mode of the file.

export interface FileStoreOptions {
  /** How long a done key is kept (default 45 days: the sender's retries, about 39 hours, plus the recovery window). */
  keepDays?: number;
  /** As memoryStore's: a pending claim never settled is free again after this (default 5 minutes). */
  pendingMs?: number;
  /** The clock, for tests. Every process on the file reads the machine's clock. */
  now?: () => number;
}

/** A fileStore: a DeliveryStore, plus `close()` for the file (a process that exits closes it too). */
export type FileStore = DeliveryStore & { doneAt(id: string): number | undefined; close(): void };

export { DEFAULT_KEEP_DAYS };

/** How long a process waits for another's write to end before a claim fails (and is answered 500, so retried). */
const BUSY_TIMEOUT_MS = 10_000;
/** How often an open store deletes the done keys past `keepDays` (besides once when it opens). */
const PRUNE_EVERY_MS = 60 * 60_000;
/** Marks a file as ours (`PRAGMA application_id`, stored in its header), so another app's SQLite file is not taken for one. */
const APPLICATION_ID = 0x63657274; // "cert"
const SCHEMA = `
  PRAGMA journal_mode = WAL;
  PRAGMA application_id = ${APPLICATION_ID};
  PRAGMA user_version = 1;
  CREATE TABLE deliveries (
    key TEXT PRIMARY KEY,
    token TEXT,              -- the attempt holding it while pending; NULL once done
    expires INTEGER NOT NULL, -- epoch ms: pending until, or kept until once done
    at INTEGER               -- done: the failure time it was settled with (claimOccurrence)
  ) WITHOUT ROWID;
  CREATE INDEX deliveries_expires ON deliveries (expires);
`;

/**
 * Opens (or creates) the store at `path`. Needs Node 22.13 or later (node:sqlite, loaded only
 * here, so importing the SDK prints nothing; Node 22 and 24.9 print one ExperimentalWarning when
 * it loads). Throws, naming the file and what SQLite reported, when the file is not a sound
 * store (damaged, empty, another format); the file is then left as it was. Throws a
 * VALIDATION_ERROR naming the path when another user could have made or could change the file
 * or its folder, and when the folder cannot be written.
 */
export function fileStore(path: string, options: FileStoreOptions = {}): FileStore {
  if (typeof path !== 'string' || !path.trim()) throw new TypeError('fileStore: path must be the store file\'s path.');
  const keepMs = keepMsOf('fileStore', options.keepDays);
  const pendingMs = pendingMsOf('fileStore', options.pendingMs);
  const now = options.now ?? (() => Date.now());
  const db = open(path);
  let isOpen = true;
  const fail = (what: string, error: unknown): Error => new Error(`fileStore ${path}: ${what} failed: ${sqliteWords(error)}`);
  const statements = prepare(db);
  // Without an attempt token the claim is this store object's (this process's).
  const own = newAttempt();
  let prunedAt = 0;
  const prune = () => {
    prunedAt = now();
    statements.prune.run(prunedAt);
  };
  try {
    whenFree(prune);
  } catch (error) {
    db.close();
    throw fail('deleting expired keys', error);
  }
  return {
    claim(key, attempt) {
      try {
        return whenFree(() => {
          if (now() - prunedAt > PRUNE_EVERY_MS) prune();
          // One statement takes a free or expired key; else the key's state says why not. A key
          // released between the two is free: try again.
          for (;;) {
            const t = now();
            if (statements.take.get(key, attempt ?? own, t + pendingMs, t)) return 'taken';
            const row = statements.state.get(key, t) as { token: string | null } | undefined;
            if (row) return row.token === null ? 'done' : 'pending';
          }
        });
      } catch (error) {
        throw fail(`the claim of ${key}`, error);
      }
    },
    settle(key, ok, at, attempt) {
      try {
        whenFree(() => {
          if (!ok) return statements.release.run(key, attempt ?? own);
          // Done must outlive a power cut: this commit waits for the disk (and with it every
          // commit before it in the WAL). A pending claim need not: a power cut ends its process.
          // exec, not a prepared statement: SQLite applies this pragma when it compiles it, so a
          // prepared one run again would not (the first done commit here was not synced).
          db.exec('PRAGMA synchronous = FULL');
          try {
            return statements.done.run(key, now() + keepMs, at ?? null);
          } finally {
            db.exec('PRAGMA synchronous = NORMAL');
          }
        });
      } catch (error) {
        throw fail(`settling ${key}`, error);
      }
    },
    doneAt(key) {
      try {
        const row = whenFree(() => statements.doneAt.get(key, now()) as { at: number | null } | undefined);
        return row?.at ?? undefined;
      } catch (error) {
        throw fail(`reading ${key}`, error);
      }
    },
    close() {
      if (isOpen) db.close();
      isOpen = false;
    },
  };
}

function prepare(db: DatabaseSync): Record<'take' | 'state' | 'done' | 'release' | 'doneAt' | 'prune', StatementSync> {
  db.exec('PRAGMA synchronous = NORMAL');
  return {
    take: db.prepare(
      `INSERT INTO deliveries (key, token, expires, at) VALUES (?1, ?2, ?3, NULL)
       ON CONFLICT (key) DO UPDATE SET token = excluded.token, expires = excluded.expires, at = NULL WHERE deliveries.expires <= ?4
       RETURNING 1 AS taken`,
    ),
    state: db.prepare('SELECT token FROM deliveries WHERE key = ? AND expires > ?'),
    done: db.prepare(
      `INSERT INTO deliveries (key, token, expires, at) VALUES (?1, NULL, ?2, ?3)
       ON CONFLICT (key) DO UPDATE SET token = NULL, expires = excluded.expires, at = excluded.at`,
    ),
    release: db.prepare('DELETE FROM deliveries WHERE key = ? AND token = ?'),
    doneAt: db.prepare('SELECT at FROM deliveries WHERE key = ? AND token IS NULL AND expires > ?'),
    prune: db.prepare('DELETE FROM deliveries WHERE expires <= ?'),
  };
}

/** node:sqlite, or a clear error on a Node without it. */
function sqlite(): typeof import('node:sqlite') {
  try {
    // Loaded here, not at the top: importing the SDK must not load it (nor print its warning).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node:sqlite') as typeof import('node:sqlite');
  } catch {
    throw new Error(`fileStore needs node:sqlite, in Node 22.13 or later (this is Node ${process.versions.node}).`);
  }
}

function open(path: string): DatabaseSync {
  const { DatabaseSync } = sqlite();
  const check: PrivatePathOptions = { field: 'path', instead: 'or pass fileStore a path in a folder of your own (mkdir -m 700 <folder>)', create: false };
  // The folder is the caller's to make (not made here); an existing one must be this user's alone.
  if (!privatePath(dirname(path), 'folder', check)) throw new Error(`fileStore ${path}: could not create the store: its folder ${dirname(path)} does not exist (make it first: mkdir -m 700 ${dirname(path)}).`);
  if (!privatePath(path, 'file', check)) create(DatabaseSync, path);
  // SQLite opens these beside the file (measured: it refuses a link there, "unable to open database file").
  for (const file of [path, `${path}-wal`, `${path}-shm`]) privatePath(file, 'file', check);
  const damaged = (why: string, fix = 'restore it from a backup, or move it away (a new store at this path starts empty: a copy of an event it had run would run again)') =>
    new Error(`fileStore ${path}: ${why}. The file was left as it is: ${fix}.`);
  const size = statSync(path).size;
  // SQLite would take an empty file for a new database; we never leave one (create() below).
  if (size === 0) throw damaged('the file is empty (0 bytes), so it is not a store (one this SDK creates is never empty)');
  if (startsWithJsonLine(path)) throw damaged('the file is a store of the earlier JSON-lines format, and fileStore now keeps an SQLite file', 'pass a new path (the keys in this one are not carried over: a copy of an event it had run within keepDays would run again)');
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const check = whenFree(() => db.prepare('PRAGMA quick_check').all().map((row) => Object.values(row)[0]));
    if (check.length !== 1 || check[0] !== 'ok') throw damaged(`SQLite's quick_check found damage: ${check.slice(0, 5).join('; ')}`);
    const id = whenFree(() => db.prepare('PRAGMA application_id').get() as { application_id: number });
    if (id.application_id !== APPLICATION_ID) throw damaged('the file is an SQLite database, but not a delivery store');
    // Readers and a writer at once across processes: WAL (kept in the file; set again if lost).
    whenFree(() => db.exec('PRAGMA journal_mode = WAL'));
    return db;
  } catch (error) {
    db.close();
    if ((error as Error).message?.startsWith(`fileStore ${path}:`)) throw error;
    throw damaged(`SQLite could not read it: ${sqliteWords(error)}`);
  }
}

/**
 * Creates the store whole under a temporary name, then links it into place: the path never
 * shows an empty or half-made file, and when two processes create it at once one link wins and
 * both open that one.
 */
function create(Database: typeof DatabaseSync, path: string): void {
  const temp = `${path}.${process.pid}.${newAttempt().slice(0, 8)}.new`;
  try {
    // Made empty first, 0600, so the store is (SQLite keeps the mode of an empty file it fills, and gives it to -wal and -shm).
    closeSync(openSync(temp, 'wx', 0o600));
    const db = new Database(temp);
    try {
      db.exec(SCHEMA);
    } finally {
      db.close();
    }
  } catch (error) {
    rmSync(temp, { force: true });
    throw new Error(`fileStore ${path}: could not create the store: ${sqliteWords(error)}`);
  }
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`fileStore ${path}: could not create the store: ${(error as Error).message}`);
  } finally {
    unlinkSync(temp);
  }
}

/**
 * Runs `step`, again while SQLite answers SQLITE_BUSY, up to the busy timeout. The busy timeout
 * covers a writer waiting for another, but in WAL mode SQLite also answers BUSY at once, without
 * waiting, while another process's last connection cleans up on close, or while the first process
 * after a crash recovers the WAL (sqlite.org/wal.html, "Sometimes queries return SQLITE_BUSY").
 * Seen here: 4 processes reopening one store every 150 keys failed a claim in 2 of 12 runs without this.
 */
function whenFree<T>(step: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      return step();
    } catch (error) {
      const code = (error as { errcode?: unknown }).errcode;
      if (typeof code !== 'number' || (code & 0xff) !== SQLITE_BUSY || Date.now() > deadline) throw error;
      Atomics.wait(PAUSE, 0, 0, wait); // a synchronous pause: the store is synchronous
    }
  }
}
const SQLITE_BUSY = 5;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function startsWithJsonLine(path: string): boolean {
  const head = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  return head.toString('utf8').trimStart().startsWith('{');
}

/** What SQLite said (its message and code), for an error that names the file. */
function sqliteWords(error: unknown): string {
  // Read by shape: node:sqlite's errors may come from another realm (a vm context, jest).
  const { message, errcode } = (error ?? {}) as { message?: unknown; errcode?: unknown };
  if (typeof message !== 'string') return String(error);
  return typeof errcode === 'number' ? `${message} (SQLite error ${errcode})` : message;
}
