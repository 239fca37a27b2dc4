import { validationError } from '../errors';
import { MAX_PAGE_SIZE } from '../pagination';
import { requireObject, requireString, validateLimit } from '../validation';
import { POLL_EVENTS, type PollEvent } from '../occurrence';
import { DAY_MS } from './rules';

// The settings of a poll and of a recovery, checked here and nowhere else: the client runs these
// checks, and a host that wants them before its own work (reading a saved position) calls them
// first. A host passes its names for the fields (`{ batchId: 'Batch' }`, `{ events: '--events' }`),
// so the VALIDATION_ERROR names the field its user sees; the rules and the words stay here.

/** List requests a poll makes at most (Zapier gives a poll 30 s; the key has 120 a minute). */
export const DEFAULT_BUDGET = 10;
/** Sent/failed: sends of certificates issued up to this many days before are seen. */
export const DEFAULT_WINDOW_DAYS = 7;

/** A host's names for the core's fields, for its errors: `{ batchId: 'Batch' }`. */
export type FieldNames = Readonly<Record<string, string>>;

/** What a poll is set to (PollOptions without the state). */
export interface PollSettingsInput {
  /** The batch watched; checked when the key is there (pollCertificates), absent for every active batch. */
  batchId?: string;
  event: PollEvent;
  /** How many of the newest the first poll returns (0-1000, default 0: it only notes what exists); Zapier's samples. */
  firstPoll?: number;
  /** Page size asked for (1-100, default 100). */
  pageSize?: number;
  /** List requests at most in this poll (2-100, default 10). */
  budget?: number;
  /**
   * true (default): the state keeps what was emitted as known, and only the new is returned.
   * false: the host dedupes by `polledEvent().id` (Zapier): what may be new is returned each time it is read.
   */
  remember?: boolean;
  /** Sent/failed: the window in days (1-365, default 7). */
  windowDays?: number;
}

/** A poll's settings, checked (checkPollSettings); `batchId` trimmed when one batch is watched. */
export type PollSettings = Required<Pick<PollSettingsInput, 'event' | 'firstPoll' | 'pageSize' | 'budget' | 'remember'>> & { windowMs: number; batchId?: string };

function count(value: unknown, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw validationError(field, `must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value as number;
}

/** A poll's settings, before any request: each bad one a VALIDATION_ERROR naming the field (in the host's `names`). */
export function checkPollSettings(options: PollSettingsInput, names: FieldNames = {}): PollSettings {
  const name = (field: string) => names[field] ?? field;
  requireObject(options, name('options'));
  const event = options.event;
  if (!POLL_EVENTS.includes(event)) throw validationError(name('event'), `must be one of ${POLL_EVENTS.join(', ')}; got ${JSON.stringify(event)}`);
  if (options.remember !== undefined && typeof options.remember !== 'boolean') throw validationError(name('remember'), 'must be true or false');
  const settings: PollSettings = {
    event,
    firstPoll: count(options.firstPoll ?? 0, name('firstPoll'), 0, 1000),
    pageSize: options.pageSize === undefined ? MAX_PAGE_SIZE : validateLimit(options.pageSize, name('pageSize')),
    budget: count(options.budget ?? DEFAULT_BUDGET, name('budget'), 2, 100),
    remember: options.remember ?? true,
    windowMs: count(options.windowDays ?? DEFAULT_WINDOW_DAYS, name('windowDays'), 1, 365) * DAY_MS,
  };
  if ('batchId' in options) settings.batchId = requireBatch(options.batchId, name('batchId'));
  return settings;
}

function requireBatch(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) throw validationError(field, 'choose the batch whose certificates are watched');
  return value.trim();
}

/** What a recovery is set to (FindOptions). */
export interface RecoverSettingsInput {
  /** The earliest time to recover: a Date, epoch ms, or an ISO 8601 time. */
  since: Date | number | string;
  /** The latest (default none: up to the lists' present): occurrences after it are not found. Not before `since`. */
  until?: Date | number | string;
  /** Batch ids to read; default every batch (`status=all`). */
  batches?: string[];
  /** Which occurrences (default all three; `viewed` cannot be recovered). */
  events?: PollEvent[];
}

export interface RecoverSettings {
  /** Epoch ms. */
  since: number;
  /** Epoch ms; undefined: no bound. */
  until?: number;
  /** Distinct, trimmed; undefined: every batch. */
  batches?: string[];
  /** Distinct. */
  events: PollEvent[];
}

const epochMs = (raw: unknown) => (raw instanceof Date ? raw.getTime() : typeof raw === 'number' ? raw : typeof raw === 'string' ? Date.parse(raw) : NaN);

/**
 * A recovery's settings, before any request: `since` a time (with `now`, not after it), `until`
 * one not before `since` (a future one is the present: nothing has happened there yet), the events
 * some of issued, sent and failed (viewed cannot be recovered), the batches a list of ids. The
 * client passes no `now`: what is in the future is the service's clock's to say, not this
 * machine's; a host reading a time its user typed passes its clock to catch a slip.
 */
export function checkRecoverSettings(options: RecoverSettingsInput, names: FieldNames = {}, now?: number): RecoverSettings {
  const name = (field: string) => names[field] ?? field;
  requireObject(options, name('options'));
  const { since: raw, until: rawUntil, events, batches } = options;
  const since = epochMs(raw);
  if (!Number.isFinite(since)) throw validationError(name('since'), `must be a time (a Date, epoch ms or ISO 8601); got ${JSON.stringify(raw)}`);
  if (now !== undefined && since > now) throw validationError(name('since'), `${new Date(since).toISOString()} is in the future`);
  const until = rawUntil === undefined ? undefined : epochMs(rawUntil);
  if (until !== undefined && !Number.isFinite(until)) throw validationError(name('until'), `must be a time (a Date, epoch ms or ISO 8601); got ${JSON.stringify(rawUntil)}`);
  if (until !== undefined && until < since) throw validationError(name('until'), `${new Date(until).toISOString()} is before ${name('since')} (${new Date(since).toISOString()})`);
  const viewed = Array.isArray(events) && events.some((e: unknown) => e === 'viewed' || e === 'certificate.viewed');
  if (viewed) throw validationError(name('events'), `viewed cannot be recovered (no list says when a certificate was viewed); choose from ${POLL_EVENTS.join(', ')}`);
  if (events !== undefined && (!Array.isArray(events) || events.length === 0 || !events.every((e) => POLL_EVENTS.includes(e)))) {
    throw validationError(name('events'), `must be some of ${POLL_EVENTS.join(', ')}; got ${JSON.stringify(events)}`);
  }
  if (batches !== undefined && (!Array.isArray(batches) || batches.length === 0)) throw validationError(name('batches'), 'must be a list of batch ids');
  return {
    since,
    until,
    events: events ? [...new Set(events)] : [...POLL_EVENTS],
    batches: batches && [...new Set(batches.map((id, i) => requireString(id, `${name('batches')}[${i}]`)))],
  };
}
