// `certsvc events recover`: the issued, sent and failed events a receiver missed past the
// service's last retry (7 attempts over about 39 hours), read back from the lists and forwarded
// to the receiver as deliveries signed exactly as the service signs them (spec section 6), so
// any receiver whose signing secret you hold takes them through its usual path:
// - an app on the SDK (createNodeHandler, createReceiver…) with a store that keeps its claims;
// - n8n's Webhook → Certificate Service (Delivery: Verify) path.
// Not Zapier's instant triggers (their secret stays in Zapier), nor n8n's Certificate Service
// Trigger (it keeps its secret in the workflow's static data): their users run the poll
// trigger of the same event, or recover into a Webhook → Verify workflow.
// `viewed` cannot be recovered: no list says when a certificate was viewed.
// The window is `--since` to `--until`. More events than the receiver remembers are refused
// (a receiver that has forgotten a key runs the service's late copy of that event again) unless
// the user states its memory or says `--yes`; the forwarding is paced (forward.ts).
import { checkRecoverSettings, DEFAULT_MEMORY_STORE_SIZE, type PollEvent, UsageError } from '@certificate-service/sdk';
import type { Run } from './command';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_WAIT_MS, forwardAll, MAX_CONCURRENCY } from './forward';
import { parseDurationFlag, parseTimeFlag } from './time-flag';

export interface RecoverFlags {
  since: string;
  until?: string;
  forwardTo?: string;
  secret?: string;
  batch?: string[];
  events?: string;
  dryRun?: boolean;
  yes?: boolean;
  receiverMemory?: string;
  concurrency?: string;
  maxWait?: string;
}

/** The flags by the core's names: the core checks the settings and names the flag. */
const FLAGS = { since: '--since', until: '--until', events: '--events', batches: '--batch' };

/** `--events issued,certificate.sent`: the core's names, checked by the core. */
const parseEvents = (text: string | undefined) => text?.split(',').map((e) => e.trim().replace(/^certificate\./, '')).filter(Boolean) as PollEvent[] | undefined;

