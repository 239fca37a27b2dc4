import { randomUUID } from 'node:crypto';
import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import {
  acceptOnly,
  assertNever,
  collect,
  flattenEvent,
  handleDelivery,
  type DeliveryStore,
  type Batch,
  type CertificateServiceClient,
  type EventType,
  type FlatEvent,
  type Recipient,
  type Viewer,
  type WebhookEvent,
} from '@certificate-service/sdk/core';
import { withClient } from './client';
import { text } from './inputs';
import { EVENT_OUTPUT_FIELDS, outputItem, SAMPLE_RECIPIENT, type OutputField } from './samples';

/**
 * One factory for the four instant (REST hook) triggers. Each trigger subscribes
 * Zapier's hook URL to exactly one event type; the delivery's signing secret is kept
 * in `bundle.subscribeData` and every delivery is verified with it by the core.
 */
export interface CertificateTriggerSpec<K extends string> {
  key: K;
  event: EventType;
  label: string;
  description: string;
  /** performList: only recipients with this email status (where the event implies one). */
  emailStatus?: 'sent' | 'failed';
  /** performList: when the event happened, read from a listed recipient. */
  occurredAt: (recipient: Recipient) => string;
  /** Per-event extras in `data` (failed: `error`, viewed: `viewer`). */
  sampleExtras?: EventExtras;
  /**
   * performList: the same extras for a listed recipient, so the editor offers the same
   * fields to map as a real delivery has. The recipient list does not carry them.
   */
  listExtras?: (occurredAt: string) => EventExtras;
  sampleEmailStatus: string;
  extraOutputFields?: OutputField[];
}

type EventExtras = { error?: string; viewer?: Viewer };

/** How many recent recipients performList returns. */
export const LIST_LIMIT = 10;
/** Deliveries are retried for up to ~39 hours (spec section 6); remember ids a little longer. */
export const DEDUPE_TTL_SECONDS = 2 * 24 * 60 * 60;

interface SubscribeData {
  id?: string;
  secret?: string;
}

function subscribeData(bundle: Pick<Bundle, 'subscribeData'>): SubscribeData {
  return (bundle.subscribeData ?? {}) as SubscribeData;
}

/** Logs why a delivery was dropped: the reason and ids only, never secrets or signatures. */
function drop(z: ZObject, deliveryId: string | undefined, why: string): [] {
  z.console.log(`Certificate Service delivery ${deliveryId ?? '(no delivery id)'} ignored: ${why}`);
  return [];
}

/**
 * Delivery is at-least-once (spec section 6), and Zapier can run two copies of one
 * delivery in two Lambdas at the same time, so the delivery id is claimed in Zapier's
 * shared cache with one atomic write: `z.cache.set(key, claim, ttl, scope, nx = true)`
 * stores the key only if it is absent. zapier-platform-core 19.1.0 passes `nx` to the
 * `zcache_set` RPC and returns its answer (src/tools/create-cache.js:54-64; typed
 * `Promise<boolean | null>`): `true` when this call stored the key.
 *
 * - The read first answers the common case, a later retry, in one call. It also keeps
 *   replays caught where the cache ignores `nx`: core's local stand-in (appTester,
 *   `zapier-platform invoke`; create-rpc-client.js:25-28) stores and answers `true` on
 *   every set.
 * - Any other answer is checked by reading the key back: Zapier also answers `false` when
 *   it refuses a write (its cache rate limit), and a claim is this invocation's own random
 *   value, so only another invocation's claim makes the delivery a duplicate.
 * - If the cache fails, the delivery is processed: a possible duplicate is better than
 *   a lost event.
 */
const claimCacheKey = (subscriptionId: string | undefined, deliveryId: string) => `certsvc:delivery:${subscriptionId ?? '-'}:${deliveryId}`;

async function seenBefore(z: ZObject, subscriptionId: string | undefined, deliveryId: string): Promise<boolean> {
  const key = claimCacheKey(subscriptionId, deliveryId);
  const claim = randomUUID();
  try {
    if (await z.cache.get(key)) return true;
    if ((await z.cache.set(key, claim, DEDUPE_TTL_SECONDS, undefined, true)) === true) return false;
    const holder: unknown = await z.cache.get(key);
    if (holder && holder !== claim) return true;
    if (!holder) z.console.log(`Duplicate check for delivery ${deliveryId} skipped: the cache did not store the claim.`);
  } catch (error) {
    z.console.log(`Duplicate check for delivery ${deliveryId} skipped: ${(error as Error).message}`);
  }
  return false;
}

/**
 * The trigger's store for the core's delivery pipeline: Zapier's shared cache, as above. Zapier
 * has answered the hook's request before perform runs, so there is no answer to wait for: the
 * claim is final at once (taken or done), and nothing is left pending.
 */
