// Wires the parts of one sandbox together. Handlers and controls receive this object.
import { Counters } from './counters';
import { Deliveries } from './deliveries';
import { Events } from './events';
import { Faults } from './faults';
import { Ids } from './ids';
import { Mail } from './mail';
import { RateLimiter } from './rate-limit';
import { seedDemo } from './seed';
import { Store } from './store';
import { Timers } from './timers';
import type { CursorExpiry, CursorKind, RecipientOrder, TimestampPrecision } from './choices';
import type { BulkResponseShape, ListShape, ResolvedOptions, TestDeliveryShape } from './types';

export interface Settings {
  listShape: ListShape;
  bulkResponseShape: BulkResponseShape;
  recipientOrder: RecipientOrder;
  timestampPrecision: TimestampPrecision;
  cursorKind: CursorKind;
  cursorExpiry: CursorExpiry;
  testDelivery: TestDeliveryShape;
}

export interface SandboxContext {
  options: ResolvedOptions;
  /** Set once the server listens; recipients' certUrl is built from it. */
  origin: string;
  /** The Host header values the server answers (set once it listens): serverHostNames. */
  hostNames: string[];
  ids: Ids;
  store: Store;
  timers: Timers;
  counters: Counters;
  rateLimiter: RateLimiter;
  faults: Faults;
  deliveries: Deliveries;
  events: Events;
  mail: Mail;
  settings: Settings;
  /** The service's clock (options.clock), epoch ms. */
  now(): number;
  /** `now()` as the service writes a timestamp, at `settings.timestampPrecision`. */
  stamp(): string;
}

/** The settings a sandbox starts with, and returns to on reset(). */
function initialSettings(options: ResolvedOptions): Settings {
  return {
    listShape: options.listShape,
    bulkResponseShape: 'data',
    recipientOrder: options.recipientOrder,
    timestampPrecision: options.timestampPrecision,
    cursorKind: options.cursorKind,
    cursorExpiry: options.cursorExpiry,
    testDelivery: 'recipient',
  };
}

export function createContext(options: ResolvedOptions): SandboxContext {
  const ids = new Ids();
  const store = new Store();
  const timers = new Timers();
  const counters = new Counters();
  const deliveries = new Deliveries(ids, store, timers, counters, {
    timeScale: options.timeScale,
    timeoutMs: options.deliveryTimeoutMs,
    maxLog: options.maxLogEntries,
    concurrency: options.deliveryConcurrency,
  });
  const events = new Events(ids, store, deliveries, options.maxLogEntries);
  const now = () => options.clock();
  const stamp = () => {
    const t = now();
    return new Date(sb.settings.timestampPrecision === 's' ? Math.floor(t / 1000) * 1000 : t).toISOString();
  };
  const sb: SandboxContext = {
    options,
    origin: '',
    hostNames: [],
    ids,
    store,
    timers,
    counters,
    rateLimiter: new RateLimiter(options.rateLimit),
    faults: new Faults(),
    deliveries,
    events,
    mail: new Mail(store, events, timers, options.mailDelayMs, stamp, options.failedSendTime),
    settings: initialSettings(options),
    now,
    stamp,
  };
  if (options.seed) seedDemo(store, ids, options.quota);
  return sb;
}

/** Everything back to the seeded state: data, keys, counters, faults, settings, timers. */
export function resetContext(sb: SandboxContext): void {
  sb.timers.clearAll();
  sb.deliveries.reset();
  sb.events.log.length = 0;
  sb.store.clear();
  sb.counters.reset();
  sb.rateLimiter.reset();
  sb.faults.clear();
  sb.settings = initialSettings(sb.options);
  if (sb.options.seed) seedDemo(sb.store, sb.ids, sb.options.quota);
}
