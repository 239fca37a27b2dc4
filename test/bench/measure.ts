// Small timing helpers for the benchmarks: every figure is a ratio against a baseline
// measured side by side in the same process, so machine speed cancels out.

type Fn = () => unknown;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** Microseconds per call of `iterations` back-to-back calls. */
function timeRound(fn: Fn, iterations: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / iterations / 1000;
}

export interface SideBySide<K extends string> {
  /** Median µs per call of each function over the rounds. */
  micros: Record<K, number>;
  /**
   * Median over the rounds of (a's time / b's time) in the same round. The two were
   * timed next to each other, so a slow patch of the machine (another process, a GC,
   * CPU frequency) hits both and cancels out of the ratio.
   */
  ratio(a: K, b: K): number;
  /** Spread of that per-round ratio: [10th, 90th] percentile, to show how stable it is. */
  ratioSpread(a: K, b: K): [number, number];
  iterations: number;
  rounds: number;
}

/**
 * Times several functions in interleaved rounds: round r runs every function once for
 * `iterations` calls, in an order rotated by r (so none is always first or last).
 * Many short rounds beat a few long ones: each pair is measured milliseconds apart.
 */
export function sideBySide<K extends string>(fns: Record<K, Fn>, iterations = 2_000, rounds = 41): SideBySide<K> {
  const keys = Object.keys(fns) as K[];
  for (const k of keys) for (let i = 0; i < Math.min(iterations * 2, 5_000); i++) fns[k](); // warm-up (JIT)
  const times = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < keys.length; j++) {
      const k = keys[(j + r) % keys.length];
      times[k].push(timeRound(fns[k], iterations));
    }
  }
  const perRound = (a: K, b: K) => times[a].map((t, r) => t / times[b][r]).sort((x, y) => x - y);
  return {
    micros: Object.fromEntries(keys.map((k) => [k, median(times[k])])) as Record<K, number>,
    ratio: (a, b) => median(perRound(a, b)),
    ratioSpread: (a, b) => {
      const xs = perRound(a, b);
      return [xs[Math.floor(xs.length * 0.1)], xs[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))]];
    },
    iterations,
    rounds,
  };
}

/**
 * Microseconds per call.
 * - One function: best of `rounds` after a warm-up (the least-disturbed run), as before.
 * - A record of functions (baseline and ours): interleaved rounds (see {@link sideBySide}),
 *   median per function. Use `sideBySide(...).ratio()` for the ratio itself.
 */
export function microsPerCall(fn: Fn, iterations?: number, rounds?: number): number;
export function microsPerCall<K extends string>(fns: Record<K, Fn>, iterations?: number, rounds?: number): Record<K, number>;
export function microsPerCall<K extends string>(fn: Fn | Record<K, Fn>, iterations = 20_000, rounds = 5): number | Record<K, number> {
  if (typeof fn !== 'function') return sideBySide(fn, Math.max(1, Math.round(iterations / 10)), Math.max(rounds, 21)).micros;
  for (let i = 0; i < Math.min(iterations, 2000); i++) fn();
  let best = Infinity;
  for (let r = 0; r < rounds; r++) best = Math.min(best, timeRound(fn, iterations));
  return best;
}

export async function elapsedMs<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

export interface Row {
  id: string;
  what: string;
  ours: string;
  baseline: string;
  ratio: number | null;
  target: string;
  met: boolean | null;
  /** Why a target was missed or a figure needs reading with care. */
  note?: string;
  extra?: Record<string, unknown>;
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export { median };

/** Peak RSS (and heap used) while `fn` runs, sampled every `everyMs` and once at the end. */
export async function withRssSampling<T>(
  fn: () => Promise<T>,
  everyMs = 5,
): Promise<{ value: T; baselineRss: number; peakRss: number; baselineHeap: number; peakHeap: number }> {
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const timer = setInterval(sample, everyMs);
  try {
    const value = await fn();
    sample();
    return { value, baselineRss: before.rss, peakRss, baselineHeap: before.heapUsed, peakHeap };
  } finally {
    clearInterval(timer);
  }
}

export const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
