import { newAttempt, type DeliveryStore } from './webhooks/store';
import { keepMsOf, pendingMsOf } from './store-options';
import { credentialsOf, storeError } from './store-errors';

// A DeliveryStore in a Postgres table, for receivers on several machines: one row per claim,
// pending (`token` = the attempt) or done (`token` NULL), until `expires`. Every time is the
// database's (`now()`), one clock for every machine. The app passes its own `pg` Pool (or any
// object with `query(text, values)` answering `{ rows }`); the SDK imports no Postgres library.

export interface PostgresStoreOptions {
  /** As memoryStore's: a pending claim never settled is free again after this (default 5 minutes). */
  pendingMs?: number;
  /** How long a done key is kept (default 45 days: the sender's retries, about 39 hours, plus the recovery window). */
  keepDays?: number;
  /** The table, created if missing (default `certsvc_deliveries`; `schema.table` is fine). */
  table?: string;
}

/** A `pg` Pool or Client, or anything with the same `query`. */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** How often a store deletes a batch of keys past `keepDays` (in the background of a claim). */
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_BATCH = 1000;
const TABLE_NAME = /^(?:[a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$/;

/** A store in Postgres through the app's own pool, which the app connects and ends. */
export function postgresStore(pool: PostgresQueryable, options: PostgresStoreOptions = {}): DeliveryStore {
  if (!pool || typeof (pool as { query?: unknown }).query !== 'function') throw new TypeError('postgresStore: pass a `pg` Pool (or anything with query(text, values)).');
  const pendingMs = pendingMsOf('postgresStore', options.pendingMs);
  const keepMs = keepMsOf('postgresStore', options.keepDays);
  const table = options.table ?? 'certsvc_deliveries';
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) throw new RangeError(`postgresStore: table must be a lower-case name, optionally schema.name (got ${JSON.stringify(table)}).`);
  const secrets = credentialsOf(pool);
  const own = newAttempt();
  const query = async (what: string, text: string, values?: unknown[]) => {
    try {
      return (await (values ? pool.query(text, values) : pool.query(text))).rows;
    } catch (error) {
      throw storeError('postgresStore', what, error, secrets);
    }
  };
  let ready: Promise<void> | undefined;
  const ensureTable = () => (ready ??= createTable(query, table).catch((error: unknown) => {
    ready = undefined; // the next claim tries again
    throw error;
  }));
  let prunedAt = 0;
  const prune = () => {
    prunedAt = Date.now();
    // Cheap and bounded: expired rows, by the index on expires, a batch at a time. A failure
    // costs nothing but space, and the next prune tries again.
    query('deleting expired keys', `DELETE FROM ${table} WHERE key IN (SELECT key FROM ${table} WHERE expires <= now() LIMIT ${PRUNE_BATCH})`).catch(() => {});
  };
  return {
    async claim(key, attempt) {
      await ensureTable();
      if (Date.now() - prunedAt > PRUNE_EVERY_MS) prune();
      // One statement takes a free or expired key (ON CONFLICT … WHERE, re-checked on the row's
      // newest version when another claim holds it); otherwise the key's state says why not. A
      // key released between the two is free: try again.
      for (;;) {
        const taken = await query(
          `the claim of ${key}`,
          `INSERT INTO ${table} AS d (key, token, expires, at) VALUES ($1, $2, now() + $3::float8 * interval '1 millisecond', NULL)
           ON CONFLICT (key) DO UPDATE SET token = excluded.token, expires = excluded.expires, at = NULL WHERE d.expires <= now()
           RETURNING 1`,
          [key, attempt ?? own, pendingMs],
        );
        if (taken.length) return 'taken';
        const [row] = await query(`reading ${key}`, `SELECT token FROM ${table} WHERE key = $1 AND expires > now()`, [key]);
        if (row) return row.token === null ? 'done' : 'pending';
      }
    },
    async settle(key, ok, at, attempt) {
      await ensureTable();
      if (ok) {
        await query(
          `settling ${key}`,
          `INSERT INTO ${table} AS d (key, token, expires, at) VALUES ($1, NULL, now() + $2::float8 * interval '1 millisecond', $3)
           ON CONFLICT (key) DO UPDATE SET token = NULL, expires = excluded.expires, at = excluded.at`,
          [key, keepMs, at ?? null],
        );
      } else {
        await query(`releasing ${key}`, `DELETE FROM ${table} WHERE key = $1 AND token = $2`, [key, attempt ?? own]);
      }
    },
    async doneAt(key) {
      await ensureTable();
      const [row] = await query(`reading ${key}`, `SELECT at FROM ${table} WHERE key = $1 AND token IS NULL AND expires > now()`, [key]);
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },
  };
}

/**
 * CREATE TABLE IF NOT EXISTS is not safe against itself: two sessions creating one table at once
 * can both pass the check, and the loser fails on the catalog (a duplicate type, relation or key).
 * So creators take a lock first, in the same transaction: one query string of several statements
 * (no parameters: the simple protocol) runs as one transaction, which holds the lock to its end.
 */
async function createTable(query: (what: string, text: string) => Promise<unknown>, table: string): Promise<void> {
  const index = `${table.replace('.', '_')}_expires`;
  await query(
    `creating table ${table}`,
    `SELECT pg_advisory_xact_lock(hashtext('certsvc delivery store ${table}'));
     CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, token text, expires timestamptz NOT NULL, at bigint);
     CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires);`,
  );
}
