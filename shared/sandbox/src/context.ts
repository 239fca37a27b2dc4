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
import type { BulkResponseShape, ListShape, RecipientOrder, ResolvedOptions, TestDeliveryShape } from './types';

export interface Settings {
  listShape: ListShape;
  bulkResponseShape: BulkResponseShape;
  recipientOrder: RecipientOrder;
  testDelivery: TestDeliveryShape;
}

export interface SandboxContext {
  options: ResolvedOptions;
  /** Set once the server listens; recipients' certUrl is built from it. */
  origin: string;
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
  const sb: SandboxContext = {
    options,
    origin: '',
    ids,
    store,
    timers,
    counters,
    rateLimiter: new RateLimiter(options.rateLimit),
    faults: new Faults(),
    deliveries,
    events,
    mail: new Mail(store, events, timers, options.mailDelayMs),
    settings: { listShape: options.listShape, bulkResponseShape: 'data', recipientOrder: options.recipientOrder, testDelivery: 'recipient' },
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
  sb.settings.listShape = sb.options.listShape;
  sb.settings.bulkResponseShape = 'data';
  sb.settings.recipientOrder = sb.options.recipientOrder;
  sb.settings.testDelivery = 'recipient';
  if (sb.options.seed) seedDemo(sb.store, sb.ids, sb.options.quota);
}
