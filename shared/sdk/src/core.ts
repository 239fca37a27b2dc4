// The core's front door (`@certificate-service/sdk/core`): what the connectors and SDK users build
// on, and nothing else. It imports no host and no HTTP stack (index.ts, the package's main entry,
// adds them for apps: createClient on undici, the receivers).
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
  type IssueOutcome,
  type IssuePreview,
  type PreviewOutcome,
  type PollEvent,
  type PollState,
  type PollOptions,
  type PollResult,
  type PollAllOptions,
  type PollAllResult,
  type ListOrder,
} from './client';
export { POLL_EVENTS, POLL_EVENT_TYPES, pollFilter, polledEvent, occurrenceKey, DEFAULT_BUDGET, DEFAULT_WINDOW_DAYS, MAX_KNOWN } from './poll';
// A poll's and a recovery's settings, checked once: hosts call these first with their own field names.
export { checkPollSettings, checkRecoverSettings, type FieldNames, type PollSettings, type PollSettingsInput } from './poll';
export { RECOVER_FAILED_WINDOW_DAYS, recoveredIds, type RecoveredEvent, type FindOptions, type Found, type RecoverOptions, type RecoverResult } from './recover';
export type { RetryOptions } from './retry';
export type { RateLimitState } from './rate-limit';
// `Retry-After` (seconds or an HTTP date), read as the client reads it: for a host's own waits (certsvc events recover).
export { parseRetryAfter } from './rate-limit';
// Issuing: one outcome per item, a union on `kind`; counts and the distinct problems for reports.
// Issue runs hold their emails (in one process; across processes with markers a host hands in).
export { DEFAULT_IN_FLIGHT_WAIT_MS, type InFlightMarkers } from './issue/in-flight';
export { countOutcomes, lineList, outcomeProblems, outcomeReport, ISSUE_OUTCOME_KINDS, type IssueOutcomeKind, type OutcomeCounts, type OutcomeProblem, type OutcomeReport, type OutcomeTally } from './issue/outcome';
export { normaliseBaseUrl } from './base-url';
// Which service (base URL and a hash of the key): what holds, confirmations and caches are keyed by.
export { serviceFingerprint } from './service-fingerprint';
// The one email key (trimmed, lower-cased): how skip-existing and find-by-email compare emails.
export { emailKey } from './client/recipients';
export { collect, MAX_PAGE_SIZE } from './pagination';
// Checks a host runs itself, before any call: a trigger compares the events it is set to
// with its subscription's; an update is checked before the certificate it applies to is
// looked up; an email is checked before a batch is searched for it; a share token is read
// from a bare token or a pasted certificate URL; a recipient (a CSV row) is checked before any is sent; the n8n credential applies the
// HTTPS-except-loopback rule to its test request.
export { validateEvents, validateIssue, validateUpdate, requireEmail, shareTokenFrom, apiKeyFrom } from './validation';
export { parseSecureUrl } from './base-url';
// A batch's certificate variables (client.getBatchVariables) and the check a host runs on
// what it is about to send, so a required variable left empty fails before any request.
export { checkRequiredVariables, type DesignVariable, type BatchVariables } from './variables';
// How a data key (a CSV column) matches the design's variables, the one implementation the issue
// plan and `certsvc issue` share: trimmed, any case; the closest name for a typo.
export { closest, matchVariable, matchVariableNames, variableNames, type VariableMatch, type VariableNames } from './variable-names';

// First contact: which list wrapper and cursor a body has, and the read-only checks of
// `certsvc doctor` and the MCP server's `doctor` tool.
export { describeList } from './decode';
export { checkFirstContact, observeAnswer, FIELDS_READ, type FirstContactCheck, type ObservedAnswer } from './first-contact';

// The one seam to the host's HTTP stack.
export type { Transport, HttpRequest, HttpResponse } from './transport';

// The domain.
export * from './types';

// Errors: where a call failed, what it was, and what to tell the user (`hint`).
export {
  CertificateServiceError,
  SERVICE_ERROR_CODES,
  validationError,
  hostHint,
  isNotFound,
  type HostWords,
  type HintTopic,
  type AnyErrorCode,
  type ErrorCode,
  type ErrorPhase,
  type ServiceErrorCode,
  type RequestIdentity,
} from './errors';

// The default of a switch over a closed union: a forgotten case fails the type check.
export { assertNever } from './assert-never';

// For a host's own output (a log line, a tool result): the redaction the client's exit applies.
export { redact, SecretSet } from './redact';

// A local server's guard (the MCP server's --http, the sandbox): the one loopback rule, and
// the Host / Origin / Sec-Fetch-Site check against DNS rebinding and other sites' pages.
export { isLoopbackHost, isWildcardHost, serverHostNames, foreignRequest, type ForeignRequest, type RequestHeaders } from './local-server';

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
export { handleDelivery, acceptOnly, PENDING_RETRY_AFTER_SECONDS, type DeliveryResult, type HandleOptions, claimKey } from './webhooks/handle';
export { memoryStore, DEFAULT_MEMORY_STORE_SIZE, DEFAULT_PENDING_MS, type ClaimState, type DeliveryStore, type MemoryStoreOptions } from './webhooks/store';
export { flattenEvent, type FlatEvent } from './webhooks/flatten';
