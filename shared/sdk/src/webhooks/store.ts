import { randomUUID } from 'crypto';

/**
 * What a store knows of a claim when an attempt makes it. The claim is the occurrence of a
 * certificate event (`<certificate id>`, `<id>:sent:<ms>`, `<id>:failed[:<ms>]`), the delivery
 * id for `certificate.viewed` (handle.ts claimKey): every copy and retry of a delivery, and a
 * recovery of the same occurrence, makes the same claim.
 * - `taken`: unknown until now. This attempt holds it (it is *pending*) and must settle it.
 * - `pending`: another attempt holds it and has not ended. Its outcome decides, so this copy
 *   starts nothing and is answered 503 with `Retry-After`: the service tries again later and
 *   then finds the id done (a duplicate) or free (the first attempt failed, this one runs).
 * - `done`: an attempt was handled. A duplicate: answered 2xx, nothing runs.
 */
export type ClaimState = 'taken' | 'pending' | 'done';

/**
 * Where a receiver remembers claims. The contract, the same for every store (memoryStore,
 * fileStore, redisStore, postgresStore; test/sdk/stores/contract.ts runs it over each):
 * - `claim(key, attempt)` is ONE atomic step in the store (check and record together, or two
 *   copies arriving at once both take the key): free → `taken` (pending until `pendingMs`,
 *   default {@link DEFAULT_PENDING_MS}, then free again if never settled); pending → `pending`;
 *   done → `done`.
 * - `settle(key, true, at)` marks it done, whatever happened meanwhile (an attempt that outlived
 *   its pending time still counts), and records `at` when given.
 * - `settle(key, false, at, attempt)` releases it only while this attempt's own claim still holds
 *   it and it is not done: an attempt that outlived its pending time cannot release the newer
 *   claim another attempt made since. `attempt` is a token unique to the claim (claimOccurrence
 *   makes one); without it a store uses one token per store object (per process).
 * - `doneAt(key)`: the `at` recorded, undefined when the key is not done or none was recorded.
 * - Done keys are kept `keepDays` (default 45 in the stores that outlive a process): at least the
 *   sender's retry horizon (7 attempts over about 39 hours) plus the recovery window (`since`
 *   minus 7 days for failures), so a late retry or a recovery finds them.
 *
 * How far "once" reaches is how far the store is shared: memoryStore one process, fileStore
 * (SQLite) the processes of one machine, redisStore and postgresStore every machine. One window
 * is inherent to any store that is not the app's own transaction: a process that dies after
 * `onEvent`'s effect and before `settle(true)` leaves the key pending, and after `pendingMs` a
 * retry runs the event again. An effect that must never repeat belongs in the app's database,
 * in the same transaction as a row keyed by the claim.
 *
 * The n8n trigger backs it with its memory and static data, the Zapier trigger with `z.cache`.
 */
export interface DeliveryStore {
  claim(id: string, attempt?: string): ClaimState | Promise<ClaimState>;
  /**
   * The attempt that took `id` ended. `ok`: the delivery was handled (the host answered 2xx), so
   * later copies are duplicates. Otherwise it is released: the service's retry runs it. `at`
   * (epoch ms) is the time of the failure that was handled (claimOccurrence); a store that keeps
   * it answers it from `doneAt`. `attempt` is the token the claim was made with.
   */
  settle(id: string, ok: boolean, at?: number, attempt?: string): void | Promise<void>;
  /**
   * The `at` a done id was settled with; undefined when it is not done or was settled without
   * one. Optional: without it, a certificate's second failure after a re-send is a duplicate of
   * the first (never run twice, but not run).
   */
  doneAt?(id: string): number | undefined | Promise<number | undefined>;
}

/** How long a pending id holds when its attempt never settles (a host that lost it): 5 minutes. */
export const DEFAULT_PENDING_MS = 5 * 60_000;

/**
 * How long the stores that outlive a process keep a done key: 45 days, the sender's retry
 * horizon (about 39 hours) plus a recovery window of a month and more.
 */
export const DEFAULT_KEEP_DAYS = 45;

/** A token for one claim (claimOccurrence), so that only this attempt can release it. */
export function newAttempt(): string {
  return randomUUID();
}

