// The baseline: fileStore as it was before SQLite (shared/sdk/src/file-store.ts at 09c4636), the
// same logic in plain JS, for the shared-store benchmark (test/bench/stores/file-stores.ts) and for
// reproducing its failures across processes (CERTSVC_TEST_FILE_STORE=jsonl with
// test/sdk/stores/file-store.process.test.ts). Done keys are appended to a JSON-lines file and
// read back at open; pending claims live in the process's memory; an open that finds a stale or
// cut line rewrites the file. Not shipped.
const { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } = require('node:fs');

const DEFAULT_PENDING_MS = 5 * 60_000;
const DEFAULT_KEEP_DAYS = 45;

function jsonlFileStore(path, options = {}) {
  const keepDays = options.keepDays ?? DEFAULT_KEEP_DAYS;
  const pendingMs = options.pendingMs ?? DEFAULT_PENDING_MS;
  const now = options.now ?? (() => Date.now());
  const keepMs = keepDays * 24 * 60 * 60 * 1000;
  const done = new Map();
  let stale = 0;
  if (existsSync(path)) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        stale++;
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
  const pending = new Map();
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
    close() {},
  };
}

module.exports = { jsonlFileStore };
