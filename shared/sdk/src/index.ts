// The core's front door: what the connectors and SDK users build on, and nothing else.
// It imports no host and no HTTP stack (see standalone.ts for the fetch-based entry point).
// Internals (the requester, pagination and bulk readers, the validators) stay in their
// modules; tests import them from there.

// The client and its options.
export {
  CertificateServiceClient,
  type ClientOptions,
  type ListOptions,
  type BatchListOptions,
  type RecipientListOptions,
  type IssueItem,
  type IssueManyOptions,
  type PollEvent,
  type PollState,
  type PollOptions,
  type PollResult,
  type PollAllOptions,
  type PollAllResult,
  type ListOrder,
} from './client';
export { POLL_EVENTS, POLL_EVENT_TYPES, pollFilter, polledEvent } from './client/poll';
export type { RetryOptions } from './retry';
export type { RateLimitState } from './rate-limit';
export type { ItemOutcome } from './bulk';
export { normaliseBaseUrl } from './base-url';
export { collect, MAX_PAGE_SIZE } from './pagination';
// Checks a host runs itself, before any call: a trigger compares the events it is set to
// with its subscription's; an update is checked before the certificate it applies to is
// looked up; an email is checked before a batch is searched for it; a share token is read
// from a bare token or a pasted certificate URL; a recipient (a CSV row) is checked before any is sent; the n8n credential applies the
// HTTPS-except-loopback rule to its test request.
export { validateEvents, validateIssue, validateUpdate, requireEmail, shareTokenFrom } from './validation';
export { parseSecureUrl } from './base-url';
// A batch's certificate variables (client.getBatchVariables) and the check a host runs on
// what it is about to send, so a required variable left empty fails before any request.
export { checkRequiredVariables, type DesignVariable, type BatchVariables } from './variables';

// First contact: which list wrapper and cursor a body has (`certsvc doctor` prints it).
export { describeList } from './decode';

// The one seam to the host's HTTP stack.
export type { Transport, HttpRequest, HttpResponse } from './transport';

// The domain.
export * from './types';

// Errors: where a call failed, what it was, and what to tell the user (`hint`).
export {
  CertificateServiceError,
  validationError,
  hostHint,
  type HostWords,
  type HintTopic,
  type AnyErrorCode,
  type ErrorCode,
  type ErrorPhase,
  type ServiceErrorCode,
  type RequestIdentity,
} from './errors';

// Webhooks: sign, verify, de-duplicate, flatten.
export { getHeader, type HeaderBag } from './headers';
export { signPayload } from './webhooks/sign';
export {
  checkSignature,
  checkDelivery,
  verifyDelivery,
  WebhookVerificationError,
  DEFAULT_TOLERANCE_SECONDS,
  type VerificationFailure,
  type VerificationResult,
  type SignatureResult,
  type VerifyOptions,
  type OtherEnvelope,
} from './webhooks/verify';
export { DeliveryDeduper } from './webhooks/dedupe';
export { handleDelivery, acceptOnly, PENDING_RETRY_AFTER_SECONDS, type DeliveryResult, type HandleOptions } from './webhooks/handle';
export { memoryStore, DEFAULT_PENDING_MS, type ClaimState, type DeliveryStore, type MemoryStoreOptions } from './webhooks/store';
export { flattenEvent, type FlatEvent } from './webhooks/flatten';
