import { validationError } from '../errors';
import { requireObject } from '../validation';
import type { Batch, Recipient } from '../types';
import { flattenEvent, type FlatEvent } from '../webhooks/flatten';
import type { Api } from '../client/api';
import { iterateBatches } from '../client/batches';
import { occurrence, POLL_EVENT_TYPES, type Occurrence, type PollEvent } from '../occurrence';
import { newestFirst } from './rules';
import { checkPollSettings, type PollSettingsInput } from './settings';
import { readState, type PollState } from './state';
import { PollRun } from './run';

export { POLL_EVENT_TYPES, POLL_EVENTS, occurrenceKey, pollFilter, type PollEvent } from '../occurrence';
export { type ListOrder } from './rules';
export { MAX_KNOWN, type PollState } from './state';
export { checkPollSettings, checkRecoverSettings, DEFAULT_BUDGET, DEFAULT_WINDOW_DAYS, type FieldNames, type PollSettings, type PollSettingsInput } from './settings';

// Polling: how a trigger without a webhook subscription finds the new occurrences of a batch
// (each certificate issued, each send, each failure) once, within a budget of requests a poll.
// A *walk* of the list (`GET /batches/{id}/recipients`, by `emailStatus` for sent/failed) that
// began when the service's clock (`Date`) read S sees everything stamped before S: once done, S
// is the *floor*. Later walks skip occurrences before the floor and keep the keys they emitted
// after it (*known*), so ties in `createdAt` come once. The first walk only notes (makes known)
// what may have existed when the trigger began (*noteBefore*, state.ts). Sent/failed read a
// *window*: certificates issued up to `windowDays` before the floor (the list is sorted by issue,
// a send comes later).
// One poll's walks: run.ts; one walk (the list's order, the budget, a shifted or refused
// cursor): walk.ts; the verdicts: rules.ts; the words in full: docs/design/sdk.md "Polling";
// for users: the SDK README's "Polling".

/** One batch's poll: its settings (checkPollSettings) and the previous poll's state. */
export interface PollOptions extends PollSettingsInput {
  batchId: string;
  /** The previous poll's state; undefined on the first poll. */
  state?: PollState;
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

export type PollAllResult = Omit<PollResult, 'state'> & { states: Record<string, PollState> };

/**
 * A polled certificate in the flat shape the instant triggers emit (flattenEvent), so a workflow
 * or Zap can switch between them. `id`: occurrenceKey (Zapier dedupes on it); `createdAt`: when it happened.
 */
export function polledEvent(event: PollEvent, recipient: Recipient): FlatEvent {
  const createdAt = event === 'sent' ? (recipient.emailSentAt ?? recipient.createdAt) : recipient.createdAt;
  return flattenEvent({ id: occurrence(event, recipient, 0).key, type: POLL_EVENT_TYPES[event], createdAt, data: recipient });
}

/** The same Api, counting the calls made through it. */
export function counting(api: Api): { api: Api; count: () => number } {
  let n = 0;
  return { api: { call: (spec, decode) => (n++, api.call(spec, decode)), secrets: api.secrets }, count: () => n };
}

/** One poll of one batch: what is new since `state`, newest first, and the state for the next poll (see the top of this file). */
export async function pollBatch(api: Api, options: PollOptions): Promise<PollResult> {
  requireObject(options, 'options');
  const settings = checkPollSettings(options);
  const state = readState(options.state);
  const run = new PollRun(api, settings.batchId!, settings, state);
  await run.poll();
  // The notes quote the service's words (a refusal's message), already redacted as its errors are.
  const { occurrences, state: next, notes } = run.result();
  return { certificates: occurrences.map((o) => o.recipient), state: next, requests: run.requests, notes };
}

/**
 * One poll of every active batch: one paged read of the batch list, then one poll per batch
 * (each within the budget). A batch first seen after the first poll (created or unarchived
 * since) is new throughout. States of batches no longer active are kept, so an unarchived
 * batch does not replay its certificates.
 */
export async function pollActiveBatches(outer: Api, options: PollAllOptions): Promise<PollAllResult> {
  requireObject(options, 'options');
  const settings = checkPollSettings(options);
  const first = options.states === undefined || options.states === null;
  const states: Record<string, PollState> = {};
  if (!first) {
    if (typeof options.states !== 'object' || Array.isArray(options.states)) throw validationError('states', 'must be the object a previous poll returned');
    for (const [id, s] of Object.entries(options.states as Record<string, unknown>)) {
      // A batch's entry that says nothing would poll it as new (all its certificates again): refused.
      const state = readState(s, `states.${id}`);
      if (!state) throw validationError(`states.${id}`, "must be the state a previous poll returned for this batch; reset the trigger's saved state");
      states[id] = state;
    }
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
