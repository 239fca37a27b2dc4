import { validationError } from '../errors';
import { MAX_PAGE_SIZE } from '../pagination';
import { requireObject, validateLimit } from '../validation';
import type { Batch, Recipient } from '../types';
import { flattenEvent, type FlatEvent } from '../webhooks/flatten';
import type { Api } from '../client/api';
import { seg } from '../client/api';
import { iterateBatches } from '../client/batches';
import { occurrence, POLL_EVENT_TYPES, POLL_EVENTS, type Occurrence, type PollEvent } from './occurrence';
import { DAY_MS, newestFirst } from './rules';
import { readState, type PollState } from './state';
import { PollRun, type PollSettings } from './walk';

export { POLL_EVENT_TYPES, POLL_EVENTS, occurrenceKey, pollFilter, type PollEvent } from './occurrence';
export { type ListOrder } from './rules';
export { MAX_KNOWN, type PollState } from './state';

// Polling: how a trigger without a webhook subscription finds the new occurrences of a batch
// (each certificate issued, each send, each failure) once, within a budget of requests a poll.
// A walk of the list (`GET /batches/{id}/recipients`, by `emailStatus` for sent/failed) that
// began when the service's clock (`Date`) read S sees everything stamped before S: once done, S
// is the *floor*. Later walks skip occurrences before the floor and keep the keys they emitted
// after it (*known*), so ties in `createdAt` come once. Sent/failed read a *window*: certificates
// issued up to `windowDays` before the floor (the list is sorted by issue, a send comes later).
// Where a walk goes (the list's order, a walk the budget cut short, a shifted or refused cursor):
// walk.ts; the rules: rules.ts; the SDK README's "Polling" says it for users.

/** List requests a poll makes at most (Zapier gives a poll 30 s; the key has 120 a minute). */
export const DEFAULT_BUDGET = 10;
/** Sent/failed: sends of certificates issued up to this many days before are seen. */
export const DEFAULT_WINDOW_DAYS = 7;

export interface PollOptions {
  batchId: string;
  event: PollEvent;
  /** The previous poll's state; undefined on the first poll. */
  state?: PollState;
  /**
   * How many of the newest the first poll returns (default 0: it only notes what exists).
   * Zapier shows them as samples and seeds its dedupe with them.
   */
  firstPoll?: number;
  /** Page size asked for (1-100, default 100). */
  pageSize?: number;
  /** List requests at most in this poll (2-100, default 10). */
  budget?: number;
  /**
   * true (default): the state remembers what was emitted and only the new is returned.
   * false: the host dedupes by `polledEvent().id` (Zapier): every occurrence that may be new is
   * returned each time it is read, and the state keeps no keys.
   */
  remember?: boolean;
  /** Sent/failed: the window in days (1-365, default 7). */
  windowDays?: number;
}

export interface PollResult {
  /** New certificates, newest first. */
  certificates: Recipient[];
  state: PollState;
  /** List requests this poll made. */
  requests: number;
  /** What the host should log: a refused cursor, a shifted list, a walk the budget cut short. */
  notes: string[];
}

export interface PollAllOptions extends Omit<PollOptions, 'batchId' | 'state'> {
  /** The states by batch id from the previous poll; undefined on the first poll. */
  states?: Record<string, PollState>;
}

export interface PollAllResult {
  certificates: Recipient[];
  states: Record<string, PollState>;
  requests: number;
  notes: string[];
}

/**
 * A polled certificate in the flat shape the instant triggers emit (flattenEvent), so a
 * workflow or Zap can switch between them. `id` identifies the occurrence (occurrenceKey;
 * Zapier dedupes on it). `createdAt` is when it happened, as far as the list says.
 */
export function polledEvent(event: PollEvent, recipient: Recipient): FlatEvent {
  const createdAt = event === 'sent' ? (recipient.emailSentAt ?? recipient.createdAt) : recipient.createdAt;
  return flattenEvent({ id: occurrence(event, recipient, 0).key, type: POLL_EVENT_TYPES[event], createdAt, data: recipient });
}

