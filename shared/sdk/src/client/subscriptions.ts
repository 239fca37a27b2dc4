import { action, listOf, one, unexpected, type Decoder } from '../decode';
import { paginate } from '../pagination';
import type { ActionResult, EventType, Page, WebhookSubscription } from '../types';
import { validateEvents, validateWebhookUrl } from '../validation';
import { page, seg, type Api } from './api';
import type { ListOptions } from './batches';

const ROUTE = '/webhooks/subscriptions';
const ONE_ROUTE = `${ROUTE}/{subscriptionId}`;
const SECRET_KEYS = ['secret', 'signingSecret', 'signing_secret', 'secretKey'];

/** Finds the signing secret whatever the field is called; it starts with `wh_sec_` (spec section 2). */
function readSecret(obj: Record<string, unknown>): string | undefined {
  for (const k of SECRET_KEYS) if (typeof obj[k] === 'string') return obj[k] as string;
  return Object.values(obj).find((v): v is string => typeof v === 'string' && v.startsWith('wh_sec_'));
}

/** The subscription with its secret (if any) under `secret`, and under no other name. */
function withSecret(sub: Record<string, unknown>): WebhookSubscription {
  const secret = readSecret(sub);
  const rest = Object.fromEntries(Object.entries(sub).filter(([k, v]) => !SECRET_KEYS.includes(k) && v !== secret));
  return { ...(rest as WebhookSubscription), ...(secret ? { secret } : {}) };
}

const subscription: Decoder<WebhookSubscription> = (body, context) => withSecret(one<Record<string, unknown>>('a subscription', ['subscription'])(body, context));

async function listPage(api: Api, options: ListOptions) {
  const decode = listOf<Record<string, unknown>>('subscriptions', { limit: options.limit });
  const decoded = await api.call({ method: 'GET', route: ROUTE, path: ROUTE, query: { cursor: options.cursor, limit: options.limit } }, decode);
  return { ...decoded, items: decoded.items.map(withSecret) };
}

export async function listSubscriptions(api: Api, options: ListOptions = {}): Promise<Page<WebhookSubscription>> {
  return page(await listPage(api, options));
}

export function iterateSubscriptions(api: Api): AsyncGenerator<WebhookSubscription> {
  // The spec shows no query for this list; a workspace holds at most 20 (section 8).
  return paginate(`GET ${ROUTE}`, (cursor) => listPage(api, { cursor }));
}

/** The returned `secret` is shown once: store it to verify deliveries. */
export async function createSubscription(api: Api, input: { url: string; events: EventType[] }): Promise<WebhookSubscription> {
  const body = { url: validateWebhookUrl(input?.url), events: validateEvents(input?.events) };
  const created = await api.call({ method: 'POST', route: ROUTE, path: ROUTE, body, handsOutSecret: true }, subscription);
  api.secrets.add(created.secret);
  return created;
}

export async function getSubscription(api: Api, subscriptionId: string): Promise<WebhookSubscription> {
  return await api.call({ method: 'GET', route: ONE_ROUTE, path: `${ROUTE}/${seg(subscriptionId, 'subscriptionId')}` }, subscription);
}

export async function deleteSubscription(api: Api, subscriptionId: string): Promise<ActionResult> {
  return await api.call({ method: 'DELETE', route: ONE_ROUTE, path: `${ROUTE}/${seg(subscriptionId, 'subscriptionId')}` }, action({ id: subscriptionId, deleted: true }));
}

export async function testSubscription(api: Api, subscriptionId: string): Promise<ActionResult> {
  return await api.call({ method: 'POST', route: `${ONE_ROUTE}/test`, path: `${ROUTE}/${seg(subscriptionId, 'subscriptionId')}/test` }, action({ id: subscriptionId }));
}

/** A rotation that returns no secret cannot be used: its deliveries could never be verified. */
const rotatedSecret: Decoder<string> = (body, context) => {
  const obj = action<Record<string, unknown>>({})(body, context);
  const inner = obj.subscription && typeof obj.subscription === 'object' ? (obj.subscription as Record<string, unknown>) : obj;
  const secret = readSecret(inner);
  if (!secret) throw unexpected(context, body, 'the new signing secret');
  return secret;
};

export async function rotateSubscriptionSecret(api: Api, subscriptionId: string): Promise<{ id: string; secret: string }> {
  const path = `${ROUTE}/${seg(subscriptionId, 'subscriptionId')}/rotate-secret`;
  const secret = await api.call({ method: 'POST', route: `${ONE_ROUTE}/rotate-secret`, path, handsOutSecret: true }, rotatedSecret);
  api.secrets.add(secret);
  return { id: subscriptionId, secret };
}
