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
 * Where a receiver remembers claims: a small state machine per key,
 * free → pending (`claim`) → done (`settle(id, true)`) or free again (`settle(id, false)`).
 * `claim` must be one atomic step (check and record), or two copies arriving at once both take
 * the id. The n8n trigger backs it with its memory and static data, the Zapier trigger with
 * `z.cache` (nx), an app with Redis (`SET … NX EX`, README) or a unique key in SQL; the default
 * is {@link memoryStore}.
 */
export interface DeliveryStore {
  claim(id: string): ClaimState | Promise<ClaimState>;
  /**
   * The attempt that took `id` ended. `ok`: the delivery was handled (the host answered 2xx), so
   * later copies are duplicates. Otherwise it is released: the service's retry runs it. `at`
   * (epoch ms) is the time of the failure that was handled (claimOccurrence); a store that keeps
   * it answers it from `doneAt`.
   */
  settle(id: string, ok: boolean, at?: number): void | Promise<void>;
  /**
   * The `at` a done id was settled with; undefined when it is not done or was settled without
   * one. Optional: without it, a certificate's second failure after a re-send is a duplicate of
   * the first (never run twice, but not run).
   */
  doneAt?(id: string): number | undefined | Promise<number | undefined>;
}

/** How long a pending id holds when its attempt never settles (a host that lost it): 5 minutes. */
export const DEFAULT_PENDING_MS = 5 * 60_000;

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
  /** Done (with the `at` it was settled with), or the time until which the id is pending. Insertion order is the LRU order. */
  const ids = new Map<string, Done | number>();
  const put = (id: string, value: Done | number) => {
    ids.delete(id);
    ids.set(id, value);
    while (ids.size > maxSize) ids.delete(ids.keys().next().value as string);
  };
  return {
    claim(id) {
      const entry = ids.get(id);
      if (typeof entry === 'object') {
        put(id, entry); // recently seen: kept longest
        return 'done';
      }
      if (entry !== undefined && entry > now()) return 'pending';
      put(id, now() + pendingMs);
      return 'taken';
    },
    settle(id, ok, at) {
      if (ok) put(id, { at });
      else if (typeof ids.get(id) !== 'object') ids.delete(id);
    },
    doneAt(id) {
      const entry = ids.get(id);
      return typeof entry === 'object' ? entry.at : undefined;
    },
  };
}

interface Done {
  at: number | undefined;
}

/** A claim made for an attempt: the key the store now holds for it, and what the store said. */
export interface Claim {
  key: string;
  state: ClaimState;
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
  const state = await store.claim(key);
  if (state !== 'done' || !failure || failure.recovered || !store.doneAt) return { key, state };
  const handledAt = await store.doneAt(key);
  if (handledAt === undefined || failure.at <= handledAt) return { key, state };
  const later = `${key}@${failure.at}`;
  return { key: later, state: await store.claim(later) };
}
