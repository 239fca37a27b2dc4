import { createHash } from 'crypto';
import { CertificateServiceError } from '../errors';
import { serviceFingerprint } from '../service-fingerprint';
import type { Recipient } from '../types';
import type { IssueOutcome } from './outcome';
import type { PlannedItem } from './plan';

// "A retry never issues twice" (issue 35). Skip-existing reads the batch before sending, but a
// call still at the service (a run cancelled, or whose caller went away, while its bulk call is
// there) lands after a retry's read: the retry issued those emails again (600 certificates for
// 500 emails). So runs against the same batch of the same service hold the emails they have
// planned or in flight, and a run that meets an email another run holds waits for that run's
// outcome: issued there, it is skipped here (with that certificate); ended without issuing, it is
// taken over; still in flight when the wait gives up, or unknown there, it ends `unknown` here and
// is not sent. In one process the holds are a registry in memory; across processes, markers a host
// hands in (the SDK's Node entry has a file implementation: in-flight-files.ts). Only with
// skip-existing on: `skipExisting: false` asks to issue again whatever exists.

/**
 * In-flight markers shared by processes: one per key (a hash of the service, the batch and the
 * email), created exclusively. The core decides when; the host's implementation says how.
 */
export interface InFlightMarkers {
  /**
   * Creates the marker for `key`: true when this run now holds it; false while another run holds
   * it (its process is running, or it was killed and its call may still be at the service).
   */
  acquire(key: string): Promise<boolean>;
  /** The call carrying these keys is about to be sent (a marker from a killed process then means "maybe sent"). */
  sending(keys: string[]): Promise<void>;
  /** This run's outcome for these keys is known: their markers go. */
  release(keys: string[]): Promise<void>;
}

/** How long a run waits for another's emails, by default: the default request timeout (createClient's `timeoutMs`). */
export const DEFAULT_IN_FLIGHT_WAIT_MS = 30_000;
/** Between two looks at a marker another process holds (a file cannot be awaited). */
const POLL_MS = 100;
/**
 * The longest single sleep of a wait in memory. The host's sleep cannot be cancelled, and one
 * sleep to the deadline outlives a wait that ends early: it kept a script's process (and jest)
 * alive for the rest of the 30 s after its run.
 */
const SLICE_MS = 1_000;

/** Who the run is and how it waits: from the client (the service's identity, the host's sleep and clock). */
export interface RunContext {
  /** The service: its base URL and a fingerprint of the API key (never the key). */
  service: string;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

/** The service's identity: a hash of the base URL and the key, so no key is kept or compared. */
export function serviceId(baseUrl: string, apiKey: string | undefined): string {
  return serviceFingerprint(baseUrl, apiKey);
}

/** One (service, batch, email) as the registry and the markers key it: a hash, so no email is in a file name. */
export function holdKey(service: string, batchId: string, emailKey: string): string {
  return createHash('sha256').update(JSON.stringify([service, batchId, emailKey])).digest('hex');
}

interface Hold {
  run: symbol;
  /** The holder's outcome for the email; undefined: it ended without one (gave it up). */
  settled: Promise<IssueOutcome | undefined>;
  settle: (outcome: IssueOutcome | undefined) => void;
}

/**
 * The holds of this process: one registry per copy of the core (the n8n package bundles its own;
 * n8n's community-node rules forbid `globalThis`, which could have joined two copies).
 */
const HELD = new Map<string, Hold>();
const registry = (): Map<string, Hold> => HELD;

/** What another run's outcome means for this run's item with the same email. */
function afterOther(item: PlannedItem, outcome: IssueOutcome | undefined): IssueOutcome | 'takeOver' {
  if (!outcome) return 'takeOver';
  if (outcome.kind === 'issued' || outcome.kind === 'skipped') return { kind: 'skipped', ok: true, recipient: outcome.recipient as Recipient, reason: 'inBatch' };
  if (outcome.kind === 'unknown') return inFlightElsewhere(item, 'its outcome there is unknown');
  return 'takeOver'; // invalid, failed, notSent, refusedEarlier, unreadBatch: not issued there
}

/** Not sent here, and perhaps issued there: an unknown outcome (what to do is its hint, errors.ts). */
function inFlightElsewhere(item: PlannedItem, why: string): IssueOutcome {
  const error = new CertificateServiceError({
    code: 'IN_FLIGHT_ELSEWHERE',
    phase: 'validation',
    outcomeUnknown: true,
    message: `${item.recipient.email}: not sent, because another run issuing into batch ${item.batchId} holds this email and ${why}; it may have been issued there.`,
  });
  return { kind: 'unknown', ok: false, error };
}

export interface HoldOptions {
  markers?: InFlightMarkers;
  signal?: AbortSignal;
  /** How long to wait for another run's emails (default DEFAULT_IN_FLIGHT_WAIT_MS). */
  waitMs?: number;
}

/**
 * The emails of one run: taken (waiting for other runs where needed) before the run reads its
 * batches, and given back as their outcomes become known, so a run that waits reads the batch
 * after the holder's calls have landed. The run touches it at three points: `take` before its
 * reads, `sending` before each call, `settle` as outcomes are known (and `releaseAll` at the end).
 */
export class RunHolds {
  readonly #run = Symbol('issue run');
  /** key → the input index whose outcome settles it (the first item with that email). */
  readonly #mine = new Map<string, number>();
  readonly #keyOf = new Map<number, string>();
  readonly #marked = new Set<string>();
  #deadline = 0;
  /** The run's signal as a promise, made at its first wait (its listener goes with the run). */
  #stop?: Promise<'stopped'>;
  #unlisten?: () => void;

