// A world for polling tests: the sandbox on a clock the test steps, under one list model, with
// the truth of what happened (every occurrence of issued, sent and failed, with when), and the
// three pollers that read it: the core (pollCertificates), the n8n Poll Trigger's poll() with
// the fake context, and the Zapier polling trigger's perform with a fake `z` and a model of
// Zapier's dedupe by id. Used by the property test and the named poll tests.
import zapier, { type Bundle, type ZObject } from 'zapier-platform-core';
import type { IDataObject } from 'n8n-workflow';
import { createSandbox, type CursorExpiry, type CursorKind, type RecipientOrder, type Sandbox, type TimestampPrecision } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { createClient, memoryStore } from '@certificate-service/sdk';
import type { PollEvent, PollState, Recipient } from '@certificate-service/sdk/core';
import { CertificateServicePollTrigger } from '../../n8n/nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node';
import App from '../../zapier/src';
import { fakePoll, rl } from '../n8n/fake-context';

export interface Model {
  order: RecipientOrder;
  precision: TimestampPrecision;
  cursorKind: CursorKind;
  expiry: CursorExpiry;
}

export const DEFAULT_MODEL: Model = { order: 'newest-first', precision: 'ms', cursorKind: 'opaque', expiry: false };
export const SECOND = 1000;
export const DAY = 24 * 60 * 60 * 1000;

/** What happened, as the service holds it: one entry per occurrence key (see occurrence.ts occurrenceKey). */
export interface Truth {
  key: string;
  event: PollEvent;
  id: string;
  /** createdAt (ms) of the certificate. */
  created: number;
  /** When it happened (ms): createdAt, emailSentAt, or the clock when the failure was seen. */
  at: number;
  /** The clock when it was first observed. */
  seenAt: number;
}

/** One poll as a host runs it: what it emitted (after the host's dedupe), in the order it came. */
export interface PollOutcome {
  emitted: { id: string; createdAt: string }[];
  /** What the poll returned before any host dedupe (Zapier: the whole result). */
  returned: { id: string; createdAt: string }[];
  requests: number;
  notes: string[];
}

export interface Poller {
  poll(): Promise<PollOutcome>;
  /** The state the host keeps (JSON), for settling and inspection. */
  state(): PollState | undefined;
}

export class PollWorld {
  now = Date.parse('2026-11-25T10:00:00.000Z');
  batchId = '';
  readonly truth = new Map<string, Truth>();
  /** The occurrence keys held at the last observe(). */
  private held = new Set<string>();
  private api!: Api;
  private emails = 0;

  private constructor(readonly sb: Sandbox) {}

  static async start(): Promise<PollWorld> {
    let world: PollWorld | undefined;
    const sb = await createSandbox({ rateLimit: false, mailDelayMs: 3_600_000, quota: 10_000_000, clock: () => world!.now });
    world = new PollWorld(sb);
    world.api = new Api(sb.baseUrl, sb.apiKey);
    return world;
  }

  close(): Promise<void> {
    return this.sb.close();
  }

  /** A new batch under `model`; the truth starts empty. */
  async begin(model: Model): Promise<string> {
    const c = this.sb.controls;
    c.setRecipientOrder(model.order);
    c.setTimestampPrecision(model.precision);
    c.setCursorKind(model.cursorKind);
    c.setCursorExpiry(model.expiry);
    this.truth.clear();
    this.held.clear();
    this.batchId = (await this.api.post('/batches', { title: 'Poll world', designId: 'design_classic' })).body.id;
    return this.batchId;
  }

  tick(ms: number): void {
    this.now += ms;
  }

  /** Issues `n` certificates, one call (a bulk call when n > 1); bounce: their email will fail. */
  async issue(n: number, opts: { bounce?: boolean; send?: boolean } = {}): Promise<Recipient[]> {
    const people = Array.from({ length: n }, () => {
      const i = ++this.emails;
      return { name: `P${i}`, email: opts.bounce ? `p${i}@bounce.test` : `p${i}@example.com` };
    });
    const send = opts.send ?? false;
    const res =
      n === 1
        ? await this.api.post(`/batches/${this.batchId}/recipients`, { ...people[0], send })
        : await this.api.post(`/batches/${this.batchId}/recipients/bulk`, { recipients: people, send });
    if (res.status !== 201) throw new Error(`issue answered ${res.status}: ${res.text}`);
    this.observe();
    return n === 1 ? [res.body] : res.body.data;
  }

