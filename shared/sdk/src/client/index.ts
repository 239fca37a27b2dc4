import { normaliseBaseUrl } from '../base-url';
import { one } from '../decode';
import { CertificateServiceError, redactError } from '../errors';
import { SecretSet } from '../redact';
import type { RateLimitState } from '../rate-limit';
import { Requester, type RequesterOptions } from '../request';
import { ENDPOINTS } from './endpoints';
import * as batches from './batches';
import * as certificates from './certificates';
import * as designs from './designs';
import * as issuing from '../issue';
import type { IssueItem, IssueManyOptions, IssueOutcome, IssuePreview } from '../issue';
import * as recipients from './recipients';
import * as poll from '../poll';
import * as recover from '../recover';
import * as subscriptions from './subscriptions';
import { serviceId, type RunContext } from '../issue/in-flight';
import { getBatchVariables, getDesignVariables, type BatchVariables, type DesignVariable } from '../variables';
import type { ActionResult, Batch, BatchChange, Design, EventType, IssueInput, Page, Recipient, RecipientChange, RecipientUpdate, WebhookSubscription, Workspace } from '../types';

export type { ListOptions, BatchListOptions } from './batches';
export type { RecipientListOptions } from './recipients';
export type { IssueItem, IssueManyOptions, IssueOutcome, IssuePreview, PreviewOutcome } from '../issue';
export type { PollEvent, PollState, PollOptions, PollResult, PollAllOptions, PollAllResult, ListOrder } from '../poll';
export type ClientOptions = RequesterOptions;

/**
 * One method per endpoint of the Certificate Service API (spec section 4). Inputs are
 * validated before anything is sent; every call goes through one call path that reads
 * the answer strictly (an answer it cannot read is UNEXPECTED_RESPONSE, never "empty");
 * and every error or per-item outcome is redacted here, at the client's one exit, of the
 * API key (as given and trimmed), the host's secrets and every signing secret seen.
 */
export class CertificateServiceClient {
  readonly #secrets: SecretSet;
  /** The one call path; the resource functions take it as their `Api`. */
  readonly #http: Requester;
  readonly #run: RunContext;

  constructor(options: ClientOptions) {
    this.#secrets = new SecretSet([options.apiKey, ...(options.secrets ?? [])]);
    // A user may paste the key into the Base URL field: the message must not echo it.
    const baseUrl = this.#exitSync(() => normaliseBaseUrl(options.baseUrl));
    this.#http = new Requester({ ...options, baseUrl }, this.#secrets);
    // The service as issue runs share their holds (issue/in-flight.ts): base URL and a hash of the key.
    this.#run = { service: serviceId(baseUrl, options.apiKey?.trim() || options.secrets?.[0]), sleep: options.sleep, now: options.now ?? Date.now };
  }

  /** The normalised API base URL, ending in /api/v1. */
  get baseUrl(): string { return this.#http.baseUrl; }

  /** The latest `RateLimit-*` values the service sent (limit, remaining, resetAt). */
  get rateLimit(): Readonly<RateLimitState> {
    return { ...this.#http.rate };
  }

  // --- The exit: every error the client makes is redacted here -------------------
  // (A transport's own error became a CertificateServiceError in the requester. What a host's own
  // callback throws, onProgress or onOutcomes, passes through as the host threw it.) Every
  // resource function is `async`, so even its input checks reject the promise #exit awaits
  // (test/sdk/client-exit.test.ts calls every method with bad input).

  #scrub(error: unknown): unknown {
    return error instanceof CertificateServiceError ? redactError(error, this.#secrets.list()) : error;
  }

  #exitSync<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw this.#scrub(error);
    }
  }

