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
import type { Command } from 'commander';
import { Option } from 'commander';
import { checkRecoverSettings, signPayload, type PollEvent, UsageError } from '@certificate-service/sdk';
import { connect, type ConnectionFlags } from './connect';
import type { Io } from './io';

export interface RecoverFlags {
  since: string;
  forwardTo?: string;
  secret?: string;
  batch?: string[];
  events?: string;
  dryRun?: boolean;
}

/** Claims n8n keeps across restarts (the Certificate Service Trigger's static data, n8n/nodes/CertificateServiceTrigger/deliveries.ts). */
export const N8N_STORED_CLAIMS = 200;
/** How long a forwarded delivery may take to be answered (the spec expects about 10 s). */
const ANSWER_TIMEOUT_MS = 10_000;
const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The flags by the core's names: the core checks the settings and names the flag. */
const FLAGS = { since: '--since', events: '--events', batches: '--batch' };

/** `72h`, `3d`, `90m`, or an ISO 8601 time: the earliest time to recover (epoch ms). */
export function parseSince(text: string, now = Date.now()): number {
  const duration = /^\s*(\d+(?:\.\d+)?)\s*([mhd])\s*$/i.exec(text);
  if (duration) return now - Number(duration[1]) * UNITS[duration[2].toLowerCase()];
  const at = /^\d{4}-\d\d-\d\d/.test(text.trim()) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) throw new UsageError(`--since: give a duration (72h, 3d, 90m) or an ISO 8601 time (2026-11-27T08:00:00Z); got "${text}".`);
  return checkRecoverSettings({ since: at }, FLAGS, now).since;
}

/** `--events issued,certificate.sent`: the core's names, checked by the core. */
const parseEvents = (text: string | undefined) => text?.split(',').map((e) => e.trim().replace(/^certificate\./, '')).filter(Boolean) as PollEvent[] | undefined;

function parseUrl(text: string | undefined): URL {
  let url: URL | undefined;
  try {
    url = text ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new UsageError('--forward-to: give the receiver\'s URL (https://…; http:// for a local receiver).');
  return url;
}

interface Forwarded {
  status?: number;
  error?: string;
}

/** One signed POST, as the service makes it: a fresh `t` per attempt, over the exact bytes sent. */
async function forward(url: URL, secret: string, type: string, deliveryId: string, body: string): Promise<Forwarded> {
  const headers = { ...signPayload(secret, body), 'X-Service-Event': type, 'X-Service-Delivery': deliveryId, 'User-Agent': 'Service-Webhook/1', 'Content-Type': 'application/json' };
  try {
    // redirect: manual: a redirect is an answer other than 2xx, as the service counts it.
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status };
  } catch (error) {
    // The cause of a fetch failure names the host and port at most, never a header.
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { error: (error as Error).name === 'TimeoutError' ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s` : (cause ?? (error as Error).name) };
  }
}

/** Finds, then forwards (or lists, with --dry-run); exit 0 when every forwarded delivery got a 2xx. */
export async function runRecover(flags: RecoverFlags, conn: ConnectionFlags, out: NodeJS.WritableStream, err: NodeJS.WritableStream, env: NodeJS.ProcessEnv): Promise<number> {
  // Every flag is checked before any request.
  const { since, events, batches } = checkRecoverSettings({ since: parseSince(flags.since), events: parseEvents(flags.events), batches: flags.batch?.length ? flags.batch : undefined }, FLAGS);
  const secret = flags.secret ?? env.CERTSVC_WEBHOOK_SECRET;
  const url = flags.dryRun && !flags.forwardTo ? undefined : parseUrl(flags.forwardTo);
  if (!flags.dryRun && !secret?.trim()) throw new UsageError('--secret: give the receiver\'s signing secret (wh_sec_…), or set CERTSVC_WEBHOOK_SECRET (it keeps the secret out of the process list).');
  const { client } = connect(conn, env);
  const found = await client.findRecoverableEvents({ since, events, batches });
  for (const note of found.notes) err.write(`certsvc: ${note}\n`);
  err.write(`Found ${found.events.length} events since ${new Date(since).toISOString()} (${found.requests} list requests: every batch${flags.batch?.length ? ' named' : ''} read whole, one request per 100 certificates). viewed events cannot be recovered.\n`);
  if (flags.dryRun) {
    for (const { event, key, deliveryId } of found.events) out.write(`${JSON.stringify({ deliveryId, occurrence: key, type: event.type, createdAt: event.createdAt, recipientId: event.data.id, batchId: event.data.batchId })}\n`);
    out.write(`${JSON.stringify({ found: found.events.length, forwarded: 0, answered2xx: 0, failed: 0, dryRun: true })}\n`);
    return 0;
  }
  if (found.events.length > N8N_STORED_CLAIMS) {
    err.write(
      `certsvc: warning: forwarding ${found.events.length} events, more than the ${N8N_STORED_CLAIMS} claims n8n keeps across restarts. An n8n Webhook → Delivery: Verify receiver ` +
        'remembers up to 20,000 per node, but in the memory of one process: if n8n restarts (or another worker takes a copy) before the service stops retrying, ' +
        'a copy of an event it ran may run again. Turn on "Record Delivery IDs" in Verify to keep them in n8n\'s database. An SDK receiver is exactly once with a store that survives restarts (fileStore, or your database).\n',
    );
  }
  const failures: { deliveryId: string; occurrence: string; status?: number; error?: string }[] = [];
  let ok = 0;
  for (const { event, key, deliveryId } of found.events) {
    const answer = await forward(url!, secret!, event.type, deliveryId, JSON.stringify(event));
    if (answer.status !== undefined && answer.status >= 200 && answer.status < 300) ok++;
    else failures.push({ deliveryId, occurrence: key, ...answer });
  }
  const report = { found: found.events.length, forwarded: found.events.length, answered2xx: ok, failed: failures.length, ...(failures.length ? { failures: failures.slice(0, 50) } : {}) };
  out.write(`${JSON.stringify(report, null, 2)}\n`);
  if (failures.length) err.write('certsvc: some deliveries were not answered 2xx; run the same command again: the delivery ids repeat, and a receiver that keeps its claims runs each event once.\n');
  return failures.length ? 1 : 0;
}

/** `certsvc events recover`, registered by main.ts. */
export function registerEvents(cli: Command, result: { exitCode: number }, io: Pick<Io, 'stdout' | 'stderr' | 'env'>): void {
  cli
    .command('events')
    .description('recover webhook events a receiver missed')
    .command('recover')
    .description('forward the issued, sent and failed events since a time to a receiver, signed as the service signs them (viewed events cannot be recovered)')
    .requiredOption('--since <time>', 'a duration back from now (72h, 3d) or an ISO 8601 time')
    .option('--forward-to <url>', "the receiver's URL (an SDK app, or n8n's Webhook node before Delivery: Verify)")
    .option('--secret <wh_sec_…>', "the receiver's signing secret (default $CERTSVC_WEBHOOK_SECRET)")
    .option('--batch <id...>', 'only these batches (default: every batch, archived too)')
    .addOption(new Option('--events <list>', 'comma-separated: issued, sent, failed (default all three)'))
    .option('--dry-run', 'list what would be forwarded, send nothing')
    .action(async (o: RecoverFlags, command: Command) => {
      result.exitCode = await runRecover(o, command.optsWithGlobals<ConnectionFlags>(), io.stdout, io.stderr, io.env);
    });
}
