import { normaliseBaseUrl } from './base-url';
import { chunk, failChunk, mapBulkResponse, type ItemOutcome } from './bulk';
import { CertificateServiceError, redactError, validationError } from './errors';
import { MAX_PAGE_SIZE, paginate, readOne, readPage } from './pagination';
import type { RateLimitState } from './rate-limit';
import { Requester, type RequesterOptions } from './request';
import type {
  ActionResult,
  Batch,
  BatchStatusFilter,
  Design,
  EventType,
  IssueInput,
  Page,
  Recipient,
  RecipientUpdate,
  WebhookSubscription,
  Workspace,
} from './types';
import {
  normaliseData,
  requireEmail,
  requireString,
  validateBulkSize,
  validateEvents,
  validateIssue,
  validateLimit,
  validateStatus,
  validateUpdate,
  validateWebhookUrl,
  shareTokenFrom,
} from './validation';

export type ClientOptions = RequesterOptions;

export interface ListOptions {
  cursor?: string;
  limit?: number;
}
export interface BatchListOptions extends ListOptions {
  status?: BatchStatusFilter;
}
export interface RecipientListOptions extends ListOptions {
  emailStatus?: string;
}
/** Options of {@link CertificateServiceClient.issueMany}. */
export interface IssueManyOptions {
  /** Throw on the first invalid item, before any request, instead of failing that item alone. */
  stopOnInvalid?: boolean;
  /** Skip items whose email is already in their batch (or earlier in the same call); see issueMany. */
  skipExisting?: boolean;
  /**
   * Certificate variables for every item, validated once; an item's own `data` takes
   * precedence key by key. A bad value here throws before any request.
   */
  data?: Record<string, unknown> | string;
  /** false: one request per item (the single-issue endpoint) instead of bulk calls of up to 100. */
  bulk?: boolean;
  /**
   * Stop sending after the first call with a failed item: the items not sent yet end with
   * a NOT_SENT error (phase `validation`: they never left). For hosts whose run stops at
   * the first error (n8n without "Continue On Fail").
   */
  stopOnError?: boolean;
  /** Called once the calls are planned and after each call: items with an outcome so far, of `total`. */
  onProgress?: (done: number, total: number) => void;
}

function notSent(email: string, failedItem: number): CertificateServiceError {
  return new CertificateServiceError({
    code: 'NOT_SENT',
    phase: 'validation',
    message: `${email}: not sent, because item ${failedItem} failed and the run stops at the first failure.`,
  });
}

/** A recipient after validation: what goes on the wire. */
type ValidRecipient = { name: string; email: string; data: Record<string, string> };

/** An item for {@link CertificateServiceClient.issueMany}: a recipient and where it goes. */
export interface IssueItem extends IssueInput {
  batchId: string;
  send?: boolean;
}

const seg = (value: string, field: string) => encodeURIComponent(requireString(value, field));

/** Finds the signing secret whatever the field is called; it starts with `wh_sec_` (spec section 2). */
function readSecret(obj: Record<string, unknown>): string | undefined {
  for (const k of ['secret', 'signingSecret', 'signing_secret', 'secretKey']) if (typeof obj[k] === 'string') return obj[k] as string;
  return Object.values(obj).find((v): v is string => typeof v === 'string' && v.startsWith('wh_sec_'));
}

function readSubscription(body: unknown): WebhookSubscription {
  const sub = readOne<Record<string, unknown>>(body, 'subscription');
  const secret = readSecret(sub);
  const { signingSecret: _a, signing_secret: _b, secretKey: _c, ...rest } = sub;
  return { ...(rest as unknown as WebhookSubscription), ...(secret ? { secret } : {}) };
}

/** What a call with an undocumented response body returned, with the id it was about. */
function actionResult(body: unknown, fallback: ActionResult): ActionResult {
  const obj = readOne<unknown>(body);
  return obj && typeof obj === 'object' && !Array.isArray(obj) ? { ...fallback, ...(obj as ActionResult) } : fallback;
}

/**
 * One method per endpoint of the Certificate Service API (spec section 4).
 * Inputs are validated before anything is sent; responses are read in every
 * plausible shape where the spec does not show one.
 */
export class CertificateServiceClient {
  // Private: the wire is the core's business; hosts and tests go through the methods.
  readonly #http: Requester;

