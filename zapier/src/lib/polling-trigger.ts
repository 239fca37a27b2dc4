import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import {
  checkPollSettings,
  polledEvent,
  type CertificateServiceClient,
  type PollEvent,
  type PollState,
  type Recipient,
} from '@certificate-service/sdk/core';
import { withClient } from './client';
import { batchField, text } from './inputs';
import { EVENT_OUTPUT_FIELDS, outputItem, SAMPLE_RECIPIENT } from './samples';

/**
 * One factory for the polling triggers (no webhook subscription, so none of the workspace's
 * 20 is used). Zapier calls `perform` every few minutes and keeps the items whose `id` it has
 * not seen before (its dedupe, about 105,000 ids per Zap), newest first. So the core runs
 * with `remember: false`: each poll returns every occurrence it read that may be new (what
 * happened since the previous walk began) and Zapier drops the ones it has seen; nothing but
 * the core's small position (its floor and where a walk stands, no ids) is kept, in Zapier's
 * cache for the Zap. Writes there are rate limited: a refused one only means the next poll
 * starts from the older position and returns more, which Zapier's dedupe absorbs.
 *
 * The first poll (turning the Zap on; the editor's test) has no position: it returns the
 * newest POLL_LIMIT (samples) and every certificate of the instant it read at, which seeds
 * Zapier's dedupe so none of them fires later.
 */
export interface PollingTriggerSpec<K extends string> {
  key: K;
  event: PollEvent;
  label: string;
  description: string;
  sampleEmailStatus: string;
}

/** The newest certificates the first poll returns (samples, and Zapier's dedupe seed). */
export const POLL_LIMIT = 100;
/** How long the position is kept for a Zap (Zapier's cache); it is rewritten by every poll. */
export const POLL_STATE_TTL_SECONDS = 7 * 24 * 60 * 60;

/** The Zap's cache key for the position; none outside a live Zap (no Zap id, or the editor's sample). */
function stateKey(bundle: Bundle, key: string, batchId: string): string | undefined {
  const zapId = (bundle.meta as { zap?: { id?: unknown } } | undefined)?.zap?.id;
  return zapId === undefined || zapId === null || bundle.meta?.isLoadingSample ? undefined : `certsvc:poll:${zapId}:${key}:${batchId}`;
}

/** The saved position. A cache that cannot be read counts as none (a first poll); what was stored is checked by the core. */
async function savedState(z: ZObject, key: string | undefined): Promise<unknown> {
  if (!key) return undefined;
  try {
    const value: unknown = await z.cache.get(key);
    return typeof value === 'string' ? (JSON.parse(value) as unknown) : undefined;
  } catch (error) {
    z.console.log(`Saved poll position not read: ${(error as Error).message}`);
    return undefined;
  }
}

export function definePollingTrigger<const K extends string>(spec: PollingTriggerSpec<K>) {
  // The instant triggers' flat shape; `id` is what Zapier dedupes on (see the core's polledEvent).
  const item = (recipient: Recipient) => polledEvent(spec.event, recipient);
  const sampleRecipient = { ...SAMPLE_RECIPIENT, emailStatus: spec.sampleEmailStatus };

  async function poll(client: CertificateServiceClient, z: ZObject, bundle: Bundle) {
    // The core's check, before the saved position is read (errors.ts names the Batch field).
    const settings = { batchId: text(bundle.inputData.batch_id) ?? '', event: spec.event, firstPoll: POLL_LIMIT, remember: false };
    const batchId = checkPollSettings(settings).batchId!;
    const key = stateKey(bundle, spec.key, batchId);
    // Turning the Zap on clears Zapier's dedupe: the position starts over with it.
    const state = bundle.meta?.isPopulatingDedupe ? undefined : await savedState(z, key);
    const result = await client.pollCertificates({ ...settings, batchId, state: state as PollState | undefined });
    for (const note of result.notes) z.console.log(note);
    if (key) {
      const saved = await z.cache.set(key, JSON.stringify(result.state), POLL_STATE_TTL_SECONDS).catch((error: Error) => (z.console.log(`Poll position not saved: ${error.message}`), true));
      if (saved === false) z.console.log('Poll position not saved (Zapier refused the cache write); the next poll starts from the previous one.');
    }
    return result.certificates.map((r) => outputItem(item(r), EVENT_OUTPUT_FIELDS));
  }

  return defineTrigger({
    key: spec.key,
    noun: 'Certificate',
    display: { label: spec.label, description: spec.description },
    operation: {
      type: 'polling',
      inputFields: [{ ...batchField, helpText: 'The batch to watch. Polling triggers use no webhook subscription; they check every few minutes.' }],
      perform: withClient(poll),
      sample: item(sampleRecipient),
      outputFields: EVENT_OUTPUT_FIELDS,
    },
  });
}
