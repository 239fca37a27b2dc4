import type { EventType, Recipient, Viewer, WebhookEvent } from '../types';

/**
 * One flat item per event, the shape both connectors emit: the recipient's fields
 * at the top level, the envelope's `id`/`type`/`createdAt`, and the recipient's own
 * `id`/`createdAt` renamed so they do not clash with the envelope's.
 */
export interface FlatEvent extends Omit<Recipient, 'id' | 'createdAt'> {
  id: string;
  type: EventType;
  createdAt: string;
  recipientId: string;
  recipientCreatedAt: string;
  error?: string;
  viewer?: Viewer;
}

export function flattenEvent(event: WebhookEvent): FlatEvent {
  const { id: recipientId, createdAt: recipientCreatedAt, ...fields } = event.data;
  return {
    ...fields,
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    recipientId,
    recipientCreatedAt,
  } as FlatEvent;
}
