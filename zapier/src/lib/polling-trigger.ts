import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import {
  polledEvent,
  validationError,
  type CertificateServiceClient,
  type PollEvent,
  type PollState,
  type Recipient,
} from '@certificate-service/sdk/core';
import { withClient } from './client';
import { batchField, text } from './inputs';
import { EVENT_OUTPUT_FIELDS, outputItem, SAMPLE_RECIPIENT } from './samples';

/**
 * One factory for the polling triggers (no webhook subscription, so none of the
 * workspace's 20 is used). Zapier calls `perform` every few minutes and keeps the items
 * whose `id` it has not seen before (its dedupe), newest first. It keeps no other state
 * between polls, so each poll reads the newest page of the batch through the core's
 * `pollCertificates` (1 request when the service lists newest first) and returns up to
 * POLL_LIMIT certificates. When the service lists oldest first, finding the newest page
 * means walking the list; the core's cursor of the last page is then kept in Zapier's cache
 * for the Zap, so later polls read 1 page plus the new ones. Without that cache entry (first
 * poll, the test step, a cache miss) the list is walked once.
 */
export interface PollingTriggerSpec<K extends string> {
  key: K;
  event: PollEvent;
  label: string;
  description: string;
  sampleEmailStatus: string;
}

/** Items per poll: the newest page. More new certificates than this between two polls are not all seen; the instant triggers see every one. */
export const POLL_LIMIT = 100;
/** How long the oldest-first cursor is kept for a Zap (Zapier's cache); a miss only costs one walk of the list. */
export const POLL_STATE_TTL_SECONDS = 7 * 24 * 60 * 60;

/** The Zap's cache key for an oldest-first cursor; none outside a live Zap (no Zap id). */
function stateKey(bundle: Bundle, key: string, batchId: string): string | undefined {
  const zapId = (bundle.meta as { zap?: { id?: unknown } } | undefined)?.zap?.id;
  return zapId === undefined || zapId === null || bundle.meta?.isLoadingSample ? undefined : `certsvc:poll:${zapId}:${key}:${batchId}`;
}

/** A cache failure only costs a walk of the list: it never fails the poll. */
async function cached(z: ZObject, key: string | undefined): Promise<PollState | undefined> {
  if (!key) return undefined;
  try {
    const value: unknown = await z.cache.get(key);
    return typeof value === 'string' ? (JSON.parse(value) as PollState) : undefined;
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
    // Checked before any request, naming the field.
    const batchId = text(bundle.inputData.batch_id);
    if (!batchId) throw validationError('batchId', 'choose the batch whose certificates the trigger watches');
    const key = stateKey(bundle, spec.key, batchId);
    const state = await cached(z, key);
    const result = await client.pollCertificates({ batchId, event: spec.event, state, firstPoll: POLL_LIMIT });
    if (key && result.state.order === 'oldest-first') {
      await z.cache.set(key, JSON.stringify(result.state), POLL_STATE_TTL_SECONDS).catch((error: Error) => z.console.log(`Poll position not saved: ${error.message}`));
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
