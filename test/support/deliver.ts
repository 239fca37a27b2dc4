/**
 * One signed delivery attempt as the service makes it, for the e2e suites that time copies
 * themselves: the body signed with a fresh `t`, the service's headers, and a fresh connection
 * (no keep-alive, as the sandbox's sender), so an idle socket the server is closing is never
 * reused. `abortAfterMs`: the sender gives up and closes the socket, as the service does after
 * its 10 s.
 */
import * as http from 'node:http';
import { signPayload } from '@certificate-service/sdk/core';

export interface Attempt {
  /** 0 when no answer came (the sender gave up, or the connection failed). */
  status: number;
  retryAfter: string | null;
  /** The answer's body, or why there was none. */
  body: string;
  /** The upstream that answered (nginx's X-Served-By), when there is one. */
  servedBy: string;
  ms: number;
}

export const GAVE_UP = 'the sender gave up';

/**
 * n8n's answer to a delivery the trigger took, once n8n stored and started (or enqueued) its
 * execution: the trigger's webhookResponse (its responseData is '', so n8n 2.41.1 does not answer
 * the default text "firstEntryJson": webhook-helpers.js evaluateResponseOptions,
 * webhook-on-received-response-extractor.js).
 */
export const N8N_STARTED = '{"received":true}';

/** The upstream that answered, from nginx's X-Served-By (`$upstream_addr`: "a, b" when it tried a first). */
export function answeredBy(servedBy: string | null): string {
  return servedBy?.split(',').pop()?.trim() ?? '';
}

/** The headers the service sends with a delivery: its event, its id and the signature of `body`. */
export function deliveryHeaders(eventType: string, deliveryId: string, secret: string, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhook/1',
    'x-service-event': eventType,
    'x-service-delivery': deliveryId,
    ...signPayload(secret, body),
  };
}

export function postDelivery(
  url: string,
  secret: string,
  event: { id: string; type: string; createdAt: string; data: unknown },
  deliveryId: string,
  opts: { abortAfterMs?: number } = {},
): Promise<Attempt> {
  const body = JSON.stringify(event);
  const started = Date.now();
  return new Promise((resolve) => {
    const end = (a: Omit<Attempt, 'ms'>) => resolve({ ...a, ms: Date.now() - started });
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: deliveryHeaders(event.type, deliveryId, secret, body),
    });
    const timer = setTimeout(() => {
      req.destroy();
      end({ status: 0, retryAfter: null, body: GAVE_UP, servedBy: '' });
    }, opts.abortAfterMs ?? 60_000);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => {
        clearTimeout(timer);
        const header = (name: string) => (res.headers[name] as string | undefined) ?? null;
        end({ status: res.statusCode ?? 0, retryAfter: header('retry-after'), body: text, servedBy: answeredBy(header('x-served-by')) });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      end({ status: 0, retryAfter: null, body: String(error), servedBy: '' });
    });
    req.end(body);
  });
}

/** Sends a delivery again while it is answered 503 (pending), as the service's retries would: the first other answer. */
export async function deliverUntilSettled(attempt: () => Promise<Attempt>, pauseMs: number, deadlineMs = 60_000): Promise<Attempt> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const answer = await attempt();
    if (answer.status !== 503 || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

/** Whether n8n is done with an execution (its status is no longer new, running or waiting). */
export function hasEnded(execution: { status: string }): boolean {
  return !['new', 'running', 'waiting'].includes(execution.status);
}

/**
 * n8n's executions once they held still for `stillMs` with none pending (n8n lists an execution a
 * moment after it answered the call that started it), or at the deadline; with `failAtDeadline`,
 * the deadline throws instead.
 */
export async function settledExecutions<E extends { id: unknown; status: string }>(list: () => Promise<E[]>, stillMs: number, deadlineMs: number, failAtDeadline = false): Promise<E[]> {
  let last = '';
  let since = Date.now();
  for (const deadline = Date.now() + deadlineMs; ; ) {
    const all = await list();
    const now = all.map((e) => `${String(e.id)}:${e.status}`).join(',');
    const atDeadline = Date.now() > deadline;
    if (atDeadline && failAtDeadline) throw new Error(`the executions did not settle in ${deadlineMs} ms`);
    if (now !== last || all.some((e) => !hasEnded(e))) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= stillMs || atDeadline) return all;
    await new Promise((r) => setTimeout(r, 250));
  }
}
