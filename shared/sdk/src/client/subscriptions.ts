import { action, one, unexpected, type Decoder } from '../decode';
import { CertificateServiceError } from '../errors';
import type { ActionResult, EventType, Page, WebhookSubscription } from '../types';
import { validateEvents, validateWebhookUrl } from '../validation';
import { page, type Api } from './api';
import { endpointName, ENDPOINTS } from './endpoints';
import { iterateList, listPage, type ListOptions, type ListSpec } from './list';

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

// The spec shows no query for this list; a workspace holds at most 20 (section 8).
const SUBSCRIPTION_LIST: ListSpec<WebhookSubscription> = { endpoint: ENDPOINTS.listSubscriptions, noun: 'subscriptions', read: withSecret };

export async function listSubscriptions(api: Api, options: ListOptions = {}): Promise<Page<WebhookSubscription>> {
  return page(await listPage(api, SUBSCRIPTION_LIST, options));
}

export function iterateSubscriptions(api: Api): AsyncGenerator<WebhookSubscription> {
  return iterateList(api, SUBSCRIPTION_LIST);
}

/**
 * The returned `secret` is shown once: store it to verify deliveries. A creation that returns no
 * secret cannot be used (no delivery could ever be verified, as with rotate): the subscription is
 * deleted again, here, for every host, and the call fails saying so.
 */
export async function createSubscription(api: Api, input: { url: string; events: EventType[] }): Promise<WebhookSubscription & { secret: string }> {
  const body = { url: validateWebhookUrl(input?.url), events: validateEvents(input?.events) };
  let status = 0;
  const created = await api.call({ endpoint: ENDPOINTS.createSubscription, body, handsOutSecret: true }, (answer, context) => ((status = context.status), subscription(answer, context)));
  if (!created.secret) {
    const removed = await deleteSubscription(api, created.id).then(() => 'It was deleted again.', () => `Deleting it again failed: delete subscription ${created.id} yourself.`);
    throw new CertificateServiceError({
      code: 'UNEXPECTED_RESPONSE',
      phase: 'response',
      status,
      detail: { endpoint: endpointName(ENDPOINTS.createSubscription), subscriptionId: created.id },
      message: `${endpointName(ENDPOINTS.createSubscription)} created subscription ${created.id} but returned no signing secret, so none of its deliveries could be verified. ${removed}`,
    });
  }
  api.secrets.add(created.secret);
  return { ...created, secret: created.secret };
}

export async function getSubscription(api: Api, subscriptionId: string): Promise<WebhookSubscription> {
  return await api.call({ endpoint: ENDPOINTS.getSubscription, params: { subscriptionId } }, subscription);
}

export async function deleteSubscription(api: Api, subscriptionId: string): Promise<ActionResult> {
  return await api.call({ endpoint: ENDPOINTS.deleteSubscription, params: { subscriptionId } }, action({ id: subscriptionId, deleted: true }));
}

/**
 * Deletes a subscription, for a host taking its trigger down: one already gone (a 404: deleted in
 * the web app, or removed by the service after a 410) is done too, `alreadyDeleted: true`.
 */
export async function unsubscribe(api: Api, subscriptionId: string): Promise<ActionResult> {
  try {
    return await deleteSubscription(api, subscriptionId);
  } catch (error) {
    if (error instanceof CertificateServiceError && error.isNotFound) return { id: subscriptionId, deleted: true, alreadyDeleted: true };
    throw error;
  }
}

export async function testSubscription(api: Api, subscriptionId: string): Promise<ActionResult> {
  return await api.call({ endpoint: ENDPOINTS.testSubscription, params: { subscriptionId } }, action({ id: subscriptionId }));
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
  const secret = await api.call({ endpoint: ENDPOINTS.rotateSubscriptionSecret, params: { subscriptionId }, handsOutSecret: true }, rotatedSecret);
  api.secrets.add(secret);
  return { id: subscriptionId, secret };
}
