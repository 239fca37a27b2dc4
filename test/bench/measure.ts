// Small timing helpers for the benchmarks: every figure is a ratio against a baseline
// measured side by side in the same process, so machine speed cancels out.

/** Microseconds per call, best of `rounds` after a warm-up (the least-disturbed run). */
export function microsPerCall(fn: () => unknown, iterations = 20_000, rounds = 5): number {
  for (let i = 0; i < Math.min(iterations, 2000); i++) fn();
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / iterations / 1000);
  }
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
  extra?: Record<string, unknown>;
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