  constructor(options: ClientOptions) {
    // A user may paste the key into the Base URL field: the message must not echo it.
    const baseUrl = this.#checked(() => normaliseBaseUrl(options.baseUrl), [options.apiKey, ...(options.secrets ?? [])]);
    this.#http = new Requester({ ...options, baseUrl });
  }

  /** The normalised API base URL, ending in /api/v1. */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** The latest `RateLimit-*` values the service sent (limit, remaining, resetAt). */
  get rateLimit(): Readonly<RateLimitState> {
    return { ...this.#http.rate };
  }

  /**
   * Runs a validator. Its message may quote the input (an email, a URL), and a user may
   * have pasted the API key there, so it is redacted like every other error.
   */
  #checked<T>(validate: () => T, secrets: ReadonlyArray<string | undefined> = this.#http.secrets): T {
    try {
      return validate();
    } catch (error) {
      throw error instanceof CertificateServiceError ? redactError(error, secrets) : error;
    }
  }

  /** A signing secret the service returned: it must never appear in a later error either. */
  #learnSecret(secret: string | undefined): void {
    if (secret && !this.#http.secrets.includes(secret)) this.#http.secrets.push(secret);
  }

  // --- Auth ---------------------------------------------------------------

  async auth(): Promise<Workspace> {
    // POST /auth only checks the key, so it is retried like a GET.
    const { body } = await this.#http.call({ method: 'POST', path: '/auth', safeToRepeat: true });
    return readOne<Workspace>(body, 'workspace');
  }

  // --- Batches ------------------------------------------------------------

  async listBatches(options: BatchListOptions = {}): Promise<Page<Batch>> {
    const query = {
      cursor: options.cursor,
      limit: validateLimit(options.limit ?? MAX_PAGE_SIZE),
      status: options.status === undefined ? undefined : this.#checked(() => validateStatus(options.status)),
    };
    const { body } = await this.#http.call({ method: 'GET', path: '/batches', query });
    return readPage<Batch>(body);
  }

  iterateBatches(options: Omit<BatchListOptions, 'cursor'> = {}): AsyncGenerator<Batch> {
    if (options.status !== undefined) this.#checked(() => validateStatus(options.status));
    return paginate((cursor) => this.listBatches({ ...options, cursor }));
  }

  async getBatch(batchId: string): Promise<Batch> {
    const { body } = await this.#http.call({ method: 'GET', path: `/batches/${seg(batchId, 'batchId')}` });
    return readOne<Batch>(body, 'batch');
  }

  async createBatch(input: { title: string; designId: string; [extra: string]: unknown }): Promise<Batch> {
    const body = { ...input, title: requireString(input?.title, 'title'), designId: requireString(input?.designId, 'designId') };
    const res = await this.#http.call({ method: 'POST', path: '/batches', body });
    return readOne<Batch>(res.body, 'batch');
  }

  async archiveBatch(batchId: string): Promise<Batch> {
    const { body } = await this.#http.call({ method: 'POST', path: `/batches/${seg(batchId, 'batchId')}/archive` });
    return actionResult(body, { id: batchId, status: 'archived' }) as Batch;
  }

  async unarchiveBatch(batchId: string): Promise<Batch> {
    const { body } = await this.#http.call({ method: 'POST', path: `/batches/${seg(batchId, 'batchId')}/unarchive` });
    return actionResult(body, { id: batchId, status: 'active' }) as Batch;
  }

  // --- Designs ------------------------------------------------------------

  async listDesigns(options: ListOptions = {}): Promise<Page<Design>> {
    const query = { cursor: options.cursor, limit: options.limit === undefined ? undefined : validateLimit(options.limit) };
    const { body } = await this.#http.call({ method: 'GET', path: '/designs', query });
    return readPage<Design>(body);
  }

  iterateDesigns(): AsyncGenerator<Design> {
    return paginate((cursor) => this.listDesigns({ cursor }));
  }

  // --- Recipients (issued certificates) -----------------------------------

  async listRecipients(batchId: string, options: RecipientListOptions = {}): Promise<Page<Recipient>> {
    // The recipient list's pagination parameter names are not shown; we send the
    // batch list's documented `cursor` and `limit`.
    const path = `/batches/${seg(batchId, 'batchId')}/recipients`;
    const query = { cursor: options.cursor, limit: validateLimit(options.limit ?? MAX_PAGE_SIZE), emailStatus: options.emailStatus };
    const { body } = await this.#http.call({ method: 'GET', path, query });
    return readPage<Recipient>(body);
  }

