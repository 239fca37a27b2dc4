// Resource types of the Certificate Service API (spec section 2).
// Fields the spec marks "not shown" are allowed through as extra keys.

export type BatchStatus = 'active' | 'archived';
export type BatchStatusFilter = BatchStatus | 'all';

export interface Workspace {
  workspaceId: string;
  username: string;
}

export interface Batch {
  id: string;
  title: string;
  designId: string;
  status: BatchStatus;
  [extra: string]: unknown;
}

/** Designs are read-only and their fields are not documented beyond an id. */
export interface Design {
  id: string;
  name?: string;
  [extra: string]: unknown;
}

/** A recipient is an issued certificate. */
export interface Recipient {
  id: string;
  batchId: string;
  name: string;
  email: string;
  certificateId: string;
  shareToken: string;
  certUrl: string;
  issueDate: string;
  expiryDate: string | null;
  data: Record<string, string>;
  emailStatus: string;
  emailSentAt: string | null;
  createdAt: string;
  [extra: string]: unknown;
}

export const EVENT_TYPES = [
  'certificate.issued',
  'certificate.sent',
  'certificate.failed',
  'certificate.viewed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface WebhookSubscription {
  id: string;
  url: string;
  events: EventType[];
  /** Only present on create and rotate-secret (spec: "shown once"). */
  secret?: string;
  [extra: string]: unknown;
}

export interface Viewer {
  viewedAt: string;
  userAgent: string;
  referer: string;
  ip: string;
}

/** The delivery envelope (spec section 6). `data` is the recipient plus per-event extras. */
export interface WebhookEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  createdAt: string;
  data: Recipient & { error?: string; viewer?: Viewer };
}

export interface IssueInput {
  name: string;
  email: string;
  /** Certificate variables: an object, or its JSON text. Values are sent as strings. */
  data?: Record<string, unknown> | string;
}

export interface RecipientUpdate {
  name?: string;
  email?: string;
  /** Certificate variables: an object, or its JSON text. Values are sent as strings. */
  data?: Record<string, unknown> | string;
}

/**
 * What an update answered: the spec does not show its body, so only what the call knows is sure
 * (`id`, `batchId`); the rest is there when the service sent it.
 */
export type RecipientChange = Pick<Recipient, 'id' | 'batchId'> & Partial<Recipient>;

/** What archive or unarchive answered (body not shown): `id` and the new `status` are sure. */
export type BatchChange = Pick<Batch, 'id' | 'status'> & Partial<Batch>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** What a PATCH/DELETE/archive/send/test/rotate returned; bodies are "not shown" in the spec. */
export type ActionResult = Record<string, unknown>;