export interface MemoryStoreOptions {
  /**
   * After this many ms a pending id whose attempt never settled is free again, so the service's
   * retry (1 min, then 5 min, 30 min, … later) is not refused for ever. An attempt that settles
   * later still counts: `ok` marks the id done whatever happened meanwhile.
   */
  pendingMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/** Keys memoryStore keeps by default (the latest): all a receiver on the default store remembers. */
export const DEFAULT_MEMORY_STORE_SIZE = 1000;

/**
 * The default store, in this process's memory: the last `maxSize` keys (oldest dropped first),
 * each pending until a given time or done. It keeps them while the process runs and at most
 * `maxSize` (default 1,000) at once: a restart forgets them, so recovery against it is exactly
 * once only within one process's life (fileStore in the Node entry survives restarts).
 */
export function memoryStore(maxSize = DEFAULT_MEMORY_STORE_SIZE, options: MemoryStoreOptions = {}): DeliveryStore {
  // 0 or NaN would remember nothing (every copy of a delivery would pass), so it is refused.
  if (typeof maxSize !== 'number' || !Number.isInteger(maxSize) || maxSize < 1) {
    throw new RangeError(`memoryStore: maxSize must be a whole number of at least 1 (got ${String(maxSize)}).`);
  }
  const pendingMs = options.pendingMs ?? DEFAULT_PENDING_MS;
  if (typeof pendingMs !== 'number' || !(pendingMs > 0)) throw new RangeError(`memoryStore: pendingMs must be a positive number of ms (got ${String(pendingMs)}).`);
  const now = options.now ?? (() => Date.now());
  /** Done (with the `at` it was settled with), or pending until a time by an attempt. Insertion order is the LRU order. */
  const ids = new Map<string, Done | Pending>();
  const put = (id: string, value: Done | Pending) => {
    ids.delete(id);
    ids.set(id, value);
    while (ids.size > maxSize) ids.delete(ids.keys().next().value as string);
  };
  return {
    claim(id, attempt) {
      const entry = ids.get(id);
      if (entry && 'done' in entry) {
        put(id, entry); // recently seen: kept longest
        return 'done';
      }
      if (entry !== undefined && entry.until > now()) return 'pending';
      put(id, { until: now() + pendingMs, attempt });
      return 'taken';
    },
    settle(id, ok, at, attempt) {
      const entry = ids.get(id);
      if (ok) put(id, { done: true, at });
      else if (entry && !('done' in entry) && entry.attempt === attempt) ids.delete(id);
    },
    doneAt(id) {
      const entry = ids.get(id);
      return entry && 'done' in entry ? entry.at : undefined;
    },
  };
}

interface Done {
  done: true;
  at: number | undefined;
}

interface Pending {
  until: number;
  attempt: string | undefined;
}

/** A claim made for an attempt: the key the store now holds for it, what the store said, and the attempt's token (for `settle`). */
export interface Claim {
  key: string;
  state: ClaimState;
  attempt: string;
}

/** A failure being claimed: when it happened (epoch ms), and whether it came from a recovery. */
export interface FailureTime {
  at: number;
  recovered: boolean;
}

/**
 * Claims an occurrence (its key: occurrence.ts). A certificate's failures share one key per
 * successful send, since the lists give no failure time; so a failure is claimed with its time
 * too, and the store records the time it was handled at (`settle(key, true, at)`):
 * - A delivered failure happened at its envelope's `createdAt`. If the key is done at an earlier
 *   time, this is a later failure (a re-send that bounced again): it is claimed as `<key>@<at>`,
 *   so it runs once, and copies of it are duplicates.
 * - A recovered failure stands for every failure of that certificate up to the moment its list
 *   was read (its `createdAt`): it runs only when the key is free, and is recorded at that time,
 *   so the service's late copy of a failure it stood for is a duplicate, and a failure after it
 *   runs. One that finds the key done is a duplicate: a second failure missed after the first
 *   had run is not recovered (the list cannot tell two failures apart).
 * A store without `doneAt` keeps keys only: a later failure is then a duplicate.
 */
export async function claimOccurrence(store: DeliveryStore, key: string, failure?: FailureTime): Promise<Claim> {
  const attempt = newAttempt();
  const state = await store.claim(key, attempt);
  if (state !== 'done' || !failure || failure.recovered || !store.doneAt) return { key, state, attempt };
  const handledAt = await store.doneAt(key);
  if (handledAt === undefined || failure.at <= handledAt) return { key, state, attempt };
  const later = `${key}@${failure.at}`;
  return { key: later, state: await store.claim(later, attempt), attempt };
}
