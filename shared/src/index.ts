// The platform-neutral core. It imports no host and no HTTP stack:
// see standalone.ts for the fetch-based entry point.
export * from './types';
export * from './errors';
export * from './transport';
export { normaliseBaseUrl, isLoopbackHost, parseSecureUrl } from './base-url';
export { parseRateLimit, parseRetryAfter, type RateLimitState } from './rate-limit';
export { Requester, DEFAULT_RETRY, classifyNetworkError, redact, type RetryOptions, type RequesterOptions, type CallSpec } from './request';
export { readPage, readOne, paginate, collect, MAX_PAGE_SIZE } from './pagination';
export * from './validation';
export { chunk, mapBulkResponse, failChunk, type ItemOutcome } from './bulk';
export { CertificateServiceClient, type ClientOptions, type ListOptions, type BatchListOptions, type RecipientListOptions, type IssueItem, type IssueManyOptions } from './client';
export { signPayload, computeSignature } from './webhooks/sign';
export { checkSignature, checkDelivery, verifyDelivery, parseEvent, parseSignatureHeader, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS, type VerificationFailure, type VerificationResult, type SignatureResult, type VerifyOptions } from './webhooks/verify';
export { getHeader, type HeaderBag } from './webhooks/headers';
export { DeliveryDeduper } from './webhooks/dedupe';
export { flattenEvent, type FlatEvent } from './webhooks/flatten';
