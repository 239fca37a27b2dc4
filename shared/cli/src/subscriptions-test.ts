// `certsvc subscriptions test <id>`: asks the service for a sample delivery, then says how to see
// whether it arrived. The API has no delivery log (spec: the test endpoint only queues), so
// against the live service the answer is "look at your receiver". The sandbox keeps one
// (`GET /__sandbox/deliveries`): against it, the command waits briefly for the first attempt
// and prints its outcome.
import type { Context } from './command';
// Type only (erased from dist): the CLI never loads the sandbox; it reads the sandbox's log over HTTP.
import type { DeliveryAttempt as Attempt } from '@certificate-service/sandbox';

/** How long to wait for the sandbox's first attempt: it delivers at once, so a few seconds is plenty. */
export const SANDBOX_WAIT_MS = 5_000;
const POLL_MS = 100;

export interface SubscriptionTestOptions {
  waitMs?: number;
  /** How to reach the sandbox's control routes (a fake in tests). */
  fetch?: typeof fetch;
  now?: () => number;
}

/**
 * The sandbox's control routes, when the base URL is the sandbox. Only an http:// base URL is
 * asked (the core allows http:// on loopback only, and the live service is https://), without
 * the key, and only a sandbox answers `GET /__sandbox/` with its own base URL.
 */
async function sandboxControls(baseUrl: string, get: typeof fetch): Promise<string | undefined> {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') return undefined;
  const controls = `${url.origin}/__sandbox`;
  try {
    const res = await get(`${controls}/`, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(2_000) });
    if (!res.ok) return undefined;
    const info = (await res.json()) as { baseUrl?: unknown };
    return info.baseUrl === baseUrl ? controls : undefined;
  } catch {
    return undefined;
  }
}

function describe(a: Attempt): string {
  const answer = a.status ? `answered ${a.status}` : `could not be reached (${a.error ?? 'no answer'})`;
  const next: Record<Attempt['outcome'], string> = {
    succeeded: 'the delivery arrived.',
    retrying: 'the service will retry it (1 min, 5 min, 30 min, … in the spec; faster in a sandbox started with a time scale).',
    failed: 'the service gives up on this delivery.',
    unsubscribed: 'a 410 unsubscribes: the subscription was deleted.',
  };
  return `${a.url} ${answer}: ${next[a.outcome]}`;
}

/** Runs the command; returns the exit code (0: the service queued the test delivery). */
export async function runSubscriptionTest({ subscriptionId }: { subscriptionId: string }, { connection: { client }, io }: Context, options: SubscriptionTestOptions = {}): Promise<number> {
  const { stdout, stderr } = io;
  const get = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const started = now();
  const result = await client.testSubscription(subscriptionId);
  stdout.write(`${JSON.stringify(result, null, 2)}\n`);

  const controls = await sandboxControls(client.baseUrl, get);
  if (!controls) {
    stderr.write(
      'The service queued a sample delivery to the subscription\'s URL; it keeps no delivery log you can read. ' +
        'To see whether it arrived, look at your receiver\'s logs (the SDK\'s receivers call onEvent, or onNotCertificate for a test delivery that is no certificate event). ' +
        'Nothing there? Check that the URL is reachable from the internet and answers 2xx; a failed delivery is retried (1 min, 5 min, 30 min, …).\n',
    );
    return 0;
  }

  // The sandbox: its first attempt of this delivery (by id when the answer names it, else the first for this subscription since the call).
  const deliveryId = typeof (result as { deliveryId?: unknown }).deliveryId === 'string' ? (result as { deliveryId: string }).deliveryId : undefined;
  const mine = (a: Attempt) => a.copy === 0 && a.attempt === 1 && (deliveryId ? a.deliveryId === deliveryId : a.subscriptionId === subscriptionId && a.atMs >= started);
  const deadline = now() + (options.waitMs ?? SANDBOX_WAIT_MS);
  let first: Attempt | undefined;
  while (!first && now() <= deadline) {
    try {
      const res = await get(`${controls}/deliveries`, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(2_000) });
      if (res.ok) first = ((await res.json()) as Attempt[]).find(mine);
    } catch {
      // the sandbox went away: say where to look instead
    }
    if (!first) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const page = `${new URL(controls).origin}/`;
  if (!first) {
    stderr.write(`Sandbox: no attempt of the test delivery yet after ${Math.round((options.waitMs ?? SANDBOX_WAIT_MS) / 1000)} s. Its deliveries are listed at ${controls}/deliveries (and on its page, ${page}, in a browser).\n`);
    return 0;
  }
  stderr.write(`Sandbox: delivery ${first.deliveryId}, attempt 1: ${describe(first)} Every attempt: ${controls}/deliveries (or ${page} in a browser).\n`);
  return 0;
}
