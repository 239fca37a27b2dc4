/** Appends and trims the oldest entries in chunks, so a full log stays O(1) amortised. */
export function pushBounded<T>(log: T[], item: T, max: number): void {
  log.push(item);
  if (log.length > max + Math.ceil(max / 10)) log.splice(0, log.length - max);
}