function wholeNumber(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${flag}: give a whole number ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}; got "${text}".`);
  return n;
}

function parseUrl(text: string | undefined): URL {
  let url: URL | undefined;
  try {
    url = text ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new UsageError('--forward-to: give the receiver\'s URL (https://…; http:// for a local receiver).');
  // fetch would refuse them with a bare TypeError, on every delivery, after the whole window was read. Neither part is repeated.
  if (url.username || url.password) {
    throw new UsageError('--forward-to: the URL carries a user name or password (user:pass@); give it without them. Each delivery is signed with --secret, which is how the receiver knows it.');
  }
  return url;
}

export const count = (n: number) => n.toLocaleString('en-US');

/** Keys n8n's Delivery: Verify remembers per process (MEMORY_DELIVERIES in n8n/nodes/shared/delivery-memory.ts; a test holds them equal). */
export const N8N_VERIFY_MEMORY = 20_000;

/** More events than the receiver remembers: refused unless the user says the receiver's memory holds them. */
function memoryRefusal(found: number, stated: number | undefined): string {
  const memory = stated === undefined ? `the ${count(DEFAULT_MEMORY_STORE_SIZE)} keys the smallest receiver memory holds (an SDK receiver on its default memoryStore)` : `the ${count(stated)} keys --receiver-memory says the receiver holds`;
  return (
    `the window holds ${count(found)} events, more than ${memory}; nothing was forwarded. A receiver that remembers fewer keys than the events forwarded ` +
    "may run an event twice when the service's late copy of it arrives. Narrow the window (--since, --until), read fewer batches (--batch) or events (--events); " +
    `or state the receiver's memory (--receiver-memory ${N8N_VERIFY_MEMORY} for n8n's Delivery: Verify, per process), or --yes for a store that keeps every key (fileStore, a database).`
  );
}

/** Finds, then forwards (or lists, with --dry-run); exit 0 when every forwarded delivery got a 2xx. */
export const runRecover: Run<RecoverFlags> = async (flags, context) => {
  const { stdout: out, stderr: err, env } = context.io;
  // Every flag is checked before any request.
  const now = Date.now();
  const window = {
    since: parseTimeFlag('--since', flags.since, now),
    until: flags.until === undefined ? now : parseTimeFlag('--until', flags.until, now),
    events: parseEvents(flags.events),
    batches: flags.batch?.length ? flags.batch : undefined,
  };
  const { since, until, events, batches } = checkRecoverSettings(window, FLAGS, now);
  const concurrency = flags.concurrency === undefined ? DEFAULT_CONCURRENCY : wholeNumber('--concurrency', flags.concurrency, 1, MAX_CONCURRENCY);
  const maxWaitMs = flags.maxWait === undefined ? DEFAULT_MAX_WAIT_MS : parseDurationFlag('--max-wait', flags.maxWait);
  const memory = flags.receiverMemory === undefined ? undefined : wholeNumber('--receiver-memory', flags.receiverMemory, 1);
  const secret = flags.secret ?? env.CERTSVC_WEBHOOK_SECRET;
  const url = flags.dryRun && !flags.forwardTo ? undefined : parseUrl(flags.forwardTo);
  if (!flags.dryRun && !secret?.trim()) throw new UsageError('--secret: give the receiver\'s signing secret (wh_sec_…), or set CERTSVC_WEBHOOK_SECRET (it keeps the secret out of the process list).');
  const { client } = context.connection;
  const found = await client.findRecoverableEvents({ since, until, events, batches });
  for (const note of found.notes) err.write(`certsvc: ${note}\n`);
  const span = `from ${new Date(since).toISOString()} to ${new Date(until ?? now).toISOString()}`;
  err.write(`Found ${found.events.length} events ${span} (${found.requests} list requests: every batch${flags.batch?.length ? ' named' : ''} read whole, one request per 100 certificates). viewed events cannot be recovered.\n`);
  if (flags.dryRun) {
    for (const { event, key, deliveryId } of found.events) out.write(`${JSON.stringify({ deliveryId, occurrence: key, type: event.type, createdAt: event.createdAt, recipientId: event.data.id, batchId: event.data.batchId })}\n`);
    out.write(`${JSON.stringify({ found: found.events.length, forwarded: 0, answered2xx: 0, failed: 0, dryRun: true })}\n`);
    return 0;
  }
  if (found.events.length > (memory ?? DEFAULT_MEMORY_STORE_SIZE) && !flags.yes) throw new UsageError(memoryRefusal(found.events.length, memory));

  const deliveries = found.events.map(({ event, deliveryId }) => ({ deliveryId, type: event.type, body: JSON.stringify(event) }));
  const outcomes = await forwardAll(url!, secret!, deliveries, { concurrency, maxWaitMs });
  const failures = outcomes.flatMap((o, i) => (o.kind === 'delivered' ? [] : [{ deliveryId: found.events[i].deliveryId, occurrence: found.events[i].key, outcome: o.kind, ...(o.status !== undefined ? { status: o.status } : {}), ...(o.kind === 'failed' && o.error ? { error: o.error } : {}) }]));
  const tally = (kind: string) => outcomes.filter((o) => o.kind === kind).length;
  const notDelivered = tally('notDelivered');
  const report = {
    found: found.events.length,
    // Sent at least once: a delivery not delivered but with a status was answered 503/429.
    forwarded: outcomes.filter((o) => o.kind !== 'notDelivered' || o.status !== undefined).length,
    answered2xx: tally('delivered'),
    failed: tally('failed'),
    notDelivered,
    ...(failures.length ? { failures: failures.slice(0, 50) } : {}),
  };
  out.write(`${JSON.stringify(report, null, 2)}\n`);
  if (notDelivered) err.write(`certsvc: the receiver asked to wait (503 or 429) longer than --max-wait (${maxWaitMs / 1000} s) in all: ${notDelivered} deliveries were not delivered.\n`);
  if (failures.length) err.write('certsvc: some deliveries were not answered 2xx; run the same command again: the delivery ids repeat, and a receiver that keeps its claims runs each event once.\n');
  return failures.length ? 1 : 0;
};