  /** Queues the email of a certificate (a 409 while it is queued is ignored). */
  async send(id: string): Promise<void> {
    await this.api.post(`/batches/${this.batchId}/recipients/${id}/send`);
    this.observe();
  }

  async remove(id: string): Promise<void> {
    await this.api.delete(`/batches/${this.batchId}/recipients/${id}`);
    this.observe();
  }

  /** The mail provider handles every queued email now. */
  settleMail(): void {
    this.sb.controls.settleMail();
    this.observe();
  }

  certificates(): Recipient[] {
    return this.sb.controls.certificates(this.batchId);
  }

  /**
   * Records every occurrence the service now holds that it did not hold at the last look. A
   * failure has one key per successful send (none: one per certificate): failing again after a re-send is the same key, at the
   * time of the latest failure.
   */
  observe(): void {
    const now = new Set<string>();
    for (const r of this.certificates()) {
      const created = Date.parse(r.createdAt);
      const add = (event: PollEvent, key: string, at: number) => {
        now.add(key);
        if (!this.truth.has(key) || !this.held.has(key)) this.truth.set(key, { key, event, id: r.id, created, at, seenAt: this.now });
      };
      add('issued', keyOf('issued', r), created);
      if (r.emailStatus === 'sent' && r.emailSentAt) add('sent', keyOf('sent', r), Date.parse(r.emailSentAt));
      if (r.emailStatus === 'failed') add('failed', keyOf('failed', r), this.now);
    }
    this.held = now;
  }

  /** The occurrence keys of `event` the service holds now. */
  present(event: PollEvent): Set<string> {
    const keys = new Set<string>();
    for (const r of this.certificates()) {
      if (event === 'issued') keys.add(keyOf('issued', r));
      if (event === 'sent' && r.emailStatus === 'sent' && r.emailSentAt) keys.add(keyOf('sent', r));
      if (event === 'failed' && r.emailStatus === 'failed') keys.add(keyOf('failed', r));
    }
    return keys;
  }

  /**
   * The SDK's recoverEvents over this batch from `since`, into a store that already holds
   * `claimed` (what a receiver ran before): the keys it ran, in the order it ran them.
   */
  async recover(event: PollEvent, since: number, claimed: Iterable<string>): Promise<{ ran: string[]; requests: number }> {
    const client = createClient({ baseUrl: this.sb.baseUrl, apiKey: this.sb.apiKey! });
    const store = memoryStore(1_000_000);
    for (const key of claimed) {
      store.claim(key);
      store.settle(key, true);
    }
    const ran: string[] = [];
    const result = await client.recoverEvents({ since, store, events: [event], batches: [this.batchId], onEvent: (e) => void ran.push(keyOf(event, e.data)) });
    if (result.ran !== ran.length) throw new Error(`recoverEvents said it ran ${result.ran}, onEvent saw ${ran.length}`);
    return { ran, requests: result.requests };
  }

  // --- The pollers -------------------------------------------------------------------------

  /** The core's pollCertificates, its state kept as JSON between polls; `remember: false` adds a model of the host's dedupe. */
  core(event: PollEvent, options: { pageSize?: number; budget?: number; remember?: boolean; windowDays?: number } = {}): Poller {
    const client = createClient({ baseUrl: this.sb.baseUrl, apiKey: this.sb.apiKey! });
    let state: PollState | undefined;
    const seen = dedupe();
    return {
      state: () => state,
      poll: async () => {
        const first = state === undefined;
        const result = await client.pollCertificates({ batchId: this.batchId, event, state, ...options });
        state = JSON.parse(JSON.stringify(result.state));
        const returned = result.certificates.map((r) => ({ id: keyOf(event, r), createdAt: eventTime(event, r) }));
        const emitted = options.remember === false ? seen(returned, first) : returned;
        return { emitted, returned, requests: result.requests, notes: result.notes };
      },
    };
  }

  /** The n8n Poll Trigger's poll(): static data through JSON between polls (as n8n saves it). */
  n8n(event: PollEvent): Poller {
    const trigger = new CertificateServicePollTrigger();
    let staticData: IDataObject = {};
    const credentials = { apiKey: this.sb.apiKey!, baseUrl: this.sb.url };
    const notes: string[] = [];
    return {
      state: () => staticData.state as unknown as PollState | undefined,
      poll: async () => {
        const fake = fakePoll({ params: { event, watch: 'batch', batch: rl(this.batchId) }, credentials, staticData, logs: notes });
        const out = await trigger.poll.call(fake.context);
        staticData = JSON.parse(JSON.stringify(staticData));
        const emitted = (out ? out[0] : []).map((i) => ({ id: String(i.json.id), createdAt: String(i.json.createdAt) }));
        return { emitted, returned: emitted, requests: fake.requests.length, notes: notes.splice(0) };
      },
    };
  }