  constructor(
    private readonly context: RunContext,
    private readonly options: HoldOptions,
  ) {}

  /**
   * Takes every item's email, waiting where another run holds it. Returns the outcomes decided by
   * other runs (skipped: issued there; unknown: still in flight, or unknown there); the rest are held.
   */
  async take(items: readonly PlannedItem[]): Promise<Map<number, IssueOutcome>> {
    const decided = new Map<number, IssueOutcome>();
    const byKey = new Map<string, PlannedItem[]>();
    for (const item of items) {
      const key = holdKey(this.context.service, item.batchId, item.emailKey);
      this.#keyOf.set(item.index, key);
      const list = byKey.get(key);
      if (list) list.push(item);
      else byKey.set(key, [item]);
    }
    this.#deadline = this.context.now() + (this.options.waitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS);
    const held = registry();
    const waiting: Array<[string, PlannedItem[], Hold]> = [];
    // In memory first, all at once: synchronous, so two runs in this process never both take one;
    // each hold met is kept, so its outcome is read even if it settles before this run looks.
    for (const [key, list] of byKey) {
      const other = held.get(key);
      if (other) waiting.push([key, list, other]);
      else this.#claim(held, key, list[0].index);
    }
    for (const [key, list, hold] of waiting) {
      const outcome = await this.#waitInMemory(held, key, list[0], hold);
      if (outcome) for (const item of list) decided.set(item.index, outcome);
    }
    // Then across processes, for what this run now holds, in key order: two runs that wait for
    // each other's markers always meet at the lowest key first, so neither holds what the other waits for.
    const markers = this.options.markers;
    if (markers) {
      for (const [key, index] of [...this.#mine].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const item = byKey.get(key)![0];
        const end = await this.#acquireMarker(markers, key);
        if (!end) this.#marked.add(key);
        else {
          const outcome = inFlightElsewhere(item, end === 'stopped' ? 'this run was stopped while waiting' : 'another process still has it in flight');
          for (const i of byKey.get(key)!) decided.set(i.index, outcome);
          this.#give(key, index, outcome);
        }
      }
    }
    return decided;
  }

  #claim(held: Map<string, Hold>, key: string, index: number): void {
    let settle!: Hold['settle'];
    const settled = new Promise<IssueOutcome | undefined>((resolve) => (settle = resolve));
    held.set(key, { run: this.#run, settled, settle });
    this.#mine.set(key, index);
  }

  /** Resolves when the run's signal aborts (never without one). */
  #stopped(): Promise<'stopped'> {
    const signal = this.options.signal;
    this.#stop ??= new Promise((resolve) => {
      const stop = () => resolve('stopped');
      if (signal?.aborted) return stop();
      signal?.addEventListener('abort', stop, { once: true });
      this.#unlisten = () => signal?.removeEventListener('abort', stop);
    });
    return this.#stop;
  }