  async #exit<T>(pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (error) {
      throw this.#scrub(error);
    }
  }

  #scrubOutcome<O extends { ok: boolean; error?: unknown }>(o: O): O {
    return o.ok || !(o.error instanceof CertificateServiceError) ? o : { ...o, error: this.#scrub(o.error) };
  }

  /** #exit for a list of outcomes: each item's error leaves redacted too. */
  async #exitOutcomes<O extends { ok: boolean; error?: unknown }>(pending: Promise<O[]>): Promise<O[]> {
    try {
      return (await pending).map((o) => this.#scrubOutcome(o));
    } catch (error) {
      throw this.#scrub(error);
    }
  }

  /** A host's callback sees only redacted outcomes, like the answer. */
  #exitOptions(options: IssueManyOptions | undefined): IssueManyOptions | undefined {
    const onOutcomes = options?.onOutcomes;
    return onOutcomes ? { ...options, onOutcomes: (settled) => onOutcomes(settled.map(([i, o]) => [i, this.#scrubOutcome(o)])) } : options;
  }

  /** Checks run when the iterator is made; errors thrown while iterating are redacted too. */
  #exitIterator<T>(make: () => AsyncGenerator<T>): AsyncGenerator<T> {
    const [inner, scrub] = [this.#exitSync(make), (error: unknown) => this.#scrub(error)];
    return (async function* () {
      try {
        yield* inner;
      } catch (error) {
        throw scrub(error);
      }
    })();
  }

  /** A host's own check of its input (the core's validators) through the same exit: its error is redacted too. */
  check<T>(validate: () => T): T {
    return this.#exitSync(validate);
  }

  // --- Auth ---------------------------------------------------------------------

  async auth(): Promise<Workspace> {
    // POST /auth only checks the key, so it is retried like a GET (ENDPOINTS.auth.safeToRepeat).
    return this.#exit(this.#http.call({ endpoint: ENDPOINTS.auth }, one<Workspace>('the workspace', ['workspace'], ['workspaceId'])));
  }

  listBatches(options?: batches.BatchListOptions): Promise<Page<Batch>> {
    return this.#exit(batches.listBatches(this.#http, options));
  }
  iterateBatches(options?: Omit<batches.BatchListOptions, 'cursor'>): AsyncGenerator<Batch> {
    return this.#exitIterator(() => batches.iterateBatches(this.#http, options));
  }
  getBatch(batchId: string): Promise<Batch> {
    return this.#exit(batches.getBatch(this.#http, batchId));
  }
  createBatch(input: { title: string; designId: string; [extra: string]: unknown }): Promise<Batch> {
    return this.#exit(batches.createBatch(this.#http, input));
  }
  /** The answer is not shown in the spec: what it says, over what the call knows (`id`, `status`). */
  archiveBatch(batchId: string): Promise<BatchChange> {
    return this.#exit(batches.setArchived(this.#http, batchId, true));
  }
  unarchiveBatch(batchId: string): Promise<BatchChange> {
    return this.#exit(batches.setArchived(this.#http, batchId, false));
  }
  listDesigns(options?: batches.ListOptions): Promise<Page<Design>> {
    return this.#exit(designs.listDesigns(this.#http, options));
  }
  iterateDesigns(): AsyncGenerator<Design> {
    return this.#exitIterator(() => designs.iterateDesigns(this.#http));
  }

  /**
   * The batch's certificate variables: its design's (any of the shapes `readVariables`
   * reads), else the names seen in its most recent certificates, else none (`source`).
   */
  getBatchVariables(batchId: string): Promise<BatchVariables> {
    return this.#exit(getBatchVariables(this.#http, batchId));
  }
  /**
   * What issueMany's design check reads: the variables the batch's design lists ([] when it lists
   * none), the batch and the designs' pages until its design. A host that caches it (Zapier) passes
   * it back as the `variables` Map.
   */
  getDesignVariables(batchId: string): Promise<DesignVariable[]> {
    return this.#exit(getDesignVariables(this.#http, batchId));
  }

  // --- Recipients (issued certificates) -----------------------------------------

  listRecipients(batchId: string, options?: recipients.RecipientListOptions): Promise<Page<Recipient>> {
    return this.#exit(recipients.listRecipients(this.#http, batchId, options));
  }
  iterateRecipients(batchId: string, options?: Omit<recipients.RecipientListOptions, 'cursor'>): AsyncGenerator<Recipient> {
    return this.#exitIterator(() => recipients.iterateRecipients(this.#http, batchId, options));
  }
  getRecipient(batchId: string, recipientId: string): Promise<Recipient> {
    return this.#exit(recipients.getRecipient(this.#http, batchId, recipientId));
  }
  /** One certificate, one request (one quota unit); no skip-existing. Never retried after an unknown outcome. */
  issueCertificate(batchId: string, input: IssueInput, options?: { send?: boolean }): Promise<Recipient> {
    return this.#exit(issuing.issueCertificate(this.#http, batchId, input, options));
  }
  /** One bulk call of at most 100: each recipient's outcome (issued, failed, unknown), in input order. */
  issueBulk(batchId: string, inputs: IssueInput[], options?: { send?: boolean }): Promise<IssueOutcome[]> {
    return this.#exitOutcomes(issuing.issueBulk(this.#http, batchId, inputs, options));
  }
  /**
   * Any number of certificates, in as few calls as possible, each item ending with an outcome;
   * skip-existing is on unless `skipExisting: false`. The one issue plan: see issue/index.ts.
   */
  issueMany(items: IssueItem[], options?: IssueManyOptions): Promise<IssueOutcome[]> {
    return this.#exitOutcomes(issuing.issueMany(this.#http, items, this.#exitOptions(options), this.#run));
  }
  /** What issueMany would do with these items (the same reads), without writing anything. */
  async previewIssue(items: IssueItem[], options?: Omit<IssueManyOptions, 'onCall' | 'onOutcomes' | 'onProgress'>): Promise<IssuePreview> {
    const preview = await this.#exit(issuing.previewIssue(this.#http, items, options));
    return { ...preview, outcomes: preview.outcomes.map((o) => this.#scrubOutcome(o)) };
  }
  /** The certificate issued to `email` in a batch, or null only after the whole batch was read. */
  findRecipientByEmail(batchId: string, email: string): Promise<Recipient | null> {
    return this.#exit(recipients.findRecipientByEmail(this.#http, batchId, email));
  }
  /** A batch's certificates by lower-cased email, in one paged read. */
  recipientsByEmail(batchId: string): Promise<Map<string, Recipient[]>> {
    return this.#exit(recipients.recipientsByEmail(this.#http, batchId));
  }
  /** The answer is not shown in the spec: what it says, over what the call knows (`id`, `batchId`). */
  updateRecipient(batchId: string, recipientId: string, update: RecipientUpdate): Promise<RecipientChange> {
    return this.#exit(recipients.updateRecipient(this.#http, batchId, recipientId, update));
  }
  deleteRecipient(batchId: string, recipientId: string): Promise<ActionResult> {
    return this.#exit(recipients.deleteRecipient(this.#http, batchId, recipientId));
  }
  sendCertificate(batchId: string, recipientId: string): Promise<ActionResult> {
    return this.#exit(recipients.sendCertificate(this.#http, batchId, recipientId));
  }

  // --- Polling (triggers without a subscription; see poll/index.ts) -------------

  /** The certificates of one batch new since `state` (issued, or by email status), newest first, and the next state. */
  pollCertificates(options: poll.PollOptions): Promise<poll.PollResult> {
    return this.#exit(poll.pollBatch(this.#http, options));
  }
  /** The same over every active batch, with one state per batch. */
  pollActiveBatches(options: poll.PollAllOptions): Promise<poll.PollAllResult> {
    return this.#exit(poll.pollActiveBatches(this.#http, options));
  }

  // --- Recovery (events missed past the service's last retry; see recover.ts) ----

  /**
   * Runs each issued, sent and failed occurrence at or after `since` that `store` has not seen
   * through the receiver's `onEvent`, marked `recovered: true`. `viewed` cannot be recovered.
   * Exactly once only against the receiver's own store, one that survives restarts and covers the
   * window (fileStore, redisStore, postgresStore). Reads every batch whole: one request per 100
   * certificates.
   */
  recoverEvents(options: recover.RecoverOptions): Promise<recover.RecoverResult> {
    return this.#exit(recover.recoverEvents(this.#http, options));
  }
  /** The occurrences recoverEvents would hand over, oldest first, with their keys and delivery ids; nothing is claimed. */
  findRecoverableEvents(options: recover.FindOptions): Promise<recover.Found> {
    return this.#exit(recover.findEvents(this.#http, options));
  }

  getCertificate(certificateId: string): Promise<Recipient> {
    return this.#exit(certificates.getCertificate(this.#http, certificateId));
  }
  /** Takes the share token, or the whole certificate URL (`…/v/<shareToken>`). */
  getCertificateByToken(shareTokenOrUrl: string): Promise<Recipient> {
    return this.#exit(certificates.getCertificateByToken(this.#http, shareTokenOrUrl));
  }

  listSubscriptions(options?: batches.ListOptions): Promise<Page<WebhookSubscription>> {
    return this.#exit(subscriptions.listSubscriptions(this.#http, options));
  }
  iterateSubscriptions(): AsyncGenerator<WebhookSubscription> {
    return this.#exitIterator(() => subscriptions.iterateSubscriptions(this.#http));
  }
  /** The returned `secret` is shown once: store it to verify deliveries. An answer without one fails (and the subscription is deleted again). */
  createSubscription(input: { url: string; events: EventType[] }): Promise<WebhookSubscription & { secret: string }> {
    return this.#exit(subscriptions.createSubscription(this.#http, input));
  }
  getSubscription(subscriptionId: string): Promise<WebhookSubscription> {
    return this.#exit(subscriptions.getSubscription(this.#http, subscriptionId));
  }
  deleteSubscription(subscriptionId: string): Promise<ActionResult> {
    return this.#exit(subscriptions.deleteSubscription(this.#http, subscriptionId));
  }
  /** `deleteSubscription` for a trigger being taken down: a subscription already gone (404) is `{ deleted: true, alreadyDeleted: true }`, not an error. */
  unsubscribe(subscriptionId: string): Promise<ActionResult> {
    return this.#exit(subscriptions.unsubscribe(this.#http, subscriptionId));
  }
  testSubscription(subscriptionId: string): Promise<ActionResult> {
    return this.#exit(subscriptions.testSubscription(this.#http, subscriptionId));
  }
  rotateSubscriptionSecret(subscriptionId: string): Promise<{ id: string; secret: string }> {
    return this.#exit(subscriptions.rotateSubscriptionSecret(this.#http, subscriptionId));
  }
}
