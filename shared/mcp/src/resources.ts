// Reference data a model can read instead of guessing: the spec's webhook event types
// (section 6) and error codes (section 7), plus the codes the core adds itself. The tables are
// typed by the core's lists, so a code or an event the core learns and this file does not
// describe fails to compile.
import { EVENT_TYPES, type ErrorCode, type EventType } from '@certificate-service/sdk';

export const EVENTS: Record<EventType, { firesWhen: string; extraPayload: string }> = {
  'certificate.issued': { firesWhen: 'A recipient is created, through the API, bulk issue, CSV import or the web application.', extraPayload: 'none' },
  'certificate.sent': { firesWhen: 'The certificate email is successfully handed to the mail provider.', extraPayload: 'none' },
  'certificate.failed': { firesWhen: 'The certificate email fails to send (the mail provider rejected it).', extraPayload: 'data.error (string)' },
  'certificate.viewed': { firesWhen: 'A recipient opens the public viewer for the first time; at most once per recipient.', extraPayload: 'data.viewer (viewedAt, userAgent, referer, ip)' },
};

export const ERRORS: Record<ErrorCode, { status: string; meaning: string; from: 'service' | 'client' }> = {
  MISSING_API_KEY: { status: '401', meaning: 'No key sent.', from: 'service' },
  INVALID_API_KEY: { status: '401', meaning: 'Key not recognized.', from: 'service' },
  EXPIRED_API_KEY: { status: '401', meaning: 'Key expired.', from: 'service' },
  RATE_LIMITED: { status: '429', meaning: 'More than 120 requests per minute for the key; Retry-After gives seconds. This server waits and retries by itself.', from: 'service' },
  VALIDATION_ERROR: { status: 'not shown', meaning: 'Invalid input; detail.field names the field. Also raised by this server before any request.', from: 'service' },
  NOT_FOUND: { status: 'not shown', meaning: 'Resource absent.', from: 'service' },
  CONFLICT: { status: 'not shown', meaning: 'Conflicting state.', from: 'service' },
  BATCH_ARCHIVED: { status: 'not shown', meaning: 'Operation on an archived batch (unarchive_batch makes it active again).', from: 'service' },
  QUOTA_EXCEEDED: { status: 'not shown', meaning: 'Plan quota used up: each issued certificate uses one unit.', from: 'service' },
  PLAN_LIMIT_EXCEEDED: { status: 'not shown', meaning: 'A plan limit reached, e.g. the 20 webhook subscriptions of a workspace.', from: 'service' },
  NETWORK_ERROR: { status: '0', meaning: 'No answer: the connection failed. A write is never repeated blindly.', from: 'client' },
  TIMEOUT: { status: '0', meaning: 'No answer in time. A write is never repeated blindly: its outcome is unknown.', from: 'client' },
  UNKNOWN: { status: 'any', meaning: 'An error the service did not name, or an outcome no answer told.', from: 'client' },
  NOT_SENT: { status: '0', meaning: 'Not sent: the call stopped earlier (cancelled, or stopped at a failure).', from: 'client' },
  TRANSPORT_ERROR: { status: 'none', meaning: 'The HTTP layer of the host failed in a way of its own (not a network failure); not repeated. On an issue call the outcome is unknown.', from: 'client' },
  IN_FLIGHT_ELSEWHERE: { status: '0', meaning: 'Not sent: another run on this machine held the email until this one stopped waiting, or its outcome there is unknown; it may have been issued there. The same call again later issues only what is missing.', from: 'client' },
  UNEXPECTED_RESPONSE: { status: '2xx', meaning: 'An answer the server cannot read (an unknown shape, an HTML page): nothing was assumed from it; run doctor.', from: 'client' },
};

/** The resources' URIs: fixed, no templates. */
export const RESOURCE_URIS = { eventTypes: 'certsvc://spec/event-types', errorCodes: 'certsvc://spec/error-codes' } as const;

export interface ResourceDefinition {
  name: string;
  uri: string;
  title: string;
  description: string;
  /** What resources/read answers, as JSON. */
  read(): unknown;
}

export const RESOURCES: ReadonlyArray<ResourceDefinition> = [
  {
    name: 'event-types',
    uri: RESOURCE_URIS.eventTypes,
    title: 'Webhook event types',
    description: 'The four webhook event types of the Certificate Service, when each fires and its extra payload.',
    read: () => EVENT_TYPES.map((type) => ({ type, ...EVENTS[type] })),
  },
  {
    name: 'error-codes',
    uri: RESOURCE_URIS.errorCodes,
    title: 'Error codes',
    description: 'Every error code a tool can answer with: the service\'s (spec section 7) and this client\'s own, with what each means.',
    read: () => Object.entries(ERRORS).map(([code, e]) => ({ code, ...e })),
  },
];

export const RESOURCE_MIME_TYPE = 'application/json';

/** resources/read's answer, the same for both eras. */
export const readResource = (resource: ResourceDefinition, uri: URL) => ({ contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: JSON.stringify(resource.read(), null, 1) }] });