  /** `pending`'s value, or why this run stopped waiting for it: its deadline (on the host's sleep) or its signal. */
  async #until<T>(pending: Promise<T>): Promise<{ value: T } | 'timeUp' | 'stopped'> {
    const value = pending.then((v) => ({ value: v }));
    for (;;) {
      const left = Math.max(0, this.#deadline - this.context.now());
      const first = await Promise.race([value, this.#stopped(), this.context.sleep(Math.min(left, SLICE_MS))]);
      if (first) return first;
      if (this.context.now() >= this.#deadline) return 'timeUp';
    }
  }

  /** Waits for the holder of `key` (`first`, then whoever takes it next); undefined when this run took the email over. */
  async #waitInMemory(held: Map<string, Hold>, key: string, item: PlannedItem, first: Hold): Promise<IssueOutcome | undefined> {
    for (let hold: Hold | undefined = first; ; hold = held.get(key)) {
      if (!hold) {
        this.#claim(held, key, item.index);
        return undefined;
      }
      const result = await this.#until(hold.settled);
      if (result === 'stopped') return inFlightElsewhere(item, 'this run was stopped while waiting for it');
      if (result === 'timeUp') return inFlightElsewhere(item, 'it was still in flight there when this run stopped waiting');
      const next = afterOther(item, result.value);
      if (next !== 'takeOver') return next;
      // Not issued there: take it over (unless a third run got there first: wait for that one).
    }
  }

  /** Undefined once this run holds the marker; else why it stopped trying. */
  async #acquireMarker(markers: InFlightMarkers, key: string): Promise<'timeUp' | 'stopped' | undefined> {
    for (;;) {
      if (await markers.acquire(key)) return undefined;
      const end = await Promise.race([this.#stopped(), this.context.sleep(POLL_MS)]);
      if (end) return end;
      if (this.context.now() >= this.#deadline) return 'timeUp';
    }
  }

  /** The input indexes' calls are about to be sent. */
  async sending(indexes: readonly number[]): Promise<void> {
    const keys = indexes.map((i) => this.#keyOf.get(i)).filter((k): k is string => !!k && this.#marked.has(k));
    if (keys.length) await this.options.markers!.sending(keys);
  }

  /** These outcomes are known: their emails are given back, the outcome handed to any run waiting. */
  async settle(settled: ReadonlyArray<readonly [number, IssueOutcome | undefined]>): Promise<void> {
    const done: Array<[string, number, IssueOutcome | undefined]> = [];
    for (const [index, outcome] of settled) {
      const key = this.#keyOf.get(index);
      if (key !== undefined && this.#mine.get(key) === index) done.push([key, index, outcome]);
    }
    // The marker goes first, so a run of this process that takes the email over can take its marker.
    const marked = done.filter(([key]) => this.#marked.has(key)).map(([key]) => key);
    if (marked.length) {
      for (const key of marked) this.#marked.delete(key);
      await this.options.markers!.release(marked);
    }
    for (const [key, index, outcome] of done) this.#give(key, index, outcome);
  }

  /** Gives back whatever is still held (the run ended, or threw): waiting runs take those emails over. */
  async releaseAll(): Promise<void> {
    this.#unlisten?.();
    await this.settle([...this.#mine].map(([, index]) => [index, undefined] as const));
  }

  #give(key: string, index: number, outcome: IssueOutcome | undefined): void {
    const held = registry();
    const hold = held.get(key);
    if (hold?.run === this.#run) {
      held.delete(key);
      hold.settle(outcome);
    }
    if (this.#mine.get(key) === index) this.#mine.delete(key);
  }
}
