// Builds event envelopes (spec section 6) and hands one delivery per matching
// subscription to the delivery engine. Emitting never waits for a delivery.
import type { EventType, Recipient, WebhookEvent } from '@certificate-service/sdk';
import { pushBounded } from './bounded-log';
import type { Deliveries } from './deliveries';
import type { Ids } from './ids';
import type { Store } from './store';
import type { EventLogEntry } from './types';

/** What an event adds to the recipient (spec section 6): the core's envelope type says which. */
export type EventExtras = Pick<WebhookEvent['data'], 'error' | 'viewer'>;

export class Events {
  readonly log: EventLogEntry[] = [];

  constructor(
    private readonly ids: Ids,
    private readonly store: Store,
    private readonly deliveries: Deliveries,
    private readonly maxLog: number,
  ) {}

  envelope(type: EventType, recipient: Recipient, extras: EventExtras = {}): WebhookEvent {
    // The spread copies the recipient now, so later changes do not leak into this event.
    return { id: this.ids.id('whe_'), type, createdAt: new Date().toISOString(), data: { ...recipient, ...extras } };
  }

  emit(workspaceId: string, type: EventType, recipient: Recipient, extras: EventExtras = {}): WebhookEvent {
    const event = this.envelope(type, recipient, extras);
    const ws = this.store.workspaces.get(workspaceId);
    const subs = ws ? ws.subscriptions.filter((s) => s.events.includes(type)) : [];
    const deliveryIds: string[] = [];
    if (subs.length > 0) {
      const body = JSON.stringify(event);
      for (const sub of subs) deliveryIds.push(this.deliveries.enqueue(sub, event.id, type, body));
    }
    pushBounded(
      this.log,
      { id: event.id, type, workspaceId, recipientId: recipient.id, createdAt: event.createdAt, deliveryIds },
      this.maxLog,
    );
    return event;
  }
}
