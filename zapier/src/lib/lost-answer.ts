import type { ZObject } from 'zapier-platform-core';
import { emailKey, type CertificateServiceError } from '@certificate-service/sdk/core';
import { connectionCacheKey } from './cache-key';
import { toZapierError, type ReplayWords } from './errors';

// Issue Certificate never issues twice after an unknown outcome (issue 41). Its skip-existing is
// off by default (it reads the whole batch every run), so a replay of a step whose issue call was
// sent but whose answer was lost (Zapier's autoreplay, or a person pressing Replay) issued a
// second certificate. Now such an outcome leaves a marker in z.cache for (connection, batch,
// email), and a run that finds it looks the email up in the batch before issuing. A run whose
// issue call gets a clear answer writes nothing: it only reads the marker, beside the design read.

/**
 * How long a marker is kept. Autoreplay tries a failed step 5 times over about 10.5 hours (5 min,
 * 30 min, 1 h, 3 h, 6 h: zapier.com/help/autoreplay), and a person can replay from the Zap history
 * days later. Seven days is also the longest entry the app already keeps in z.cache (the poll
 * position). A replay later than that is not protected, and the step's error says so.
 */
export const LOST_ANSWER_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * A replay sooner than this after the lost answer is throttled to that point: the call may still
 * be at the service (one that timed out had been there up to 24 s), and a lookup made before it
 * lands would miss it. A judgement: the service's contract states no time limit of its own.
 */
export const LOST_ANSWER_SETTLE_SECONDS = 60;

/** The marker's z.cache write gets this long, so the step fails with its error before Zapier stops it (client.ts). */
export const MARKER_WRITE_TIMEOUT_MS = 4_000;

/** What a marker holds: when the answer was lost (epoch ms). No email, no key: the cache key is a hash. */
export interface LostAnswerMarker {
  at: number;
}

const isMarker = (value: unknown): value is LostAnswerMarker => !!value && typeof value === 'object' && typeof (value as LostAnswerMarker).at === 'number';

/** The marker's key: one connection, one batch (trimmed, as the core keys it), one email (the core's emailKey). */
export function lostAnswerKey(authData: Record<string, unknown> | undefined, batchId: string, email: string): string {
  return connectionCacheKey('issue-unknown:v1', authData, batchId, emailKey(email));
}

const REPLAY_SAFE: ReplayWords = {
  safe: true,
  words: `Replaying this step within ${LOST_ANSWER_TTL_SECONDS / 86_400} days is safe: it first looks this email up in the batch, returns the certificate if the call went through, and issues it only if it is missing.`,
};
const REPLAY_UNRECORDED: ReplayWords = {
  safe: false,
  words:
    'This could not be recorded in Zapier\'s cache, so a replay would issue it again: look the email up first (Find Certificate by Email), or turn on "Skip If Already Issued in This Batch", before replaying.',
};

/** The lost-answer marker of one Issue Certificate step (undefined key: no batch or email, so nothing is sent). */
export function lostAnswer(z: ZObject, key: string | undefined) {
  return {
    /**
     * The marker, if any. A cache that cannot be read counts as marked, without a time: the
     * lookup costs one list request per 100 certificates; a second certificate costs more.
     */
    async read(): Promise<Partial<LostAnswerMarker> | undefined> {
      if (!key) return undefined;
      try {
        const value: unknown = await z.cache.get(key);
        return isMarker(value) ? value : undefined;
      } catch (error) {
        z.console.log(`Lost-answer check: the cache could not be read (${(error as Error).message}); the email is looked up before issuing.`);
        return {};
      }
    },

    /** Throws a ThrottledError while the lost call may still be at the service. */
    settle(marker: Partial<LostAnswerMarker>, now = Date.now()): void {
      const waitSeconds = marker.at === undefined ? 0 : Math.ceil((marker.at + LOST_ANSWER_SETTLE_SECONDS * 1000 - now) / 1000);
      if (waitSeconds > 0) {
        throw new z.errors.ThrottledError(
          `The answer to this step's earlier issue call was lost ${Math.max(0, Math.round((now - marker.at!) / 1000))} s ago and the call may still be at the service: this step looks the email up once ${LOST_ANSWER_SETTLE_SECONDS} s have passed.`,
          waitSeconds,
        );
      }
    },

    /** The lost answer is resolved (found, or issued with a clear answer): later runs issue as usual. */
    async clear(): Promise<void> {
      if (!key) return;
      try {
        await z.cache.delete(key);
      } catch (error) {
        // Left behind, it only makes a later run for this email look it up first.
        z.console.log(`Lost-answer marker not removed: ${(error as Error).message}`);
      }
    },

    /**
     * After an unknown outcome: writes the marker and returns the Zapier error to throw, which says
     * whether a replay is safe. Unrecorded, the error is halted, so autoreplay leaves it alone.
     */
    async record(error: CertificateServiceError, now = Date.now()): Promise<Error> {
      return toZapierError(z, error, { replay: (await store(z, key, { at: now })) ? REPLAY_SAFE : REPLAY_UNRECORDED });
    },
  };
}

/** Writes the marker; true only when it is known to be stored. */
async function store(z: ZObject, key: string | undefined, marker: LostAnswerMarker): Promise<boolean> {
  if (!key) return false;
  let timer: NodeJS.Timeout | undefined;
  const tooLate = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${MARKER_WRITE_TIMEOUT_MS / 1000} s`)), MARKER_WRITE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      (async () => {
        // Zapier answers false when it refuses a write (its cache rate limit): any answer but true is read back.
        if ((await z.cache.set(key, marker, LOST_ANSWER_TTL_SECONDS)) === true) return true;
        return isMarker(await z.cache.get(key));
      })(),
      tooLate,
    ]);
  } catch (error) {
    z.console.log(`Lost-answer marker not stored: ${(error as Error).message}`);
    return false;
  } finally {
    clearTimeout(timer);
  }
}