  iterateRecipients(batchId: string, options: Omit<RecipientListOptions, 'cursor'> = {}): AsyncGenerator<Recipient> {
    seg(batchId, 'batchId');
    return paginate((cursor) => this.listRecipients(batchId, { ...options, cursor }));
  }

  async getRecipient(batchId: string, recipientId: string): Promise<Recipient> {
    const path = `/batches/${seg(batchId, 'batchId')}/recipients/${seg(recipientId, 'recipientId')}`;
    const { body } = await this.#http.call({ method: 'GET', path });
    return readOne<Recipient>(body, 'recipient');
  }

  /** Issues one certificate (uses one quota unit). Never retried after an unknown outcome. */
  async issueCertificate(batchId: string, input: IssueInput, options: { send?: boolean } = {}): Promise<Recipient> {
    seg(batchId, 'batchId');
    return await this.#issueOne(batchId, this.#checked(() => validateIssue(input)), options.send);
  }

  async #issueOne(batchId: string, recipient: ValidRecipient, send: boolean | undefined): Promise<Recipient> {
    const path = `/batches/${seg(batchId, 'batchId')}/recipients`;
    const body = { ...recipient, ...(send !== undefined ? { send: !!send } : {}) };
    const res = await this.#http.call({ method: 'POST', path, body, recipients: [recipient.email] });
    return readOne<Recipient>(res.body, 'recipient');
  }

  /**
   * One bulk call of at most 100. Returns each item's recipient or error, in input order.
   * Request body (not shown in the spec; our documented default): `{recipients: [...], send?}`.
   */
  async bulkIssue(batchId: string, inputs: IssueInput[], options: { send?: boolean } = {}): Promise<ItemOutcome[]> {
    seg(batchId, 'batchId');
    if (!Array.isArray(inputs)) throw validationError('recipients', 'must be a list of recipients');
    validateBulkSize(inputs.length);
    const recipients = this.#checked(() => inputs.map((r, i) => validateIssue(r, `recipients[${i}].`)));
    return await this.#issueBulk(batchId, recipients, options.send);
  }

  async #issueBulk(batchId: string, recipients: ValidRecipient[], send: boolean | undefined): Promise<ItemOutcome[]> {
    const path = `/batches/${seg(batchId, 'batchId')}/recipients/bulk`;
    const emails = recipients.map((r) => r.email);
    const body = { recipients, ...(send !== undefined ? { send: !!send } : {}) };
    const res = await this.#http.call({ method: 'POST', path, body, recipients: emails });
    return mapBulkResponse(res.body, emails);
  }

  /**
   * Issues any number of certificates with as few calls as possible: items are grouped
   * per batch (and send flag), in input order, into bulk calls of at most 100. Every item
   * ends with its recipient or its own error; invalid items are never sent. Each item is
   * validated and normalised once, here, and goes to the wire as it is. With
   * `stopOnInvalid`, the first invalid item throws before any request is made.
   *
   * With `skipExisting`, each batch's recipients are read once (100 a page) before anything
   * is issued, and an item whose email (case-insensitive) is already there, or earlier in
   * this same call, ends as `{ok: true, skipped: true, recipient}` without being sent. That
   * makes running the same list again, after a failure half-way, issue only what is missing.
   */
  async issueMany(items: IssueItem[], options: IssueManyOptions = {}): Promise<ItemOutcome[]> {
    if (!Array.isArray(items)) throw validationError('items', 'must be a list of recipients');
    const shared = options.data === undefined ? {} : this.#checked(() => normaliseData(options.data, 'data'));
    const outcomes: ItemOutcome[] = new Array(items.length);
    const recipients: ValidRecipient[] = new Array(items.length);
    const groups = new Map<string, number[]>();
    items.forEach((item, index) => {
      try {
        requireString(item?.batchId, 'batchId');
        recipients[index] = this.#checked(() => {
          const valid = validateIssue({ ...item, data: undefined });
          return { ...valid, data: { ...shared, ...normaliseData(item.data, 'data') } };
        });
      } catch (error) {
        if (!(error instanceof CertificateServiceError)) throw error;
        if (options.stopOnInvalid) {
          const message = items.length > 1 ? `Item ${index}: ${error.message}` : error.message;
          throw new CertificateServiceError({ ...error.toJSON(), code: error.code, message, detail: { ...error.detail, index } });
        }
        outcomes[index] = { ok: false, error };
        return;
      }
      const key = JSON.stringify([item.batchId, item.send ?? null]);
      // Appended in place: copying the list per item made grouping quadratic (~6 s for 30,000 items).
      const group = groups.get(key);
      if (group) group.push(index);
      else groups.set(key, [index]);
    });

    // Repeats of an email within this call take the outcome of its first item, once known.
    const repeats: Array<[index: number, first: number]> = [];
    if (options.skipExisting) {
      const existing = await this.existingEmails(new Set([...groups.values()].map((g) => items[g[0]].batchId)));
      const firstIndex = new Map<string, number>();
      for (const [key, indexes] of groups) {
        const kept = indexes.filter((i) => {
          const batchEmail = JSON.stringify([items[i].batchId, recipients[i].email.toLowerCase()]);
          const found = existing.get(batchEmail);
          if (found) outcomes[i] = { ok: true, skipped: true, recipient: found };
          else if (firstIndex.has(batchEmail)) repeats.push([i, firstIndex.get(batchEmail)!]);
          else firstIndex.set(batchEmail, i);
          return !found && firstIndex.get(batchEmail) === i;
        });
        if (kept.length) groups.set(key, kept);
        else groups.delete(key);
      }
    }

    let stoppedAt: number | undefined;
    let done = items.length - repeats.length - [...groups.values()].reduce((n, g) => n + g.length, 0);
    options.onProgress?.(done, items.length);
    for (const indexes of groups.values()) {
      const { batchId, send } = items[indexes[0]];
      for (const part of chunk(indexes, options.bulk === false ? 1 : undefined)) {
        if (stoppedAt !== undefined) {
          for (const i of part) outcomes[i] = { ok: false, error: notSent(recipients[i].email, stoppedAt) };
          continue;
        }
        const valid = part.map((i) => recipients[i]);
        let results: ItemOutcome[];
        try {
          // A lone item uses the documented single-issue endpoint, whose response shape is known.
          results =
            part.length === 1
              ? [{ ok: true, recipient: await this.#issueOne(batchId, valid[0], send) }]
              : await this.#issueBulk(batchId, valid, send);
        } catch (error) {
          if (!(error instanceof CertificateServiceError)) throw error;
          results = failChunk(error, valid.map((r) => r.email));
        }
        part.forEach((inputIndex, j) => (outcomes[inputIndex] = results[j]));
        if (options.stopOnError) stoppedAt = part.find((i) => !outcomes[i].ok);
        options.onProgress?.((done += part.length), items.length);
      }
    }
    for (const [i, first] of repeats) {
      const o = outcomes[first];
      outcomes[i] = o.ok ? { ok: true, skipped: true, recipient: o.recipient } : o;
    }
    if (repeats.length) options.onProgress?.(items.length, items.length);
    return outcomes;
  }

  /**
   * The certificate issued to `email` in a batch (case-insensitive), or null. The list has
   * no email filter, so pages are read until the first match.
   */
  async findRecipientByEmail(batchId: string, email: string): Promise<Recipient | null> {
    seg(batchId, 'batchId');
    const wanted = this.#checked(() => requireEmail(email)).toLowerCase();
    for await (const recipient of this.iterateRecipients(batchId)) {
      if (typeof recipient?.email === 'string' && recipient.email.trim().toLowerCase() === wanted) return recipient;
    }
    return null;
  }

  /** The recipients of each batch, keyed by JSON [batchId, lower-cased email]: one paged read per batch. */
  private async existingEmails(batchIds: Set<string>): Promise<Map<string, Recipient>> {
    const found = new Map<string, Recipient>();
    for (const batchId of batchIds) {
      for (const [email, [first]] of await this.recipientsByEmail(batchId)) found.set(JSON.stringify([batchId, email]), first);
    }
    return found;
  }

  /**
   * A batch's certificates by lower-cased email, in one paged read (100 a page). The service
   * has no email filter, so a host that looks up many emails in one run reads the batch once.
   */
  async recipientsByEmail(batchId: string): Promise<Map<string, Recipient[]>> {
    const index = new Map<string, Recipient[]>();
    for await (const r of this.iterateRecipients(batchId, { limit: MAX_PAGE_SIZE })) {
      if (typeof r?.email !== 'string') continue;
      const key = r.email.trim().toLowerCase();
      const list = index.get(key);
      if (list) list.push(r);
      else index.set(key, [r]);
    }
    return index;
  }

  /** Request body (not shown in the spec; our documented default): only the fields to change. */
  async updateRecipient(batchId: string, recipientId: string, update: RecipientUpdate): Promise<Recipient> {
    const path = `/batches/${seg(batchId, 'batchId')}/recipients/${seg(recipientId, 'recipientId')}`;
    const body = this.#checked(() => validateUpdate(update));
    const res = await this.#http.call({ method: 'PATCH', path, body });
    return actionResult(res.body, { id: recipientId, batchId }) as Recipient;
  }

  async deleteRecipient(batchId: string, recipientId: string): Promise<ActionResult> {
    const path = `/batches/${seg(batchId, 'batchId')}/recipients/${seg(recipientId, 'recipientId')}`;
    const { body } = await this.#http.call({ method: 'DELETE', path });
    return actionResult(body, { id: recipientId, batchId, deleted: true });
  }

  async sendCertificate(batchId: string, recipientId: string): Promise<ActionResult> {
    const path = `/batches/${seg(batchId, 'batchId')}/recipients/${seg(recipientId, 'recipientId')}/send`;
    const { body } = await this.#http.call({ method: 'POST', path });
    return actionResult(body, { id: recipientId, batchId, queued: true });
  }

  // --- Certificates (lookups) ---------------------------------------------

  async getCertificate(certificateId: string): Promise<Recipient> {
    const { body } = await this.#http.call({ method: 'GET', path: `/certificates/${seg(certificateId, 'certificateId')}` });
    return readOne<Recipient>(body, 'certificate', 'recipient');
  }

  /** Takes the share token, or the whole certificate URL (`…/v/<shareToken>`). */
  async getCertificateByToken(shareTokenOrUrl: string): Promise<Recipient> {
    const token = encodeURIComponent(this.#checked(() => shareTokenFrom(shareTokenOrUrl, 'shareToken')));
    const { body } = await this.#http.call({ method: 'GET', path: `/certificates/by-token/${token}` });
    return readOne<Recipient>(body, 'certificate', 'recipient');
  }

  // --- Webhook subscriptions ----------------------------------------------

  async listSubscriptions(options: ListOptions = {}): Promise<Page<WebhookSubscription>> {
    const { body } = await this.#http.call({ method: 'GET', path: '/webhooks/subscriptions', query: { cursor: options.cursor } });
    const page = readPage<unknown>(body);
    return { items: page.items.map(readSubscription), nextCursor: page.nextCursor };
  }

  iterateSubscriptions(): AsyncGenerator<WebhookSubscription> {
    return paginate((cursor) => this.listSubscriptions({ cursor }));
  }

  /** The returned `secret` is shown once: store it to verify deliveries. */
  async createSubscription(input: { url: string; events: EventType[] }): Promise<WebhookSubscription> {
    const body = this.#checked(() => ({ url: validateWebhookUrl(input?.url), events: validateEvents(input?.events) }));
    const res = await this.#http.call({ method: 'POST', path: '/webhooks/subscriptions', body });
    const subscription = readSubscription(res.body);
    this.#learnSecret(subscription.secret);
    return subscription;
  }

  async getSubscription(subscriptionId: string): Promise<WebhookSubscription> {
    const { body } = await this.#http.call({ method: 'GET', path: `/webhooks/subscriptions/${seg(subscriptionId, 'subscriptionId')}` });
    return readSubscription(body);
  }

  async deleteSubscription(subscriptionId: string): Promise<ActionResult> {
    const { body } = await this.#http.call({ method: 'DELETE', path: `/webhooks/subscriptions/${seg(subscriptionId, 'subscriptionId')}` });
    return actionResult(body, { id: subscriptionId, deleted: true });
  }

  async testSubscription(subscriptionId: string): Promise<ActionResult> {
    const { body } = await this.#http.call({ method: 'POST', path: `/webhooks/subscriptions/${seg(subscriptionId, 'subscriptionId')}/test` });
    return actionResult(body, { id: subscriptionId });
  }

  async rotateSubscriptionSecret(subscriptionId: string): Promise<{ id: string; secret: string }> {
    const path = `/webhooks/subscriptions/${seg(subscriptionId, 'subscriptionId')}/rotate-secret`;
    const { body } = await this.#http.call({ method: 'POST', path });
    const secret = readSecret(readOne<Record<string, unknown>>(body ?? {}, 'subscription'));
    if (!secret) throw new CertificateServiceError({ code: 'UNKNOWN', phase: 'response', message: 'The service rotated the secret but returned none. Re-create the subscription.' });
    this.#learnSecret(secret);
    return { id: subscriptionId, secret };
  }
}