  /**
   * Zapier's perform of the polling trigger for `event`, with a fake `z` (real HTTP through the
   * app's beforeRequest, an in-memory `z.cache` that may refuse writes as Zapier's rate limit
   * does) and Zapier's dedupe: the first poll (turning the Zap on) seeds the ids it returns,
   * later polls fire the ids not seen before.
   */
  zapier(event: PollEvent, options: { cacheRefuses?: () => boolean } = {}): Poller {
    const key = ({ issued: 'new_certificate', sent: 'certificate_email_sent', failed: 'certificate_email_failed' } as const)[event];
    const perform = (App.triggers[key].operation as { perform: (z: ZObject, bundle: Bundle) => Promise<{ id: string; createdAt: string }[]> }).perform;
    const cache = new Map<string, unknown>();
    const logs: string[] = [];
    const authData = { apiKey: this.sb.apiKey!, baseUrl: this.sb.baseUrl };
    const seen = dedupe();
    let first = true;
    const z = fakeZ(cache, logs, authData, options.cacheRefuses);
    return {
      state: () => {
        const stored = [...cache.values()][0];
        return typeof stored === 'string' ? (JSON.parse(stored) as PollState) : undefined;
      },
      poll: async () => {
        const before = this.sb.controls.counters().requests.byRoute['GET /batches/:id/recipients'] ?? 0;
        const bundle = { authData, inputData: { batch_id: this.batchId }, meta: { zap: { id: 4242 }, isPopulatingDedupe: first } } as unknown as Bundle;
        const items = await perform(z, bundle);
        const returned = items.map((i) => ({ id: i.id, createdAt: i.createdAt }));
        const emitted = seen(returned, first);
        first = false;
        const requests = (this.sb.controls.counters().requests.byRoute['GET /batches/:id/recipients'] ?? 0) - before;
        return { emitted, returned, requests, notes: logs.splice(0) };
      },
    };
  }
}

/** Zapier's dedupe: ids seen so far; the first poll only seeds them. */
function dedupe() {
  const seen = new Set<string>();
  return (items: { id: string; createdAt: string }[], first: boolean) => {
    const fresh = items.filter((i) => !seen.has(i.id));
    for (const i of items) seen.add(i.id);
    return first ? [] : fresh;
  };
}

/**
 * The occurrence keys as the issue states them, written here apart from the SDK's: issued
 * (id, issued) as the id alone; sent (id, sent, emailSentAt in ms); failed (id, failed, the last successful
 * send in ms, if any): a failure after a resend with no successful send between is the same.
 */
export function keyOf(event: PollEvent, r: Pick<Recipient, 'id' | 'emailSentAt'>): string {
  const sentMs = r.emailSentAt ? `:${Date.parse(r.emailSentAt)}` : '';
  return event === 'issued' ? r.id : event === 'sent' ? `${r.id}:sent${sentMs}` : `${r.id}:failed${sentMs}`;
}

function eventTime(event: PollEvent, r: Recipient): string {
  return event === 'sent' ? (r.emailSentAt ?? r.createdAt) : r.createdAt;
}

/** Enough of Zapier's `z` for a polling perform: request (through the app's beforeRequest), cache, console, errors. */
function fakeZ(cache: Map<string, unknown>, logs: string[], authData: Record<string, string>, refuses?: () => boolean): ZObject {
  const z = {
    errors: zapier.errors,
    JSON,
    console: { log: (...args: unknown[]) => void logs.push(args.map(String).join(' ')) },
    request: async (options: { url: string; method: string; headers?: Record<string, string>; body?: string }) => {
      let request = { ...options, headers: { ...(options.headers ?? {}) } };
      for (const before of [App.beforeRequest ?? []].flat()) request = (await (before as (r: unknown, z: unknown, b: unknown) => unknown)(request, z, { authData })) as typeof request;
      const res = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
      return { status: res.status, headers: res.headers, content: await res.text() };
    },
    cache: {
      get: async (key: string) => cache.get(key) ?? null,
      set: async (key: string, value: unknown) => {
        if (refuses?.()) return false;
        cache.set(key, value);
        return true;
      },
      delete: async (key: string) => cache.delete(key),
    },
  };
  return z as unknown as ZObject;
}