function checkEvent(event: unknown): PollEvent {
  if (!POLL_EVENTS.includes(event as PollEvent)) {
    throw validationError('event', `must be one of ${POLL_EVENTS.join(', ')}; got ${JSON.stringify(event)}`);
  }
  return event as PollEvent;
}

function checkCount(value: unknown, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw validationError(field, `must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value as number;
}

function checkSettings(options: Omit<PollOptions, 'batchId' | 'state'>): PollSettings {
  const event = checkEvent(options.event);
  if (options.remember !== undefined && typeof options.remember !== 'boolean') throw validationError('remember', 'must be true or false');
  return {
    event,
    firstPoll: checkCount(options.firstPoll ?? 0, 'firstPoll', 0, 1000),
    pageSize: options.pageSize === undefined ? MAX_PAGE_SIZE : validateLimit(options.pageSize, 'pageSize'),
    budget: checkCount(options.budget ?? DEFAULT_BUDGET, 'budget', 2, 100),
    remember: options.remember ?? true,
    windowMs: checkCount(options.windowDays ?? DEFAULT_WINDOW_DAYS, 'windowDays', 1, 365) * DAY_MS,
  };
}

/** The same Api, counting the calls made through it. */
export function counting(api: Api): { api: Api; count: () => number } {
  let n = 0;
  return { api: { call: (spec, decode) => (n++, api.call(spec, decode)), secrets: api.secrets }, count: () => n };
}

/** One poll of one batch: what is new since `state`, newest first, and the state for the next poll (see the top of this file). */
export async function pollBatch(outer: Api, options: PollOptions): Promise<PollResult> {
  requireObject(options, 'options');
  seg(options.batchId, 'batchId');
  const settings = checkSettings(options);
  const state = readState(options.state);
  const { api, count } = counting(outer);
  const run = new PollRun(api, options.batchId, settings, state === undefined, state ?? { v: 2, known: [] });
  await run.poll();
  // The notes quote the service's words (a refusal's message), already redacted as its errors are.
  const { occurrences, state: next, notes } = run.result();
  return { certificates: occurrences.map((o) => o.recipient), state: next, requests: count(), notes };
}

/**
 * One poll of every active batch: one paged read of the batch list, then one poll per batch
 * (each within the budget). A batch first seen after the first poll (created or unarchived
 * since) is new throughout. States of batches no longer active are kept, so an unarchived
 * batch does not replay its certificates.
 */
export async function pollActiveBatches(outer: Api, options: PollAllOptions): Promise<PollAllResult> {
  requireObject(options, 'options');
  const settings = checkSettings(options);
  const first = options.states === undefined || options.states === null;
  const states: Record<string, PollState> = {};
  if (!first) {
    if (typeof options.states !== 'object' || Array.isArray(options.states)) throw validationError('states', 'must be the object a previous poll returned');
    for (const [id, s] of Object.entries(options.states as Record<string, unknown>)) states[id] = readState(s, `states.${id}`)!;
  }
  const { api, count } = counting(outer);
  const batches: Batch[] = [];
  for await (const b of iterateBatches(api, { status: 'active' })) batches.push(b);
  const all: Occurrence[] = [];
  const notes: string[] = [];
  for (const batch of batches) {
    const state = first ? undefined : (states[batch.id] ?? { v: 2, known: [] });
    const result = await pollBatch(api, { ...options, batchId: batch.id, state });
    states[batch.id] = result.state;
    notes.push(...result.notes.map((n) => `Batch ${batch.id}: ${n}`));
    result.certificates.forEach((r, i) => all.push(occurrence(settings.event, r, i)));
  }
  const certificates = newestFirst(all).map((o) => o.recipient);
  return { certificates: first ? certificates.slice(0, settings.firstPoll) : certificates, states, requests: count(), notes };
}
