import { EVENT_TYPES, isLoopbackHost, type EventType } from '@certificate-service/sdk';
import { ApiError, notFound, validationError } from '../errors';
import { shapeList } from '../list-shapes';
import { paginate, parsePageQuery } from '../pagination';
import { sampleRecipient } from '../sample';
import type { SubscriptionRecord } from '../store';
import { objectBody, requiredString } from '../validate';
import { subscriptionView } from '../views';
import type { ApiRequest, ApiRoute } from './types';
import { MAX_SUBSCRIPTIONS, SUCCESS_STATUS } from '../choices';

export { MAX_SUBSCRIPTIONS };

function requireSubscription(r: ApiRequest, id: string): SubscriptionRecord {
  const sub = r.sb.store.subscriptionOf(r.ws, id);
  if (!sub) throw notFound('webhook subscription', id);
  return sub;
}

/** HTTPS only, as in production; plain http is allowed for loopback (the SDK's one rule) so local receivers work. */
function parseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError('url', `url must be an absolute URL; got "${raw}".`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url.toString();
  throw validationError('url', 'url must use https (plain http is accepted only for loopback hosts in the sandbox).');
}

function parseEvents(raw: unknown): EventType[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw validationError('events', `events must be a non-empty array of: ${EVENT_TYPES.join(', ')}.`);
  }
  raw.forEach((e, index) => {
    if (!(EVENT_TYPES as readonly unknown[]).includes(e)) {
      throw validationError('events', `events[${index}] is not an event type; use one of ${EVENT_TYPES.join(', ')}.`, {
        index,
        value: e,
      });
    }
  });
  return [...new Set(raw as EventType[])];
}

export const webhookRoutes: ApiRoute[] = [
  {
    method: 'GET',
    pattern: '/webhooks/subscriptions',
    handler: ({ sb, ws, query }) => {
      const page = paginate(ws.subscriptions, 'subscriptions', parsePageQuery(query, 'subscriptions'));
      const data = page.items.map(subscriptionView);
      return { status: 200, body: shapeList(sb.settings.listShape, 'subscriptions', data, page.nextCursor) };
    },
  },
  {
    method: 'POST',
    pattern: '/webhooks/subscriptions',
    handler: ({ sb, ws, body }) => {
      const input = objectBody(body);
      const url = parseUrl(requiredString(input, 'url'));
      const events = parseEvents(input.events);
      if (ws.subscriptions.length >= MAX_SUBSCRIPTIONS) {
        throw new ApiError(
          'PLAN_LIMIT_EXCEEDED',
          `A workspace can hold at most ${MAX_SUBSCRIPTIONS} webhook subscriptions; delete one first.`,
          { limit: MAX_SUBSCRIPTIONS, resource: 'webhook subscriptions' },
        );
      }
      const sub: SubscriptionRecord = {
        seq: sb.ids.nextSeq(),
        workspaceId: ws.id,
        id: sb.ids.id('whs_'),
        url,
        events,
        createdAt: new Date().toISOString(),
        secret: sb.ids.secret(),
        previousSecret: null,
        previousSecretExpiresAt: null,
      };
      sb.store.addSubscription(ws, sub);
      return { status: SUCCESS_STATUS.createSubscription, body: { ...subscriptionView(sub), secret: sub.secret } };
    },
  },
  {
    method: 'GET',
    pattern: '/webhooks/subscriptions/:id',
    handler: (r, { id }) => ({ status: 200, body: subscriptionView(requireSubscription(r, id)) }),
  },
  {
    method: 'DELETE',
    pattern: '/webhooks/subscriptions/:id',
    handler: (r, { id }) => {
      r.sb.store.removeSubscription(requireSubscription(r, id).id);
      return { status: SUCCESS_STATUS.delete };
    },
  },
  {
    // A sample event of the subscription's first type, to this subscription only. Its `data` is
    // a made-up recipient, or (settings.testDelivery) a sample that is no recipient.
    method: 'POST',
    pattern: '/webhooks/subscriptions/:id/test',
    handler: (r, { id }) => {
      const sub = requireSubscription(r, id);
      const type = sub.events[0];
      const { recipient, extras } = sampleRecipient(r.sb.origin, type);
      const event = r.sb.events.envelope(type, recipient, extras);
      const shape = r.sb.settings.testDelivery;
      const sent = shape === 'recipient' ? event : { ...event, data: shape === 'empty-array' ? [] : {} };
      const deliveryId = r.sb.deliveries.enqueue(sub, event.id, type, JSON.stringify(sent));
      return { status: SUCCESS_STATUS.testDelivery, body: { queued: true, deliveryId } };
    },
  },
  {
    // The old secret keeps signing (as a second v1) for the grace period, so receivers can
    // switch over without dropping deliveries.
    method: 'POST',
    pattern: '/webhooks/subscriptions/:id/rotate-secret',
    handler: (r, { id }) => {
      const sub = requireSubscription(r, id);
      sub.previousSecret = sub.secret;
      sub.previousSecretExpiresAt = Date.now() + r.sb.options.rotationGraceMs * r.sb.options.timeScale;
      sub.secret = r.sb.ids.secret();
      return { status: 200, body: { id: sub.id, secret: sub.secret } };
    },
  },
];