const cacheStore = (z: ZObject, subscriptionId: string | undefined): DeliveryStore => ({
  claim: async (deliveryId) => ((await seenBefore(z, subscriptionId, deliveryId)) ? 'done' : 'taken'),
  // A failure's time (the core's claimOccurrence) replaces the claim's value, so a later bounce
  // of the same certificate is told from a copy of this one. One more write, for failures only.
  settle: async (deliveryId, ok, at) => {
    if (!ok || at === undefined) return;
    await z.cache.set(claimCacheKey(subscriptionId, deliveryId), { at }, DEDUPE_TTL_SECONDS).catch(() => undefined);
  },
  doneAt: async (deliveryId) => {
    const held: unknown = await z.cache.get(claimCacheKey(subscriptionId, deliveryId)).catch(() => undefined);
    return held && typeof held === 'object' && typeof (held as { at?: unknown }).at === 'number' ? (held as { at: number }).at : undefined;
  },
});

/** The newest active batch: the one performList shows when no batch filter is set. */
async function newestActiveBatch(client: CertificateServiceClient): Promise<Batch | undefined> {
  const { items } = await client.listBatches({ status: 'active' });
  const dated = items.every((b) => typeof b.createdAt === 'string');
  // The list order is not documented; by creation time when the service gives it.
  return dated ? [...items].sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))[0] : items[0];
}

export function defineCertificateTrigger<const K extends string>(spec: CertificateTriggerSpec<K>) {
  const sampleEvent: WebhookEvent = {
    id: 'whe_5m2n8p4r',
    type: spec.event,
    createdAt: '2025-06-02T09:16:30.000Z',
    data: { ...SAMPLE_RECIPIENT, emailStatus: spec.sampleEmailStatus, ...spec.sampleExtras },
  };

  /** A listed recipient in the same flat shape as a delivery, with an id no real event has. */
  const listItem = (recipient: Recipient): FlatEvent => {
    const createdAt = spec.occurredAt(recipient);
    return flattenEvent({ id: `${spec.event}:${recipient.id}`, type: spec.event, createdAt, data: { ...recipient, ...spec.listExtras?.(createdAt) } });
  };
  const outputFields = [...EVENT_OUTPUT_FIELDS, ...(spec.extraOutputFields ?? [])];

  return defineTrigger({
    key: spec.key,
    noun: 'Certificate',
    display: { label: spec.label, description: spec.description },
    operation: {
      type: 'hook',
      inputFields: [
        {
          key: 'batch_id',
          label: 'Batch',
          required: false,
          dynamic: 'batch_list.id.title',
          helpText: 'Only trigger for certificates in this batch. Leave empty to trigger for every batch.',
        },
      ],

      performSubscribe: withClient(async (client, _z, bundle: Bundle) => {
        // The core refuses (and deletes again) a subscription created without its signing secret.
        const subscription = await client.createSubscription({ url: String(bundle.targetUrl ?? ''), events: [spec.event] });
        // Becomes bundle.subscribeData: the id to unsubscribe, the secret to verify deliveries.
        return { id: subscription.id, secret: subscription.secret };
      }),

      performUnsubscribe: withClient(async (client, _z, bundle: Bundle) => {
        const id = text(subscribeData(bundle).id);
        if (!id) return { deleted: false };
        // Already gone (deleted in the web app, or auto-removed after a 410) is done too: the core's unsubscribe.
        return await client.unsubscribe(id);
      }),

      perform: async (z: ZObject, bundle: Bundle) => {
        const raw = bundle.rawRequest ?? {};
        const { id: subscriptionId, secret } = subscribeData(bundle);
        // The core's one pipeline: verify, filter (this trigger's event, the chosen batch), deduplicate.
        const result = await handleDelivery(raw.content, raw.headers, {
          secrets: secret ?? [],
          accept: acceptOnly({ events: [spec.event], batchId: text(bundle.inputData.batch_id) }),
          store: cacheStore(z, subscriptionId),
        });
        switch (result.outcome) {
          case 'rejected':
            return drop(z, result.deliveryId, `verification failed (${result.reason}): ${result.message}`);
          case 'notCertificate':
            return drop(z, result.deliveryId, `a test or non-certificate delivery (${result.envelope.type}: ${result.why}); the Zap does not run for it.`);
          case 'filtered':
            return drop(z, result.deliveryId, `${result.why}.`);
          case 'duplicate':
          case 'pending': // not with this store (its claims are final), but a copy in flight is no new event either
            return drop(z, result.deliveryId, 'already processed.');
          case 'accepted':
            await result.settle(true);
            return [outputItem(flattenEvent(result.event), outputFields)];
          default:
            return assertNever(result);
        }
      },

      performList: withClient(async (client, _z, bundle: Bundle) => {
        const batchId = text(bundle.inputData.batch_id) ?? (await newestActiveBatch(client))?.id;
        if (!batchId) return [];
        const recipients = client.iterateRecipients(batchId, { limit: LIST_LIMIT, emailStatus: spec.emailStatus });
        return (await collect(recipients, LIST_LIMIT)).map((r) => outputItem(listItem(r), outputFields));
      }),

      sample: flattenEvent(sampleEvent),
      outputFields,
    },
  });
}
