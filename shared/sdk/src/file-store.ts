import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DEFAULT_PENDING_MS, type DeliveryStore } from './webhooks/store';

// A DeliveryStore that survives restarts, for one process: the keys that are done are appended
// to a file (one JSON line each, written before the receiver answers 2xx), and read back when
// the store is opened. Pending claims live in memory only: a crash releases them, so the
// service's retry (or a recovery) runs what never finished. Several processes need a store
// with one atomic claim across them: your database (a unique key) through DeliveryStore.

export interface FileStoreOptions {
  /** How long a done key is kept (default 45 days): recovery from `since` is exactly once when this reaches back to `since` minus 7 days. */
  keepDays?: number;
  /** As memoryStore's: a pending claim never settled is free again after this (default 5 minutes). */
  pendingMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

export const DEFAULT_KEEP_DAYS = 45;

/** Opens (or creates) the store at `path`; keys older than `keepDays` are dropped, and the file rewritten without them. */
export function fileStore(path: string, options: FileStoreOptions = {}): DeliveryStore {
  const keepDays = options.keepDays ?? DEFAULT_KEEP_DAYS;
  if (typeof keepDays !== 'number' || !(keepDays > 0)) throw new RangeError(`fileStore: keepDays must be a positive number of days (got ${String(keepDays)}).`);
  const pendingMs = options.pendingMs ?? DEFAULT_PENDING_MS;
  const now = options.now ?? (() => Date.now());
  const keepMs = keepDays * 24 * 60 * 60 * 1000;
  const done = new Map<string, number>();
  let stale = 0;
  if (existsSync(path)) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      let entry: { k?: unknown; t?: unknown };
      try {
        entry = JSON.parse(line);
      } catch {
        stale++; // a line cut short by a crash mid-write: its claim never answered 2xx
        continue;
      }
      if (typeof entry.k === 'string' && typeof entry.t === 'number' && entry.t > now() - keepMs) done.set(entry.k, entry.t);
      else stale++;
    }
  }
  if (stale > 0 || !existsSync(path)) {
    writeFileSync(`${path}.tmp`, [...done].map(([k, t]) => `${JSON.stringify({ k, t })}\n`).join(''));
    renameSync(`${path}.tmp`, path);
  }
  const pending = new Map<string, number>();
  return {
    claim(key) {
      const t = done.get(key);
      if (t !== undefined && t > now() - keepMs) return 'done';
      const until = pending.get(key);
      if (until !== undefined && until > now()) return 'pending';
      pending.set(key, now() + pendingMs);
      return 'taken';
    },
    settle(key, ok) {
      pending.delete(key);
      if (!ok || done.has(key)) return;
      const t = now();
      appendFileSync(path, `${JSON.stringify({ k: key, t })}\n`);
      done.set(key, t);
    },
  };
}
